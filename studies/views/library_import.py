"""Importing a benchmark from the browser: small uploads at once, large ones as a job."""

from __future__ import annotations

import io

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render

from core.decorators import researcher_required
from core.models import Job
from studies.selectors.library import chartsets_writable
from studies.services.library import (
    IMPORT_JOB,
    ImportRejected,
    chartset_import,
    chartset_import_enqueue,
    sync_max_bytes,
    upload_bundle,
)
from studies.views.library import apply_errors
from studies.views.library_forms import NEW_SET, ImportForm


def _summary_message(result: dict) -> str:
    name = result.get("title") or result["chart_set"]
    parts = [f"{result['pairs']} pairs imported into “{name}”"]
    for key, label in (("created", "new"), ("updated", "updated"), ("unchanged", "unchanged")):
        if result.get(key):
            parts.append(f"{len(result[key])} {label}")
    if result.get("removed"):
        parts.append(f"{len(result['removed'])} removed")
    if result.get("kept"):
        parts.append(f"{len(result['kept'])} not in the upload were kept")
    if result.get("new_manipulations"):
        parts.append("new manipulation types: " + ", ".join(result["new_manipulations"]))
    return "; ".join(parts) + "."


@researcher_required
def chartset_import_page(request):
    chart_sets = chartsets_writable(user=request.user)
    initial = {"target": request.GET.get("set", NEW_SET)}
    form = ImportForm(
        request.POST or None, request.FILES or None, chart_sets=chart_sets, initial=initial
    )
    problems = []
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        new = data["target"] == NEW_SET
        slug = (data["slug"] or None) if new else data["target"]
        title = (data["title"] or None) if new else None
        try:
            bundle, name = upload_bundle(
                file=data["file"],
                manifest=data["manifest"],
                images=request.FILES.getlist("images"),
            )
            if len(bundle) > sync_max_bytes():
                job = chartset_import_enqueue(
                    owner=request.user,
                    data=bundle,
                    source_name=name,
                    slug=slug,
                    title=title,
                    prune=data["prune"],
                    new=new,
                )
                return redirect("studies:chartset-import-status", job_id=job.pk)
            result = chartset_import(
                owner=request.user,
                source=io.BytesIO(bundle),
                slug=slug,
                title=title,
                prune=data["prune"],
                source_name=name,
                new=new,
            )
        except ImportRejected as rejected:
            problems = rejected.problems
        except ValidationError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, _summary_message(result.as_dict()))
            return redirect("studies:chartset-detail", slug=result.chart_set.slug)
    status = 400 if (problems or form.errors) else 200
    return render(
        request,
        "studies/library/import.html",
        {"form": form, "problems": problems},
        status=status,
    )


@researcher_required
def import_status(request, job_id):
    job = Job.objects.filter(pk=job_id, kind=IMPORT_JOB, created_by=request.user).first()
    if job is None:
        raise Http404("No such import.")
    result = job.result or {}
    if job.state == Job.State.DONE and result.get("ok"):
        messages.success(request, _summary_message(result))
        return redirect("studies:chartset-detail", slug=result["chart_set"])
    return render(
        request,
        "studies/library/import_status.html",
        {"job": job, "problems": result.get("problems", [])},
    )
