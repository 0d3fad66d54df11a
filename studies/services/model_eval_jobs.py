"""Building the Models page's report as a job: its first computation takes seconds (a mixed
model and five figures), so the page shows the job's progress instead of a blank wait."""

from __future__ import annotations

from core.models import Job
from core.services.jobs import job_create
from studies.models import Study
from studies.selectors.model_eval import model_eval_report

MODEL_EVAL_JOB = "studies.model_eval_report"


def model_eval_request_compute(*, study: Study, user=None) -> Job:
    """The report job in progress for this study, or a new one (one at a time per study)."""
    running = (
        Job.objects.filter(kind=MODEL_EVAL_JOB, subject=study.subject)
        .exclude(state__in=[Job.State.DONE, Job.State.FAILED])
        .order_by("-created_at")
        .first()
    )
    if running is not None:
        return running
    return job_create(
        kind=MODEL_EVAL_JOB, params={"study": study.pk}, subject=study.subject, user=user
    )


def model_eval_job_run(*, job: Job, report) -> dict:
    study = Study.objects.filter(pk=job.params.get("study")).first()
    if study is None:
        return {"message": "The study no longer exists."}
    # Built at full precision and cached under its inputs, where the page finds it.
    data = model_eval_report(study, digits=None, report=report)
    return {"models": len(data.get("models") or [])}
