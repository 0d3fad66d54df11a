"""A worker killed mid-job: once a worker runs again, every job ends within the stale limit
plus one sweep (Celery beat sends the sweep), never left `running`."""

import os
import signal
import time

import pytest

from conftest import ROOT, celery_env, celery_start, celery_stop
from core.models import Job
from core.services.jobs import job_create
from core.tests import worker_jobs  # noqa: F401  registers the slow job kinds here too

STALE = 2
SWEEP = 1


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"gave up waiting for {what}")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_jobs_of_a_killed_worker_end_once_a_worker_and_the_sweep_run_again(
    researcher, settings, tmp_path
):
    from config.celery import app

    queue = f"chartroom-test-killed-{os.getpid()}"
    previous_queue = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    settings.CHARTROOM_JOB_STALE_SECONDS = STALE
    env = celery_env(
        queue,
        CHARTROOM_JOB_STALE_SECONDS=str(STALE),
        CHARTROOM_JOB_SWEEP_SECONDS=str(SWEEP),
    )
    # Two jobs at once in one worker process, so one SIGKILL stops both mid-run.
    worker_args = ["worker", "--pool=threads", "--concurrency=2", "-Q", queue,
                   "--include=core.tests.worker_jobs", "--without-gossip", "--without-mingle"]  # fmt: skip
    log_dir = ROOT / "var" / "test-killed-worker"
    processes = []
    try:
        processes.append(celery_start(worker_args, env, log_dir / "first.log"))
        params = {"steps": 15, "pause": 0.2}  # about 3 s of work
        once = job_create(kind="test.worker_slow_once", params=params, user=researcher)
        again = job_create(kind="test.worker_slow_repeatable", params=params, user=researcher)

        def both_running():
            rows = Job.objects.filter(pk__in=[once.pk, again.pk], progress__gt=0)
            return rows.filter(state=Job.State.RUNNING).count() == 2

        wait_for(both_running, 30, "both jobs to run")
        first = processes[0]
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        assert Job.objects.get(pk=once.pk).state == Job.State.RUNNING  # left for dead

        processes.append(
            celery_start(
                ["beat", f"--schedule={tmp_path / 'beat-schedule'}"], env, log_dir / "beat.log",
                ready="beat: Starting",
            )
        )  # fmt: skip
        second = celery_start(worker_args, env, log_dir / "second.log")
        processes.append(second)
        back = time.monotonic()

        # The worker died at once, so its jobs are stale STALE s after their last beat: by
        # now or within STALE more, plus one sweep; a second of slack for a busy machine.
        wait_for(lambda: Job.objects.get(pk=once.pk).is_finished, STALE + SWEEP + 1, "the sweep")
        swept = Job.objects.get(pk=once.pk)
        assert swept.state == Job.State.FAILED
        assert swept.message == "The worker stopped; run it again"
        assert "run it again" in swept.error
        assert time.monotonic() - back <= STALE + SWEEP + 1

        # The repeatable one was queued again at the same sweep and runs to the end.
        wait_for(lambda: Job.objects.get(pk=again.pk).is_finished, 30, "the re-run")
        rerun = Job.objects.get(pk=again.pk)
        assert rerun.state == Job.State.DONE, rerun.error
        assert rerun.attempts == 2 and rerun.result["pid"] == second.pid
    finally:
        for proc in processes:
            celery_stop(proc)
        app.conf.task_default_queue = previous_queue
