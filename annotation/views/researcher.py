"""Researchers' project pages: progress, settings and categories, imports, items, leases."""

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from annotation.forms import (
    CategoryForm,
    ImportForm,
    NewCategoryForm,
    ProjectSettingsForm,
    ReassignForm,
)
from annotation.models import Category, ImportBatch, Project
from annotation.selectors import (
    annotator_rows,
    item_page,
    open_leases,
    project_overview,
    researcher_item,
)
from annotation.selectors.imports import (
    caption_import_job,
    caption_import_jobs_pending,
    import_batch,
    job_problems,
)
from annotation.services import (
    ImportRejected,
    QueueError,
    assignment_reassign,
    assignment_release,
    category_create,
    category_update,
    project_update,
)
from annotation.services.import_jobs import (
    captions_import_upload,
)
from core.decorators import researcher_required
from core.models import Job, User


def _visible(request, slug: str) -> Project:
    return get_object_or_404(Project.objects.visible_to(request.user), slug=slug)


def _add_errors(form, exc: ValidationError) -> None:
    if hasattr(exc, "error_dict"):
        for field, errors in exc.message_dict.items():
            field = field if field in form.fields else None
            if field == "split_map":
                field = "split_map_text"
            for error in errors:
                form.add_error(field, error)
    else:
        for error in exc.messages:
            form.add_error(None, error)


@researcher_required
def project_detail(request, slug: str):
    project = _visible(request, slug)
    rows = annotator_rows(project)
    leases = list(open_leases(project)[:100])
    return render(
        request,
        "annotation/project_detail.html",
        {
            "project": project,
            "overview": project_overview(project),
            "rows": rows,
            "leases": leases,
            "members": [r.username for r in rows],
            "imports": ImportBatch.objects.filter(project=project)[:5],
            "import_jobs": caption_import_jobs_pending(project=project, user=request.user),
            "invite_url": request.build_absolute_uri(f"/annotation/join/{project.invite_code}/"),
        },
    )


@researcher_required
def project_settings(request, slug: str):
    project = _visible(request, slug)
    action = request.POST.get("action", "") if request.method == "POST" else ""
    settings_form = ProjectSettingsForm(
        request.POST if action == "settings" else None, instance=Project.objects.get(pk=project.pk)
    )
    categories = list(Category.objects.filter(project=project))
    category_forms = [
        CategoryForm(
            request.POST if action == f"category-{c.pk}" else None,
            instance=c,
            prefix=f"c{c.pk}",
        )
        for c in categories
    ]
    new_form = NewCategoryForm(request.POST if action == "new-category" else None, prefix="new")

    if action == "settings" and settings_form.is_valid():
        try:
            project_update(project=project, actor=request.user, **settings_form.changes())
        except ValidationError as exc:
            _add_errors(settings_form, exc)
        else:
            messages.success(request, "Settings saved.")
            return redirect("annotation:project-settings", slug=project.slug)
    elif action.startswith("category-"):
        form = next((f for f in category_forms if f.is_bound), None)
        if form is not None and form.is_valid():
            category = Category.objects.get(pk=form.instance.pk)
            try:
                category_update(
                    category=category, **{f: form.cleaned_data[f] for f in CategoryForm.Meta.fields}
                )
            except ValidationError as exc:
                _add_errors(form, exc)
            else:
                messages.success(request, f"Category “{category.name}” saved.")
                return redirect("annotation:project-settings", slug=project.slug)
    elif action == "new-category" and new_form.is_valid():
        try:
            category = category_create(project=project, **new_form.cleaned_data)
        except ValidationError as exc:
            _add_errors(new_form, exc)
        else:
            messages.success(request, f"Category “{category.name}” added.")
            return redirect("annotation:project-settings", slug=project.slug)
    return render(
        request,
        "annotation/project_settings.html",
        {
            "project": project,
            "form": settings_form,
            "category_forms": category_forms,
            "new_form": new_form,
        },
        status=400 if request.method == "POST" else 200,
    )


@researcher_required
def project_import(request, slug: str):
    """Upload captions: small files import at once, large ones in a job this page then shows."""
    project = _visible(request, slug)
    form = ImportForm(request.POST or None, request.FILES or None)
    problems = None
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        images = form.cleaned_data.get("images")
        try:
            result = captions_import_upload(
                project=project, user=request.user, upload=upload, images=images
            )
            if isinstance(result, Job):
                url = reverse("annotation:project-import", args=[project.slug])
                return redirect(f"{url}?job={result.pk}")
        except ImportRejected as exc:
            problems = exc.problems
        else:
            messages.success(request, result.summary())
            return redirect("annotation:project-detail", slug=project.slug)
    problem_count = len(problems or ())
    job = None
    if request.method == "GET" and "job" in request.GET:
        # A large upload's job: only its own creator can follow it.
        job = caption_import_job(project=project, user=request.user, job_id=request.GET["job"])
        if job is None:
            raise Http404("No such import.")
        if job.state == Job.State.DONE:
            problems = job_problems(job) or None
            problem_count = (job.result or {}).get("problem_count", 0)
    return render(
        request,
        "annotation/project_import.html",
        {
            "project": project,
            "form": form,
            "problems": problems,
            "job": job,
            "problem_count": problem_count,
            "inline_limit": settings.CHARTROOM_CAPTIONS_INLINE_BYTES,
            "imports": ImportBatch.objects.filter(project=project)[:20],
            "import_jobs": caption_import_jobs_pending(project=project, user=request.user),
        },
        status=400 if problems is not None and request.method == "POST" else 200,
    )


@researcher_required
def import_detail(request, slug: str, pk: int):
    """One import from the history: its state, counts and every problem, to read again later."""
    project = _visible(request, slug)
    batch = import_batch(project=project, pk=pk)
    if batch is None:
        raise Http404("No such import.")
    return render(request, "annotation/import_detail.html", {"project": project, "batch": batch})


@researcher_required
def project_items(request, slug: str):
    project = _visible(request, slug)
    split = request.GET.get("split", "")
    status = request.GET.get("status", "")
    paginator = Paginator(item_page(project, split=split, status=status), 50)
    page = paginator.get_page(request.GET.get("page"))
    splits = sorted(set(project.items.values_list("split", flat=True)) - {""})
    return render(
        request,
        "annotation/project_items.html",
        {"project": project, "page": page, "split": split, "status": status, "splits": splits},
    )


@researcher_required
def item_detail(request, slug: str, pk: int):
    project = _visible(request, slug)
    item = researcher_item(project, pk)
    names = dict(Category.objects.filter(project=project).values_list("key", "name"))
    reference = getattr(item, "reference", None)
    rows = []
    for n, text in enumerate(item.sentences):
        rows.append(
            {
                "number": n + 1,
                "text": text,
                "reference": [names.get(k, k) for k in reference.labels[n]] if reference else None,
                "annotators": [
                    (ls.annotator.username, [names.get(k, k) for k in ls.labels[n]])
                    for ls in item.label_sets.all()
                ],
            }
        )
    return render(
        request,
        "annotation/item_detail.html",
        {"project": project, "item": item, "rows": rows, "reference": reference},
    )


def _back(request, project):
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}):
        return redirect(target)
    return redirect("annotation:project-detail", slug=project.slug)


@require_POST
@researcher_required
def lease_release(request, slug: str, pk: int):
    project = _visible(request, slug)
    try:
        assignment = assignment_release(
            assignment_id=pk,
            project=project,
            actor=request.user,
            reason=request.POST.get("reason", ""),
        )
    except QueueError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            f"Released {assignment.item.external_id} from {assignment.annotator.username}; "
            "it is back in the pool.",
        )
    return _back(request, project)


@require_POST
@researcher_required
def lease_reassign(request, slug: str, pk: int):
    project = _visible(request, slug)
    members = list(project.members.values_list("annotator__username", flat=True))
    form = ReassignForm(request.POST, members=members)
    if not form.is_valid():
        messages.error(request, "Choose an annotator of this project to give the item to.")
        return _back(request, project)
    target = User.objects.get(username=form.cleaned_data["annotator"])
    try:
        assignment = assignment_reassign(
            assignment_id=pk,
            project=project,
            to_annotator=target,
            actor=request.user,
            reason=form.cleaned_data["reason"],
        )
    except QueueError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request, f"{assignment.item.external_id} is now leased to {target.username}."
        )
    return _back(request, project)
