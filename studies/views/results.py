"""The study results page: funnel, HMI, tests and model fits, overrides and exports."""

from __future__ import annotations

import os
import tempfile

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.views.decorators.http import require_POST

from analysis.svg import without_inline_styles
from core.decorators import researcher_required
from core.models import Job
from studies.selectors import results as results_sel
from studies.selectors.library import chartom_problem_of_study
from studies.selectors.results_compare import comparable_studies, study_comparison
from studies.selectors.study import study_get
from studies.services import exports
from studies.services.results.exclusion import REASONS, exclusion_override_set, study_exclusion
from studies.services.results.schedule import results_request_compute

# Above this many responses an export runs as a job rather than in the request.
DIRECT_EXPORT_LIMIT = 200_000


def _error_text(exc: ValidationError) -> str:
    if hasattr(exc, "message_dict"):
        return " ".join(m for msgs in exc.message_dict.values() for m in msgs)
    return " ".join(exc.messages)


def job_view(job: Job | None) -> dict | None:
    if job is None:
        return None
    return {
        "id": job.pk,
        "state": job.state,
        "label": job.get_state_display(),
        "progress": round(job.progress * 100),
        "message": job.message,
        "error": job.error,
        "finished": job.is_finished,
        "created_at": job.created_at,
        "finished_at": job.finished_at,
    }


@researcher_required
def study_results(request, slug: str):
    study = study_get(user=request.user, slug=slug)
    snapshot, job, response_count, export_jobs = results_sel.study_results_state(study)
    data = snapshot.data if snapshot and snapshot.computed_at else None
    exclusion = study_exclusion(study)
    decisions = [d for d in exclusion.took_part if d.facts.status != "in_progress"]
    mixed = gee = []
    if data:
        mixed = [r for r in data["log_odds"] if r["estimator"].startswith("BinomialBayes")]
        gee = [r for r in data["log_odds"] if r["estimator"].startswith("GEE")]
    if data and data.get("svg"):
        # Results computed before figures dropped inline CSS still carry it; the page's
        # Content-Security-Policy would refuse it, so it is converted on the way out.
        data["svg"] = {name: without_inline_styles(svg) for name, svg in data["svg"].items()}
    if data:
        details = results_sel.chart_details(study)
        for chart in data.get("charts", []):  # snapshots saved before charts were listed have none
            chart.update(details.get(chart["pk"], {}))
    comparable = comparable_studies(study=study) if data else []
    other = next((s for s in comparable if s.slug == request.GET.get("compare")), None)
    context = {
        "study": study,
        "data": data,
        "comparable": comparable,
        "comparison": study_comparison(study, other) if other else None,
        "snapshot": snapshot,
        "job": job_view(job),
        "running": job is not None and not job.is_finished,
        "stale_reason": snapshot.stale_reason(response_count) if snapshot else None,
        "response_count": response_count,
        "funnel": exclusion.funnel(),
        "decisions": decisions,
        "reasons": REASONS,
        "mixed": mixed,
        "gee": gee,
        "formats": exports.FORMATS.values(),
        # The publishable zip is in the CHARTOM layout, which only its naming can take.
        "chartom_problem": chartom_problem_of_study(study),
        # Exports hold pilot and preview responses too, so their size is every response.
        "direct_exports": results_sel.study_response_count(study) <= DIRECT_EXPORT_LIMIT,
        "export_jobs": [
            (j, job_view(j), exports.FORMATS.get(j.params.get("format"))) for j in export_jobs
        ],
    }
    return render(request, "studies/results/results.html", context)


@researcher_required
def study_results_status(request, slug: str):
    """The compute job's state, polled by the page while a run is going."""
    study = study_get(user=request.user, slug=slug)
    snapshot, job, response_count, _ = results_sel.study_results_state(study)
    view = job_view(job) or {}
    view.pop("created_at", None)
    view.pop("finished_at", None)
    return JsonResponse(
        {
            "job": view or None,
            "computed_at": snapshot.computed_at.isoformat()
            if snapshot and snapshot.computed_at
            else None,
            "response_count": response_count,
        }
    )


@researcher_required
@require_POST
def study_results_compute(request, slug: str):
    study = study_get(user=request.user, slug=slug)
    job = results_request_compute(study=study, user=request.user)
    job.refresh_from_db()
    if job.state == Job.State.DONE:
        # No worker and no job thread: the run went on inside this request, and it is over.
        count = (job.result or {}).get("responses", 0)
        messages.success(
            request,
            f"Results recomputed within this request from {count} response{pluralize(count)}.",
        )
    elif job.state == Job.State.FAILED:
        messages.error(request, f"The recompute failed: {job.error}")
    else:
        messages.success(request, "Recompute started: the status panel below shows its progress.")
    return redirect("studies:results", slug=study.slug)


@researcher_required
@require_POST
def study_results_override(request, slug: str, pk: int):
    study = study_get(user=request.user, slug=slug)
    try:
        exclusion_override_set(
            study=study,
            session_id=pk,
            decision=request.POST.get("decision", ""),
            reason=request.POST.get("reason", ""),
            user=request.user,
        )
    except ValidationError as exc:
        messages.error(request, _error_text(exc))
    else:
        messages.success(
            request, "Decision saved and logged. Recompute the results to apply it to the numbers."
        )
    return redirect(f"{study_results_url(study)}#participants")


def study_results_url(study) -> str:
    from django.urls import reverse

    return reverse("studies:results", args=[study.slug])


@researcher_required
@require_POST
def study_results_export(request, slug: str):
    """Start an export job (large studies, Parquet, or any format on request)."""
    study = study_get(user=request.user, slug=slug)
    try:
        job = exports.export_request(
            study=study,
            slug=request.POST.get("format", ""),
            user=request.user,
            include_platform_ids=request.POST.get("include_platform_ids") == "on",
        )
    except ValidationError as exc:
        messages.error(request, _error_text(exc))
    else:
        messages.success(
            request,
            "This export is being built already; its download link appears below."
            if job.was_already_queued
            else "The export is being built; its download link appears below.",
        )
    return redirect(f"{study_results_url(study)}#exports")


@researcher_required
def study_results_download(request, slug: str, fmt: str):
    """Download an export straight away (studies up to DIRECT_EXPORT_LIMIT responses)."""
    study = study_get(user=request.user, slug=slug)
    if fmt not in exports.FORMATS:
        raise Http404("No such export format.")
    if results_sel.study_response_count(study) > DIRECT_EXPORT_LIMIT:
        messages.error(request, "This study is large: build the export as a job below.")
        return redirect(f"{study_results_url(study)}#exports")
    with_ids = request.GET.get("platform_ids") == "1"
    if with_ids:
        exports.export_log_platform_ids(study=study, user=request.user, slug=fmt)
    filename = exports.export_filename(study, fmt)
    content_type = exports.FORMATS[fmt].content_type
    if fmt.endswith("-csv"):
        response = StreamingHttpResponse(
            exports.export_csv_stream(study=study, slug=fmt, include_platform_ids=with_ids),
            content_type=f"{content_type}; charset=utf-8",
        )
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
    # Handed to FileResponse, which closes it once the download is sent.
    handle = tempfile.TemporaryFile()  # noqa: SIM115
    try:
        exports.export_write(study=study, slug=fmt, out=handle, include_platform_ids=with_ids)
    except ValidationError as exc:
        handle.close()
        messages.error(request, _error_text(exc))
        return redirect(f"{study_results_url(study)}#exports")
    handle.seek(0)
    return FileResponse(handle, as_attachment=True, filename=filename, content_type=content_type)


@researcher_required
def study_results_job_download(request, slug: str, job_id: int):
    study = study_get(user=request.user, slug=slug)
    job = Job.objects.filter(pk=job_id, subject=study.subject).first()
    if job is None or not job.result_file:
        raise Http404("No such export.")
    name = os.path.basename(job.result_file.name)
    return FileResponse(job.result_file.open("rb"), as_attachment=True, filename=name)
