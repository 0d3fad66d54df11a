"""Background jobs of the chart library: thin handlers around the library services."""

from core.services.jobs import job_handler
from studies.services.library.generating import GENERATE_JOB, chartset_generate_job_run
from studies.services.library.importing import IMPORT_JOB, chartset_import_job_run


# The library import and generation change chart sets step by step: not repeated on their own.
@job_handler(IMPORT_JOB)
def library_import(job, report):
    return chartset_import_job_run(job=job, report=report)


@job_handler(GENERATE_JOB)
def library_generate(job, report):
    return chartset_generate_job_run(job=job, report=report)
