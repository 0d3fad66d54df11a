"""The study's Models page: import model answers, coverage and every model analysis beside the humans."""

from __future__ import annotations

import io

from django import forms
from django.contrib import messages
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_http_methods

from core.confirm import confirm_delete_page
from core.decorators import researcher_required
from core.models import Job
from core.services.jobs import jobs_run_in_background
from studies.model_answers_format import DEFAULT_MAX_BYTES
from studies.selectors.model_eval import model_eval_report, model_runs
from studies.selectors.model_replies import reply_summaries
from studies.selectors.study import study_get
from studies.services.model_eval import model_answers_import, model_run_delete
from studies.services.model_eval_export import (
    ModelEvalExportError,
    model_eval_export_filename,
    model_eval_export_write,
)
from studies.services.model_eval_jobs import MODEL_EVAL_JOB, model_eval_request_compute
from studies.services.model_prompts import prompts_export_write, prompts_filename
from studies.views.results import job_view


class ModelAnswersForm(forms.Form):
    file = forms.FileField(
        help_text="CSV or JSON Lines with model, chart_id, fact_answer, mind_prediction, "
        "mind_justification."
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > DEFAULT_MAX_BYTES:
            raise forms.ValidationError("The file is larger than 50 MB.")
        return upload


def _report_or_job(request, study) -> tuple[dict, Job | None]:
    """The report, or, when it is not cached and a job can build it apart from this
    request, an empty report and that job (the page then shows its progress)."""
    background = jobs_run_in_background()
    data = model_eval_report(study, compute=not background)
    if data is not None:
        return data, None
    job = model_eval_request_compute(study=study, user=request.user)
    job.refresh_from_db()
    if job.state == Job.State.DONE:
        # Done, yet not in this process's cache (a worker with a per-process cache).
        return model_eval_report(study), None
    return {}, job


def _page(request, study, *, form=None, report=None, status=200):
    data, job = _report_or_job(request, study)
    humans = data.get("humans") or {}
    context = {
        "job": job_view(job),
        "running": job is not None and not job.is_finished,
        "study": study,
        "tab": "models",
        "form": form or ModelAnswersForm(),
        "runs": model_runs(study),
        "replies": reply_summaries(study),
        "import_report": report,
        "data": data,
        "humans_computed_at": parse_datetime(humans.get("results_computed_at") or ""),
    }
    return render(request, "studies/model_eval/page.html", context, status=status)


@researcher_required
def study_models(request, slug: str):
    study = study_get(user=request.user, slug=slug)
    if request.method != "POST":
        return _page(request, study)
    form = ModelAnswersForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, study, form=form, status=400)
    upload = form.cleaned_data["file"]
    report = model_answers_import(
        study=study, source=upload.read(), filename=upload.name, user=request.user
    )
    if report.blocking or not report.imported:
        return _page(request, study, form=form, report=report, status=400)
    names = ", ".join(f"{m} ({n} rows)" for m, n in report.imported.items())
    messages.success(request, f"Imported {names}.")
    for problem in report.problems:
        messages.warning(request, str(problem))
    return redirect("studies:models", slug=study.slug)


@researcher_required
def study_models_status(request, slug: str):
    """The report job's state, polled by the page while the first computation runs."""
    study = study_get(user=request.user, slug=slug)
    job = Job.objects.filter(kind=MODEL_EVAL_JOB, subject=study.subject).order_by("-created_at")
    view = job_view(job.first()) or {}
    view.pop("created_at", None)
    view.pop("finished_at", None)
    return JsonResponse({"job": view or None})


@researcher_required
@require_http_methods(["GET", "POST"])
def study_models_delete(request, slug: str):
    """GET (?model=...): what removing a model's answers means; POST: remove them."""
    study = study_get(user=request.user, slug=slug)
    model = (
        request.POST.get("model", "") if request.method == "POST" else request.GET.get("model", "")
    )
    run = next((r for r in model_runs(study) if r.model == model), None)
    if run is None:
        raise Http404("This study has no answers from that model.")
    if request.method == "POST":
        model_run_delete(study=study, model=model)
        messages.success(request, f"Removed the answers of {model}.")
        return redirect("studies:models", slug=study.slug)
    answers = run.answers.count()
    context = {
        "study": study,
        "heading": f"Remove the answers of {model}?",
        "intro": f"Model answers in “{study.title}”",
        "facts": [
            ("Model", model),
            ("Answers", answers),
            (
                "Imported",
                f"{run.imported_at:%Y-%m-%d %H:%M} UTC from {run.source_name or 'a file'}",
            ),
        ],
        "consequences": [
            f"Its {answers} answer{pluralize(answers)} are deleted, and the model leaves every "
            "analysis and export on the Models page.",
            "Participants' answers and the study's results are not touched.",
            "Importing the model's answer file again brings them back.",
        ],
        "model": model,
        "button": "Remove the answers",
        "cancel_url": reverse("studies:models", args=[study.slug]),
        "back_label": "Back to the models",
    }
    return confirm_delete_page(request, context)


@researcher_required
def study_models_prompts(request, slug: str):
    study = study_get(user=request.user, slug=slug)
    buffer = io.BytesIO()
    prompts_export_write(study=study, out=buffer)
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{prompts_filename(study)}"'
    return response


@researcher_required
def study_models_export(request, slug: str):
    study = study_get(user=request.user, slug=slug)
    buffer = io.BytesIO()
    try:
        model_eval_export_write(study=study, out=buffer)
    except ModelEvalExportError as exc:
        messages.error(request, str(exc))
        return redirect("studies:models", slug=study.slug)
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{model_eval_export_filename(study)}"'
    return response
