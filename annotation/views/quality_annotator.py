"""The annotator's qualification pages: the rounds overview, a round item, the result afterwards.

A round item is labelled with the same page layout and script as real work
(static/js/annotate.js); only the draft and submit URLs differ, and each answer
asks for a confirmation first, since an answer in a round cannot be changed.
Without JavaScript the page offers a plain form with a required confirmation box.
"""

from datetime import timedelta

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from annotation.languages import text_in
from annotation.models import Project
from annotation.selectors import work_categories
from annotation.selectors.attempts import attempt_gold
from annotation.selectors.standing import annotator_rounds, round_result
from annotation.services.quality import (
    QualityError,
    attempt_answer,
    attempt_start,
    next_item_index,
    open_attempt,
)
from annotation.views.language import in_project_language, shown
from core.decorators import annotator_required, refusal_flashed

# Queue refusals that come from quality control, answered with these pages.
QUALITY_CODES = {"not_qualified", "paused", "blocked", "eliminated"}


def _today() -> str:
    return f"{timezone.localtime():%Y-%m-%d}"


def _joined(request, slug: str) -> Project:
    return shown(get_object_or_404(Project.objects.joined_by(request.user), slug=slug))


def quality_refusal(request, project, exc):
    """What the work page shows when quality control refuses new work."""
    if exc.code == "not_qualified":
        return redirect("annotation:qualify", slug=project.slug)
    return render(
        request,
        "annotation/quality/standing.html",
        {"project": project, "reason": exc.message},
        status=403,
    )


@never_cache
@annotator_required
@in_project_language
def overview(request, slug: str):
    project = _joined(request, slug)
    status = annotator_rounds(project=project, annotator=request.user)
    return render(
        request,
        "annotation/quality/overview.html",
        {"project": project, "status": status, "now_date": _today()},
    )


@require_POST
@annotator_required
@refusal_flashed("annotation:qualify", "slug")
@in_project_language
def start(request, slug: str, position: int):
    project = _joined(request, slug)
    attempt_start(project=project, annotator=request.user, position=position)
    return redirect("annotation:qualify-round", slug=slug, position=position)


def _round_page(request, project, attempt, index, *, error: str = "", status: int = 200):
    golds = attempt_gold(attempt)
    item = golds[index - 1].item
    categories = work_categories(project)
    draft = attempt.drafts.get(str(index)) or [[] for _ in item.sentences]
    rows = [
        {"number": n + 1, "text": text, "buttons": [(c, c.key in draft[n]) for c in categories]}
        for n, text in enumerate(item.sentences)
    ]
    position = attempt.round.position
    last = index == len(golds)
    base = f"/api/v1/annotator/projects/{project.slug}/rounds/{position}/items/{index}/"
    ask = (
        _(
            "Submit caption %(index)d of %(total)d? This is the last one: the round is scored at once."
        )
        if last
        else _("Submit caption %(index)d of %(total)d? You cannot change it afterwards.")
    ) % {"index": index, "total": len(golds)}
    state = {
        "assignment": None,
        "sentences": len(item.sentences),
        "categories": [{"key": c.key, "shortcut": c.shortcut, "name": c.name} for c in categories],
        "draft": draft,
        "activeSeconds": 0,
        # Rounds have no lease; the script's countdown element is hidden on this page.
        "expiresAt": (timezone.now() + timedelta(days=1)).isoformat(),
        "confirm": ask,
        "urls": {
            "draft": base + "draft/",
            "submit": base + "answer/",
            "next": reverse("annotation:qualify-round", args=[project.slug, position]),
        },
    }
    return render(
        request,
        "annotation/quality/round_item.html",
        {
            "project": project,
            "heading": _("Qualification round %(position)d: %(title)s")
            % {"position": position, "title": text_in(attempt.round, "title", project.language)},
            "subheading": _("Caption %(index)d of %(total)d. Label it as you would in real work.")
            % {"index": index, "total": len(golds)},
            "item": item,
            "rows": rows,
            "categories": categories,
            "state": state,
            "index": index,
            "position": position,
            "confirm_text": ask,
            "submit_label": _("Finish the round") if last else _("Submit caption"),
            "error": error,
        },
        status=status,
    )


@never_cache
@annotator_required
@in_project_language
def round_item(request, slug: str, position: int):
    project = _joined(request, slug)
    try:
        attempt = open_attempt(project=project, annotator=request.user, position=position)
    except QualityError:
        # The round was just finished (or never started): its result, if any, comes next.
        if round_result(project=project, annotator=request.user, position=position, names={}):
            return redirect("annotation:qualify-result", slug=slug, position=position)
        return redirect("annotation:qualify", slug=slug)
    index = next_item_index(attempt)
    if index is None:
        return redirect("annotation:qualify", slug=slug)
    return _round_page(request, project, attempt, index)


@require_POST
@annotator_required
@in_project_language
def round_answer(request, slug: str, position: int, index: int):
    """The no-JavaScript way to answer a round caption: a form with a required confirmation."""
    project = _joined(request, slug)
    try:
        attempt = open_attempt(project=project, annotator=request.user, position=position)
    except QualityError as exc:
        messages.error(request, exc.message)
        return redirect("annotation:qualify", slug=slug)
    if next_item_index(attempt) != index:
        messages.error(request, _("That caption was already answered; here is the next one."))
        return redirect("annotation:qualify-round", slug=slug, position=position)
    golds = attempt_gold(attempt)
    sentences = len(golds[index - 1].item.sentences)
    labels = [request.POST.getlist(f"s{n}") for n in range(1, sentences + 1)]
    if request.POST.get("confirm") != "yes":
        attempt.drafts[str(index)] = labels
        return _round_page(request, project, attempt, index, status=400,
                           error=_("Tick the confirmation box to submit this caption."))  # fmt: skip
    try:
        attempt_answer(project=project, annotator=request.user, position=position, index=index,
                       labels=labels)  # fmt: skip
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    return redirect("annotation:qualify-round", slug=slug, position=position)


@never_cache
@annotator_required
@in_project_language
def result(request, slug: str, position: int):
    """A round's result: score against the pass mark, and the items as far as the review allows."""
    project = _joined(request, slug)
    names = {c.key: c.name for c in work_categories(project)}
    found = round_result(project=project, annotator=request.user, position=position, names=names)
    if found is None:
        messages.info(
            request, _("Round %(position)d has no finished attempt yet.") % {"position": position}
        )
        return redirect("annotation:qualify", slug=slug)
    status = annotator_rounds(project=project, annotator=request.user)
    return render(
        request,
        "annotation/quality/result.html",
        {
            "project": project,
            "result": found,
            "status": status,
            "position": position,
            "now_date": _today(),
        },  # fmt: skip
    )


@annotator_required
@in_project_language
def review(request, slug: str, position: int):
    """The old review address: the result page shows the labels now, when they may be shown."""
    return redirect("annotation:qualify-result", slug=slug, position=position)
