"""The annotator's pages: the labelling page, the guidelines, skipping an item."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from annotation.models import Project
from annotation.selectors import annotator_progress, work_categories
from annotation.services import QueueError, assignment_next, assignment_skip
from annotation.views import quality_annotator
from core.decorators import annotator_required


def _joined(request, slug: str) -> Project:
    return get_object_or_404(Project.objects.joined_by(request.user), slug=slug)


@never_cache
@annotator_required
def work(request, slug: str):
    """The annotator's current item: their open lease, or the next one the queue gives them."""
    project = _joined(request, slug)
    try:
        assignment = assignment_next(project=project, annotator=request.user)
    except QueueError as exc:
        if exc.code in quality_annotator.QUALITY_CODES:  # rounds first, or paused/blocked
            return quality_annotator.quality_refusal(request, project, exc)
        return render(
            request,
            "annotation/work_busy.html",
            {"project": project, "reason": exc.message},
            status=exc.status,
        )
    progress = annotator_progress(project=project, annotator=request.user)
    if assignment is None:
        return render(
            request, "annotation/work_done.html", {"project": project, "progress": progress}
        )

    categories = work_categories(project)
    item = assignment.item
    draft = assignment.draft or [[] for _ in item.sentences]
    rows = [
        {
            "number": n + 1,
            "text": text,
            "buttons": [(c, c.key in draft[n]) for c in categories],
        }
        for n, text in enumerate(item.sentences)
    ]
    state = {
        "assignment": assignment.pk,
        "sentences": len(item.sentences),
        "categories": [{"key": c.key, "shortcut": c.shortcut, "name": c.name} for c in categories],
        "draft": draft,
        "activeSeconds": assignment.active_seconds,
        "expiresAt": assignment.expires_at.isoformat(),
        "urls": {
            "draft": reverse("api:annotator-assignment-draft", args=[assignment.pk]),
            "submit": reverse("api:annotator-assignment-submit", args=[assignment.pk]),
            "next": reverse("annotation:work", args=[project.slug]),
        },
    }
    return render(
        request,
        "annotation/work.html",
        {
            "project": project,
            "assignment": assignment,
            "item": item,
            "rows": rows,
            "categories": categories,
            "progress": progress,
            "state": state,
        },
    )


@annotator_required
def guidelines(request, slug: str):
    project = _joined(request, slug)
    return render(
        request,
        "annotation/guidelines.html",
        {"project": project, "categories": work_categories(project)},
    )


@require_POST
@annotator_required
def skip(request, slug: str, pk: int):
    project = _joined(request, slug)
    try:
        assignment_skip(
            assignment_id=pk, annotator=request.user, reason=request.POST.get("reason", "")
        )
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, "Skipped. Here is your next item.")
    return redirect("annotation:work", slug=project.slug)
