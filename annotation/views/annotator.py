"""The annotator's pages: the labelling page, submitting from it, the guidelines, skipping an item."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from annotation.models import Project
from annotation.selectors import annotator_progress, work_categories
from annotation.services import QueueError, assignment_next, assignment_skip, assignment_submit_next
from annotation.views import quality_annotator
from annotation.views.language import in_project_language, shown
from core import json_input
from core.decorators import annotator_required

# A submit this soon after its item was leased is refused: nobody could have looked at the
# item (a quick second Enter meant for the item before). The page's script waits a little
# longer (SETTLE_MS in annotate.js), so a person never meets this refusal.
SETTLE_SECONDS = 0.5


def _joined(request, slug: str) -> Project:
    return shown(get_object_or_404(Project.objects.joined_by(request.user), slug=slug))


def _item_context(project, assignment, categories, progress) -> dict:
    """What the page shows of one lease: its sentences and toggles, progress, and the script's state."""
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
        "image": item.image_src or "",
        "urls": {
            "draft": reverse("api:annotator-assignment-draft", args=[assignment.pk]),
            "submit": reverse("annotation:work-submit", args=[project.slug, assignment.pk]),
            "skip": reverse("annotation:work-skip", args=[project.slug, assignment.pk]),
            "next": reverse("annotation:work", args=[project.slug]),
        },
    }
    return {
        "project": project,
        "assignment": assignment,
        "item": item,
        "rows": rows,
        "categories": categories,
        "progress": progress,
        "state": state,
    }


@never_cache
@annotator_required
@in_project_language
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
    context = _item_context(project, assignment, work_categories(project), progress)
    return render(request, "annotation/work.html", context)


def _posted_labels(request):
    """(labels, active seconds, whether the page's script sent them) from a JSON or form POST."""
    if request.content_type == "application/json":
        try:
            body = json_input.loads(request.body or b"{}")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise ValidationError(_("Send the labels as a JSON object."))
        return body.get("labels"), body.get("active_seconds"), True
    sentences = int(request.POST.get("sentences") or 0)
    labels = [request.POST.getlist(f"s{n}") for n in range(1, min(sentences, 200) + 1)]
    return labels, None, False


@require_POST
@annotator_required
@in_project_language
def work_submit(request, slug: str, pk: int):
    """Store the labels and lease the next item in one request.

    The page's script gets the next item's rows and progress rendered here, so
    it shows them without a page load and every word stays in the templates;
    without JavaScript the plain form posts here and the work page follows.
    """
    project = _joined(request, slug)
    work_url = reverse("annotation:work", args=[project.slug])
    try:
        labels, seconds, script = _posted_labels(request)
        submitted = assignment_submit_next(
            assignment_id=pk,
            annotator=request.user,
            labels=labels,
            active_seconds=seconds,
            # Only the script shows the next item in place, where a quick second Enter lands.
            settle_seconds=SETTLE_SECONDS if script else 0.0,
        )
    except QueueError as exc:
        if request.content_type != "application/json":
            messages.error(request, exc.message)
            return redirect(work_url)
        return JsonResponse({"detail": exc.message, "url": work_url}, status=exc.status)
    except ValidationError as exc:
        if request.content_type != "application/json":
            messages.error(request, " ".join(exc.messages))
            return redirect(work_url)
        return JsonResponse({"detail": " ".join(exc.messages)}, status=400)
    if not script:  # the plain form: say it was stored, as the script's page does
        stored = _("Submitted. Here is your next item.") if submitted.next else _("Submitted.")
        messages.success(request, stored)
        return redirect(work_url)
    if submitted.next is None:
        # Done, paused or busy: the work page says which, in its own words.
        return JsonResponse({"url": work_url})
    progress = annotator_progress(project=project, annotator=request.user)
    context = _item_context(project, submitted.next, submitted.categories, progress)
    return JsonResponse(
        {
            "state": context["state"],
            "rows": render_to_string("annotation/_sentence_rows.html", context, request),
            "progress": render_to_string("annotation/_work_progress.html", context, request),
        }
    )


@annotator_required
@in_project_language
def guidelines(request, slug: str):
    project = _joined(request, slug)
    return render(
        request,
        "annotation/guidelines.html",
        {"project": project, "categories": work_categories(project)},
    )


@require_POST
@annotator_required
@in_project_language
def skip(request, slug: str, pk: int):
    project = _joined(request, slug)
    try:
        assignment_skip(
            assignment_id=pk, annotator=request.user, reason=request.POST.get("reason", "")
        )
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("annotation:work", slug=project.slug)
    # Lease the next item now, so the one-shot banner says whether there is one (the
    # work page then shows that lease); "Here is your next item" above "Nothing left"
    # would promise work that is not there.
    try:
        following = assignment_next(project=project, annotator=request.user)
    except QueueError:
        following = None  # paused, blocked or busy: the work page says which
    if following is not None:
        messages.success(request, _("Skipped. Here is your next item."))
    else:
        messages.success(request, _("Skipped."))
    return redirect("annotation:work", slug=project.slug)
