"""Background jobs of caption imports: a thin handler around the import services."""

from annotation.selectors.imports import CAPTIONS_IMPORT_JOB
from annotation.services.import_jobs import captions_import_job_run
from core.services.jobs import job_handler


# All rows or none, and ids already in the project are skipped: running it again is safe.
@job_handler(CAPTIONS_IMPORT_JOB, repeatable=True)
def annotation_captions_import(job, report):
    return captions_import_job_run(job=job, report=report)
