"""The annotator's qualification pages: the rounds overview, a round item, the review afterwards.

A round item is labelled with the same page layout and script as real work
(static/js/annotate.js); only the draft and submit URLs differ.
"""

from datetime import timedelta

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from annotation.models import Project
from annotation.selectors import work_categories
from annotation.selectors.quality import annotator_rounds
from annotation.services.quality import (
    QualityError,
    attempt_review,
    attempt_start,
    next_item_index,
    open_attempt,
    round_gold,
)
from core.decorators import annotator_required

# Queue refusals that come from quality control, answered with these pages.
QUALITY_CODES = {"not_qualified", "paused", "blocked", "eliminated"}


def _joined(request, slug: str) -> Project:
    return get_object_or_404(Project.objects.joined_by(request.user), slug=slug)


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
def overview(request, slug: str):
    project = _joined(request, slug)
    status = annotator_rounds(project=project, annotator=request.user)
    return render(
        request, "annotation/quality/overview.html", {"project": project, "status": status}
    )


@require_POST
@annotator_required
def start(request, slug: str, position: int):
    project = _joined(request, slug)
    try:
        attempt_start(project=project, annotator=request.user, position=position)
    except QualityError as exc:
        messages.error(request, exc.message)
        return redirect("annotation:qualify", slug=slug)
    return redirect("annotation:qualify-round", slug=slug, position=position)


@never_cache
@annotator_required
def round_item(request, slug: str, position: int):
    project = _joined(request, slug)
    try:
        attempt = open_attempt(project=project, annotator=request.user, position=position)
    except QualityError:
        return redirect("annotation:qualify", slug=slug)
    index = next_item_index(attempt)
    if index is None:
        return redirect("annotation:qualify", slug=slug)
    golds = round_gold(attempt.round)
    item = golds[index - 1].item
    categories = work_categories(project)
    draft = attempt.drafts.get(str(index)) or [[] for _ in item.sentences]
    rows = [
        {"number": n + 1, "text": text, "buttons": [(c, c.key in draft[n]) for c in categories]}
        for n, text in enumerate(item.sentences)
    ]
    base = f"/api/v1/annotator/projects/{project.slug}/rounds/{position}/items/{index}/"
    state = {
        "assignment": None,
        "sentences": len(item.sentences),
        "categories": [{"key": c.key, "shortcut": c.shortcut, "name": c.name} for c in categories],
        "draft": draft,
        "activeSeconds": 0,
        # Rounds have no lease; the script's countdown element is hidden on this page.
        "expiresAt": (timezone.now() + timedelta(days=1)).isoformat(),
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
            "heading": f"Qualification round {position}: {attempt.round.title}",
            "subheading": f"Caption {index} of {len(golds)}. Label it as you would in real work.",
            "item": item,
            "rows": rows,
            "categories": categories,
            "state": state,
        },
    )


@never_cache
@annotator_required
def review(request, slug: str, position: int):
    project = _joined(request, slug)
    try:
        attempt, golds = attempt_review(project=project, annotator=request.user, position=position)
    except QualityError as exc:
        return render(
            request,
            "annotation/quality/standing.html",
            {"project": project, "reason": exc.message},
            status=exc.status,
        )
    items = []
    for gold in golds:
        answer = attempt.answers.get(str(gold.pk)) or [[] for _ in gold.item.sentences]
        items.append(
            {
                "item": gold.item,
                "explanation": gold.explanation,
                "sentences": [
                    {"text": t, "expected": gold.labels[n], "yours": answer[n]}
                    for n, t in enumerate(gold.item.sentences)
                ],
            }
        )
    names = {c.key: c.name for c in work_categories(project)}
    return render(
        request,
        "annotation/quality/review.html",
        {"project": project, "attempt": attempt, "items": items, "names": names},
    )
