"""Background jobs: create a Job row, dispatch it after commit, record its run.

Each kind of job registers one handler, a plain function ``handler(job, report)``
that does the work through services; ``report(progress, message)`` updates the row
so pages and the API can show how far it got.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.models import Job, User

logger = logging.getLogger(__name__)

Reporter = Callable[[float, str], None]
Handler = Callable[[Job, Reporter], dict | None]

_HANDLERS: dict[str, Handler] = {}


class UnknownJobKind(LookupError):
    pass


def job_handler(kind: str):
    """Register ``func`` as the handler for jobs of ``kind``."""

    def register(func: Handler) -> Handler:
        _HANDLERS[kind] = func
        return func

    return register


def registered_job_kinds() -> list[str]:
    return sorted(_HANDLERS)


def job_create(
    *, kind: str, params: dict | None = None, subject: str = "", user: User | None = None
) -> Job:
    """Record a queued job and send it to the workers once the surrounding transaction commits."""
    if kind not in _HANDLERS:
        raise UnknownJobKind(f"No handler is registered for jobs of kind {kind!r}.")
    job = Job.objects.create(kind=kind, params=params or {}, subject=subject, created_by=user)
    from core.tasks import run_job  # the task module imports this one

    # Dispatching on commit means a worker never looks for a row that is not there yet.
    transaction.on_commit(lambda: run_job.delay(job.pk))
    return job


def job_run(*, job_id: int) -> Job:
    """Run a job's handler in this process, recording state, progress, result or error.

    A queued job is claimed once. A running job is claimed again only when its
    heartbeat is older than CHARTROOM_JOB_STALE_SECONDS: its worker died (the
    broker redelivers the message, see CELERY_TASK_REJECT_ON_WORKER_LOST) and the
    job would otherwise show "running" for ever.
    """
    now = timezone.now()
    stale = now - timedelta(seconds=settings.CHARTROOM_JOB_STALE_SECONDS)
    claimable = Q(state=Job.State.QUEUED) | Q(state=Job.State.RUNNING, heartbeat_at__lt=stale)
    claimed = Job.objects.filter(claimable, pk=job_id).update(
        state=Job.State.RUNNING, started_at=now, heartbeat_at=now, progress=0.0
    )
    job = Job.objects.get(pk=job_id)
    if not claimed:
        # Already run or running (a redelivered message after acks_late): do nothing twice.
        return job
    handler = _HANDLERS.get(job.kind)

    def report(progress: float, message: str = "") -> None:
        Job.objects.filter(pk=job.pk).update(
            progress=max(0.0, min(1.0, progress)),
            message=message[:300],
            heartbeat_at=timezone.now(),
        )

    try:
        if handler is None:
            raise UnknownJobKind(f"No handler is registered for jobs of kind {job.kind!r}.")
        result = handler(job, report) or {}
    except Exception as exc:  # the job row is how the failure reaches people
        logger.exception("Job %s (%s) failed", job.pk, job.kind)
        Job.objects.filter(pk=job.pk).update(
            state=Job.State.FAILED,
            finished_at=timezone.now(),
            error=f"{type(exc).__name__}: {exc}",
            message="Failed",
            result={"traceback": traceback.format_exc(limit=8)},
        )
    else:
        Job.objects.filter(pk=job.pk).update(
            state=Job.State.DONE,
            finished_at=timezone.now(),
            progress=1.0,
            result=result,
            message="Done",
        )
    job.refresh_from_db()
    return job


def jobs_for_subject(*, subject: str, limit: int = 10):
    return Job.objects.filter(subject=subject).order_by("-created_at")[:limit]
