"""Background jobs of annotation reports: a thin handler around the report services."""

from annotation.services.reports.jobs import REPORT_JOB, report_job_run
from core.services.jobs import job_handler


@job_handler(REPORT_JOB, repeatable=True)  # reads labels, stores a result
def annotation_report(job, report):
    return report_job_run(job=job, report=report)
