"""Background job of the Models page: a thin handler around the report service."""

from core.services.jobs import job_handler
from studies.services.model_eval_jobs import MODEL_EVAL_JOB, model_eval_job_run


@job_handler(MODEL_EVAL_JOB, repeatable=True)  # reads answers, fills a cache
def model_eval_report_job(job, report):
    return model_eval_job_run(job=job, report=report)
