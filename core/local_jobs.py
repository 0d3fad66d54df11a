"""Running jobs in the web process itself, when there is no broker (the embedded default).

Without a broker Celery would run a job inside the request that created it: an 85 MB
caption import then outlasts the web server's timeout. Here jobs go to a small pool of
threads of the web process instead, so the request answers at once and the job's row
shows its progress as with a real worker. A thread that crashes still ends its job
(failed, with the reason), and a sweep thread started with the web process ends the jobs
of a process that stopped (see ``jobs_sweep_stale``), as Celery beat does with workers.

The pool's threads are not daemons: a process that exits normally (a management command)
finishes the jobs it started first.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import connections

from core.services.jobs import job_fail_unfinished, job_run, jobs_sweep_stale

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_pending: set[int] = set()
_sweeper: threading.Thread | None = None
_stop_sweeping = threading.Event()


def local_job_submit(*, job_id: int) -> None:
    """Run the job on one of this process's job threads (once, however often it is sent)."""
    global _executor
    with _lock:
        if job_id in _pending:
            return
        if _executor is None:
            _executor = ThreadPoolExecutor(
                max_workers=max(1, settings.CHARTROOM_LOCAL_JOB_THREADS),
                thread_name_prefix="chartroom-job",
            )
        _pending.add(job_id)
        _executor.submit(_run, job_id)


def _run(job_id: int) -> None:
    try:
        job_run(job_id=job_id)
    except BaseException as exc:  # the row must end whatever stopped the job
        logger.exception("The job thread stopped while running job %s", job_id)
        try:
            job_fail_unfinished(
                job_id=job_id,
                error=(
                    f"The job stopped unexpectedly ({type(exc).__name__}: {exc}); "
                    "run it again, and if it fails again see the web server's log."
                ),
            )
        except Exception:
            logger.exception("Job %s could not be marked failed", job_id)
    finally:
        with _lock:
            _pending.discard(job_id)
        connections.close_all()  # this thread's connections, not the request threads'


def local_jobs_start() -> None:
    """Start this process's sweep thread (once): the web process calls it at start-up."""
    global _sweeper
    with _lock:
        if _sweeper is not None and _sweeper.is_alive():
            return
        _stop_sweeping.clear()
        _sweeper = threading.Thread(target=_sweep_forever, name="chartroom-job-sweep", daemon=True)
        _sweeper.start()


def local_jobs_stop_sweeping(timeout: float = 10) -> None:
    """Stop the sweep thread (tests; a web process just exits with it)."""
    _stop_sweeping.set()
    if _sweeper is not None:
        _sweeper.join(timeout)


def _sweep_forever() -> None:
    while not _stop_sweeping.is_set():
        try:
            jobs_sweep_stale(orphaned_queued=True)
        except Exception:  # a database hiccup must not end the sweeping
            logger.exception("The job sweep failed; trying again later")
        finally:
            connections.close_all()
        _stop_sweeping.wait(settings.CHARTROOM_JOB_SWEEP_SECONDS)
