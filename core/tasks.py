"""Celery entry points: thin wrappers that call services."""

import os
import socket

from celery import shared_task

from core.services.jobs import job_handler, job_run, jobs_sweep_stale


@shared_task(name="core.run_job", acks_late=True)
def run_job(job_id: int) -> None:
    job_run(job_id=job_id)


@shared_task(name="core.sweep_stale_jobs", ignore_result=True)
def sweep_stale_jobs() -> dict:
    """Celery beat runs this every CHARTROOM_JOB_SWEEP_SECONDS."""
    result = jobs_sweep_stale()
    return {"requeued": result.requeued, "failed": result.failed}


@job_handler("core.ping", repeatable=True)
def ping(job, report):
    """A job that only says where it ran: how CI proves a real worker took it."""
    report(0.5, "Answering")
    return {"pid": os.getpid(), "hostname": socket.gethostname()}
