"""Background jobs: create a Job row, dispatch it after commit, record its run, end it.

Each kind of job registers one handler, a plain function ``handler(job, report)``
that does the work through services; ``report(progress, message)`` updates the row
so pages and the API can show how far it got. While a handler runs, a heartbeat
thread keeps the row's ``heartbeat_at`` fresh; :func:`jobs_sweep_stale` ends the jobs
whose heartbeat stopped (their worker died), so no job shows "running" for ever.
A kind registered with ``repeatable=True`` is safe to run again from the start
(it only reads, or it writes all or nothing and skips what is already there): such a
job is re-queued, up to :data:`MAX_ATTEMPTS` runs; any other fails with a message
that tells people to run it again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DatabaseError, OperationalError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from core.errors import ServiceError
from core.models import Job, User

logger = logging.getLogger(__name__)

Reporter = Callable[[float, str], None]
Handler = Callable[[Job, Reporter], dict | None]

_HANDLERS: dict[str, Handler] = {}
_REPEATABLE: set[str] = set()
# Runs of a repeatable job, its first included, before a dead worker fails it for good:
# a job that kills every worker it meets (out of memory, say) must not loop.
MAX_ATTEMPTS = 3


class UnknownJobKind(LookupError):
    pass


def job_handler(kind: str, *, repeatable: bool = False):
    """Register ``func`` as the handler for jobs of ``kind``.

    ``repeatable``: running the job again from the start after its worker died is safe.
    """

    def register(func: Handler) -> Handler:
        _HANDLERS[kind] = func
        if repeatable:
            _REPEATABLE.add(kind)
        else:
            _REPEATABLE.discard(kind)
        return func

    return register


def registered_job_kinds() -> list[str]:
    return sorted(_HANDLERS)


def job_kind_is_repeatable(kind: str) -> bool:
    return kind in _REPEATABLE


def job_create(
    *, kind: str, params: dict | None = None, subject: str = "", user: User | None = None
) -> Job:
    """Record a queued job and send it to the workers once the surrounding transaction commits."""
    if kind not in _HANDLERS:
        raise UnknownJobKind(f"No handler is registered for jobs of kind {kind!r}.")
    job = Job.objects.create(kind=kind, params=params or {}, subject=subject, created_by=user)
    # Dispatching on commit means a worker never looks for a row that is not there yet.
    transaction.on_commit(lambda: job_dispatch(job_id=job.pk))
    return job


# The runners (core.local_jobs, the Celery task in core.tasks) build on this module, so
# they are handed to it when the app starts (CoreConfig.ready) rather than imported here.
_RUNNERS: dict[str, Callable[..., None]] = {}


def job_runner_register(name: str, submit: Callable[..., None]) -> None:
    """Say how runner ``name`` ("local" or "celery") takes a job: ``submit(job_id=...)``."""
    _RUNNERS[name] = submit


def jobs_run_in_background() -> bool:
    """Whether a dispatched job runs apart from the request that made it (a worker or a job
    thread); without a broker under the "celery" runner it runs inside the request."""
    if settings.CHARTROOM_JOB_RUNNER == "local":
        return True
    from config.celery import app

    return not app.conf.task_always_eager


def job_dispatch(*, job_id: int) -> None:
    """Hand a queued job to whatever runs jobs here (see CHARTROOM_JOB_RUNNER)."""
    runner = "local" if settings.CHARTROOM_JOB_RUNNER == "local" else "celery"
    _RUNNERS[runner](job_id=job_id)


def job_run(*, job_id: int) -> Job:
    """Run a job's handler in this process, recording state, progress, result or error.

    A queued job is claimed once, so a redelivered message never runs it twice. A
    running job whose heartbeat is stale lost its worker: it is recovered here as the
    sweep would (re-queued and run now if repeatable, failed otherwise).
    """
    if not _claim(job_id) and not (
        _job_recover(job_id, stale_before=_stale_before(), dispatch=False) == "requeued"
        and _claim(job_id)
    ):
        return Job.objects.get(pk=job_id)
    job = Job.objects.get(pk=job_id)
    handler = _HANDLERS.get(job.kind)

    def report(progress: float, message: str = "") -> None:
        try:
            unless_locked(
                lambda: Job.objects.filter(pk=job.pk).update(
                    progress=max(0.0, min(1.0, progress)),
                    message=message[:300],
                    heartbeat_at=timezone.now(),
                )
            )
        except OperationalError as exc:
            # Progress is advice: a report still refused is skipped; the next one writes.
            if "locked" not in str(exc):
                raise
            logger.warning("Job %s: progress not written (%s)", job.pk, exc)

    try:
        if handler is None:
            raise UnknownJobKind(f"No handler is registered for jobs of kind {job.kind!r}.")
        with _Heartbeat(job.pk), _short_query_log():
            result = handler(job, report) or {}
    except Exception as exc:  # the job row is how the failure reaches people
        logger.exception("Job %s (%s) failed", job.pk, job.kind)
        # The traceback goes to the log only: the job's row is read over the API by its
        # owner, who needs what to do, not the server's file paths.
        failure = {"error": _failure_text(exc, job.pk), "result": {}}
        unless_locked(
            lambda: Job.objects.filter(pk=job.pk).update(
                state=Job.State.FAILED, finished_at=timezone.now(), message="Failed", **failure
            )
        )
    else:
        unless_locked(
            lambda: Job.objects.filter(pk=job.pk).update(
                state=Job.State.DONE,
                finished_at=timezone.now(),
                progress=1.0,
                result=result,
                message="Done",
            )
        )
    unless_locked(job.refresh_from_db)
    return job


def _failure_text(exc: Exception, job_pk: int) -> str:
    """What a person reads of a failed job: a refusal in its own words (a pair named the
    wrong way for an export); anything else named as it is logged, with what to do."""
    if isinstance(exc, ValidationError):
        return " ".join(exc.messages)
    if isinstance(exc, ServiceError):
        return exc.message
    said = str(exc).strip().rstrip(".")
    return (
        f"{type(exc).__name__}{': ' + said if said else ''}. Run it again; if it fails again, "
        f"the server's log has the details under job {job_pk}."
    )


@contextmanager
def _short_query_log():
    """Keep only the last 100 queries' SQL while a job runs in debug mode.

    Debug mode keeps the SQL of a connection's last 9,000 queries, and nothing resets it
    outside a request: a large import's batches would hold hundreds of megabytes. The
    connection's own log comes back afterwards, and nothing changes while someone counts
    queries (assertNumQueries forces the debug cursor), whose count a shorter log would break.
    """
    if not settings.DEBUG or connection.force_debug_cursor:
        yield
        return
    previous = connection.queries_log
    connection.queries_log = deque(maxlen=100)
    try:
        yield
    finally:
        connection.queries_log = previous


LOCKED_TRIES = 6


def unless_locked(write):
    """Run a write of a job's own row, trying again while SQLite says its table is locked.

    SQLite refuses at once, without waiting out its timeout, a write to a table that another
    connection of the same process is reading through a shared cache (the test database; a
    job thread beside a request thread). Each write here is one statement on one row in
    autocommit, so trying it again a moment later is safe.
    """
    for attempt in range(1, LOCKED_TRIES + 1):
        try:
            return write()
        except OperationalError as exc:
            if "locked" not in str(exc) or attempt == LOCKED_TRIES:
                raise
            time.sleep(0.05 * attempt)


def _claim(job_id: int) -> bool:
    now = timezone.now()
    return bool(
        unless_locked(
            lambda: Job.objects.filter(pk=job_id, state=Job.State.QUEUED).update(
                state=Job.State.RUNNING,
                started_at=now,
                heartbeat_at=now,
                progress=0.0,
                attempts=F("attempts") + 1,
            )
        )
    )


def job_fail_unfinished(*, job_id: int, error: str) -> bool:
    """Fail a job that is still queued or running (its runner crashed); True if it was."""
    return bool(
        Job.objects.filter(pk=job_id, state__in=[Job.State.QUEUED, Job.State.RUNNING]).update(
            state=Job.State.FAILED,
            finished_at=timezone.now(),
            message="Failed",
            error=error[:2000],
        )
    )


class _Heartbeat:
    """Keeps a running job's heartbeat fresh from a thread while its handler works.

    Progress reports beat too, but a handler may spend minutes in one step (a model fit,
    a large query) without reporting; without this it would look dead to the sweep.
    """

    def __init__(self, job_id: int):
        self.job_id = job_id
        self.interval = max(settings.CHARTROOM_JOB_STALE_SECONDS / 5, 0.2)
        self.stopped = threading.Event()
        self.thread = threading.Thread(
            target=self._beat, name=f"job-{job_id}-heartbeat", daemon=True
        )

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc_info):
        self.stopped.set()
        self.thread.join(timeout=30)

    def _beat(self) -> None:
        used_database = False
        try:
            while not self.stopped.wait(self.interval):
                used_database = True
                try:
                    Job.objects.filter(pk=self.job_id, state=Job.State.RUNNING).update(
                        heartbeat_at=timezone.now()
                    )
                except DatabaseError as exc:  # busy or briefly unreachable: the next beat retries
                    logger.warning("Job %s: heartbeat not written (%s)", self.job_id, exc)
        finally:
            if used_database:
                connection.close()  # this thread's own connection


@dataclass
class SweepResult:
    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    redispatched: list[int] = field(default_factory=list)


def _stale_before(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(seconds=settings.CHARTROOM_JOB_STALE_SECONDS)


def _stale_running(stale_before: datetime) -> Q:
    beat_is_old = Q(heartbeat_at__lt=stale_before) | Q(
        heartbeat_at__isnull=True, created_at__lt=stale_before
    )
    return Q(state=Job.State.RUNNING) & beat_is_old


def jobs_sweep_stale(*, now: datetime | None = None, orphaned_queued: bool = False) -> SweepResult:
    """End every running job whose heartbeat is older than CHARTROOM_JOB_STALE_SECONDS.

    A repeatable job is re-queued (up to MAX_ATTEMPTS runs in all) and dispatched again;
    any other is failed with a message that says its worker stopped and to run it again.
    With ``orphaned_queued`` (the local runner, which has no broker to keep its queue),
    queued jobs older than the stale limit are dispatched again too: the process that was
    to run them may have stopped. Safe to run in several processes at once: each change
    is a conditional update that only one of them makes.
    """
    stale_before = _stale_before(now)
    result = SweepResult()
    stale = Job.objects.filter(_stale_running(stale_before)).order_by("pk")
    for job_id in stale.values_list("pk", flat=True)[:1000]:
        outcome = _job_recover(job_id, stale_before=stale_before, dispatch=True)
        if outcome == "requeued":
            result.requeued.append(job_id)
        elif outcome == "failed":
            result.failed.append(job_id)
    if orphaned_queued:
        queued = Job.objects.filter(state=Job.State.QUEUED, created_at__lt=stale_before)
        for job_id in queued.order_by("pk").values_list("pk", flat=True)[:1000]:
            job_dispatch(job_id=job_id)
            result.redispatched.append(job_id)
    if result.requeued or result.failed:
        logger.warning(
            "Jobs whose worker stopped: re-queued %s, failed %s", result.requeued, result.failed
        )
    return result


def _job_recover(job_id: int, *, stale_before: datetime, dispatch: bool) -> str | None:
    """Re-queue or fail one stale running job; None when it is not stale (any more)."""
    job = Job.objects.filter(_stale_running(stale_before), pk=job_id).first()
    if job is None:
        return None
    # The same conditions again in the update: another sweep, or the job itself, may
    # have changed the row since it was read, and then this one leaves it alone.
    still_stale = Job.objects.filter(_stale_running(stale_before), pk=job_id, attempts=job.attempts)
    if job.kind in _REPEATABLE and job.attempts < MAX_ATTEMPTS:
        changed = still_stale.update(
            state=Job.State.QUEUED,
            progress=0.0,
            started_at=None,
            heartbeat_at=None,
            message=(
                f"The worker stopped; running it again (attempt {job.attempts + 1} "
                f"of {MAX_ATTEMPTS})"
            ),
        )
        if changed and dispatch:
            transaction.on_commit(lambda: job_dispatch(job_id=job_id))
        return "requeued" if changed else None
    changed = still_stale.update(
        state=Job.State.FAILED,
        finished_at=timezone.now(),
        message="The worker stopped; run it again",
        error=_stopped_error(job),
    )
    return "failed" if changed else None


def _stopped_error(job: Job) -> str:
    limit = settings.CHARTROOM_JOB_STALE_SECONDS
    if job.kind in _REPEATABLE:
        return (
            f"The worker stopped during each of the {job.attempts} runs of this job, so it was "
            "not tried again: it may need more memory or time than a worker has. Check the "
            "worker's log, then run it again."
        )
    return (
        f"The worker stopped while running this job (no sign of life for over {limit} s), so "
        "it did not finish; run it again."
    )


def jobs_for_subject(*, subject: str, limit: int = 10):
    return Job.objects.filter(subject=subject).order_by("-created_at")[:limit]
