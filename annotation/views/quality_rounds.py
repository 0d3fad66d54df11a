"""Researchers' pages for changing qualification rounds: edit, delete, move up or down.

The rules (what may change once annotators have attempted a round) live in
annotation.selectors.round_rules; these views show their refusals as messages.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation.models import Project, QualificationRound
from annotation.selectors.round_rules import attempted_by_round, settings_refusal
from annotation.services.quality import QualityError
from annotation.services.quality.round_edits import round_delete, round_move, round_update
from annotation.views.quality_researcher import RoundForm
from core.decorators import researcher_required

LOCKED_FIELDS = ("gold_items", "rule", "pass_mark", "items_per_attempt")


class RoundEditForm(RoundForm):
    """The round form, with the settings fixed (shown, not editable) once a round was attempted."""

    def __init__(self, *args, round_: QualificationRound, locked: str | None, **kwargs):
        initial = {
            "title": round_.title,
            "gold_items": [g.pk for g in round_.gold_items.all()],
            "rule": round_.rule,
            "pass_mark": round_.pass_mark,
            "items_per_attempt": round_.items_per_attempt,
            "max_attempts": round_.max_attempts,
        }
        super().__init__(*args, project=round_.project, initial=initial, **kwargs)
        if locked:
            for name in LOCKED_FIELDS:
                # Disabled fields keep their initial value whatever is posted.
                self.fields[name].disabled = True
                self.fields[name].widget.attrs["title"] = locked


def _visible(request, slug: str) -> Project:
    return get_object_or_404(Project.objects.visible_to(request.user), slug=slug)


def _round(project, pk: int) -> QualificationRound:
    return get_object_or_404(QualificationRound, project=project, pk=pk)


def _error(request, exc: ValidationError) -> None:
    messages.error(
        request, exc.message if isinstance(exc, QualityError) else " ".join(exc.messages)
    )


@researcher_required
def round_edit(request, slug: str, pk: int):
    project = _visible(request, slug)
    round_ = _round(project, pk)
    refusal = settings_refusal(round_, attempted_by_round([round_]).get(round_.pk, 0))
    locked = refusal.message if refusal else None
    form = RoundEditForm(request.POST or None, round_=round_, locked=locked)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                round_update(project=project, round_id=round_.pk, actor=request.user,
                             **form.cleaned_data)  # fmt: skip
            except ValidationError as exc:
                _error(request, exc)
                status = 409 if isinstance(exc, QualityError) and exc.status == 409 else 400
                if getattr(exc, "code", "") == "round_started":
                    # Someone started the round since the page was loaded: show it fixed now.
                    locked = exc.message
                    form = RoundEditForm(request.POST, round_=round_, locked=locked)
            else:
                messages.success(request, f"Round {round_.position} saved.")
                return redirect("annotation:quality", slug=slug)
        else:
            for field, errors in form.errors.items():
                messages.error(request, f"{field}: {' '.join(errors)}")
            status = 400
    return render(
        request,
        "annotation/quality/round_edit.html",
        {"project": project, "round": round_, "form": form, "locked": locked},
        status=status,
    )


@require_POST
@researcher_required
def round_delete_view(request, slug: str, pk: int):
    project = _visible(request, slug)
    round_ = _round(project, pk)
    try:
        done = round_delete(project=project, round_id=round_.pk, actor=request.user)
    except ValidationError as exc:
        _error(request, exc)
    else:
        messages.success(
            request, f"Round {done['position']} ({done['title']}) deleted; later rounds moved up."
        )
        if done["qualified"]:
            names = ", ".join(done["qualified"])
            messages.info(
                request,
                f"Qualified, having passed every remaining round: {names}. This is in the log.",
            )
    return redirect("annotation:quality", slug=slug)


@require_POST
@researcher_required
def round_move_view(request, slug: str, pk: int):
    project = _visible(request, slug)
    round_ = _round(project, pk)
    start = round_.position
    try:
        rounds = round_move(project=project, round_id=round_.pk, actor=request.user,
                            direction=request.POST.get("direction", ""))  # fmt: skip
    except ValidationError as exc:
        _error(request, exc)
    else:
        moved = next(r for r in rounds if r.pk == round_.pk)
        messages.success(
            request, f"{moved.title} moved from round {start} to round {moved.position}."
        )
    return redirect("annotation:quality", slug=slug)
