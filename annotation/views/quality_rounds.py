"""Researchers' pages for changing qualification rounds: edit, delete, move up or down.

The rules (what may change once annotators have attempted a round) live in
annotation.selectors.round_rules; these views show their refusals as messages.
"""

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotation.models import Project, QualificationRound
from annotation.selectors.round_rules import attempted_by_round, settings_refusal
from annotation.selectors.rounds import round_deletion
from annotation.services.quality import QualityError
from annotation.services.quality.round_edits import round_delete, round_move, round_update
from annotation.views.quality_researcher import RoundForm
from core.confirm import confirm_delete_page
from core.decorators import researcher_required

LOCKED_FIELDS = ("gold_items", "rule", "pass_mark", "items_per_attempt")


class RoundEditForm(RoundForm):
    """The round form, with the settings fixed (shown, not editable) once a round was attempted."""

    translations = forms.JSONField(
        required=False,
        label="Title in other languages",
        help_text='Annotators read the title in the project\'s language: {"de": {"title": '
        '"Runde eins"}}. A language left out shows the title above. Can change at any time.',
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
    )

    def __init__(self, *args, round_: QualificationRound, locked: str | None, **kwargs):
        initial = {
            "title": round_.title,
            "gold_items": [g.pk for g in round_.gold_items.all()],
            "rule": round_.rule,
            "pass_mark": round_.pass_mark,
            "items_per_attempt": round_.items_per_attempt,
            "max_attempts": round_.max_attempts,
            "translations": round_.translations or {},
        }
        super().__init__(*args, project=round_.project, initial=initial, **kwargs)
        if locked:
            for name in LOCKED_FIELDS:
                # Disabled fields keep their initial value whatever is posted.
                self.fields[name].disabled = True
                self.fields[name].widget.attrs["title"] = locked

    def clean_translations(self):
        # Not posted (an older page, a script): None keeps them; posted empty: none left.
        if self.add_prefix("translations") not in self.data:
            return None
        return self.cleaned_data["translations"] or {}


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


@researcher_required
@require_http_methods(["GET", "POST"])
def round_delete_view(request, slug: str, pk: int):
    """GET: what deleting the round changes (or why it cannot be deleted); POST: delete it."""
    project = _visible(request, slug)
    round_ = _round(project, pk)
    problem = ""
    if request.method == "POST":
        try:
            done = round_delete(project=project, round_id=round_.pk, actor=request.user)
        except QualityError as exc:
            if exc.status == 404:
                raise Http404(exc.message) from exc
            problem = exc.message
        else:
            messages.success(
                request,
                f"Round {done['position']} ({done['title']}) deleted; later rounds moved up.",
            )
            if done["qualified"]:
                names = ", ".join(done["qualified"])
                messages.info(
                    request,
                    f"Qualified, having passed every remaining round: {names}. This is in the log.",
                )
            return redirect("annotation:quality", slug=slug)
    deletion = round_deletion(project=project, round_id=round_.pk)
    context = {
        "project": project,
        "heading": f"Delete round {round_.position} ({round_.title})?",
        "intro": f"Qualification round of “{project.title}”",
        "facts": [
            ("Round", round_.position),
            ("Title", round_.title),
            (
                "Gold items",
                ", ".join(g.item.external_id for g in round_.gold_items.select_related("item")),
            ),
            ("Pass rule", f"{round_.get_rule_display()} ≥ {round_.pass_mark}"),
        ],
        "consequences": _deletion_consequences(deletion),
        "problem": problem or deletion.problem,
        "button": f"Delete round {round_.position}",
        "cancel_url": reverse("annotation:quality", args=[project.slug]),
        "back_label": "Back to quality control",
    }
    return confirm_delete_page(request, context)


def _positions(rounds) -> str:
    positions = [str(r.position) for r in rounds]
    return (
        positions[0] if len(positions) == 1 else f"{', '.join(positions[:-1])} and {positions[-1]}"
    )


def _deletion_consequences(deletion) -> list[str]:
    lines = ["Nobody has attempted it, so no annotator's results or progress are lost."]
    if deletion.later:
        one = len(deletion.later) == 1
        lines.append(
            f"{'Round' if one else 'Rounds'} {_positions(deletion.later)} "
            f"{'moves' if one else 'move'} up one place."
        )
    if deletion.to_control:
        ids = ", ".join(g.item.external_id for g in deletion.to_control)
        lines.append(
            f"Its gold items {ids} become control items, mixed into qualified annotators' work."
            if len(deletion.to_control) > 1
            else f"Its gold item {ids} becomes a control item, mixed into qualified annotators' "
            "work."
        )
    for gold, positions in deletion.shared:
        where = ", ".join(str(n) for n in positions)
        lines.append(f"Gold item {gold.item.external_id} stays in round {where}.")
    if deletion.to_qualify:
        n = len(deletion.to_qualify)
        lines.append(
            f"It is the last round: {n} annotator{pluralize(n)} who passed every remaining round "
            f"{'is' if n == 1 else 'are'} qualified ({', '.join(deletion.to_qualify)}), and "
            "this goes in the log."
        )
    if deletion.last_of_all:
        lines.append("The project is left with no qualification rounds.")
    lines.append("It cannot be undone: add the round again to get it back.")
    return lines


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
