"""Background jobs of study results: thin handlers around the results and export services."""

from core.services.jobs import job_handler
from studies.services.exports import EXPORT_JOB, export_job_run
from studies.services.results.schedule import COMPUTE_JOB, results_compute_job_run


@job_handler(COMPUTE_JOB, repeatable=True)  # reads answers, stores a result
def results_compute_job(job, report):
    return results_compute_job_run(job=job, report=report)


@job_handler(EXPORT_JOB, repeatable=True)  # writes a new file each run
def results_export_job(job, report):
    return export_job_run(job=job, report=report)
