"""Without a broker, jobs run on threads of the web process: the request answers at once."""

import threading
import time

import pytest

from core.models import Job
from core.services.jobs import job_create, job_handler, unless_locked

pytestmark = pytest.mark.django_db(transaction=True)

release = threading.Event()
ran_on: list[str] = []


@job_handler("test.local_waits")
def _waits(job, report):
    report(0.5, "Waiting to be released")
    ran_on.append(threading.current_thread().name)
    assert release.wait(10), "never released"
    return {"ok": True}


@job_handler("test.local_crashes")
def _crashes(job, report):
    raise SystemExit("the thread is told to stop")  # not an Exception: job_run lets it through


@pytest.fixture(autouse=True)
def _local_runner(settings):
    settings.CHARTROOM_JOB_RUNNER = "local"
    release.clear()
    ran_on.clear()
    yield
    release.set()


def wait_until_finished(job, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        unless_locked(job.refresh_from_db)  # the job thread may be writing the table right now
        if job.is_finished:
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job.pk} still {job.state}")


def test_a_job_runs_on_a_thread_of_its_own_while_the_caller_goes_on(researcher):
    job = job_create(kind="test.local_waits", user=researcher)  # autocommit: dispatched now
    deadline = time.monotonic() + 10
    while not ran_on and time.monotonic() < deadline:
        time.sleep(0.02)
    unless_locked(job.refresh_from_db)
    assert job.state == Job.State.RUNNING and job.message == "Waiting to be released"
    assert ran_on and ran_on[0] != threading.current_thread().name
    release.set()
    assert wait_until_finished(job).state == Job.State.DONE
    assert job.result == {"ok": True}


def test_a_job_whose_thread_crashes_still_ends_failed_with_the_reason(researcher):
    job = wait_until_finished(job_create(kind="test.local_crashes", user=researcher))
    assert job.state == Job.State.FAILED
    assert "SystemExit: the thread is told to stop" in job.error
    assert "run it again" in job.error


def test_a_job_sent_twice_runs_once(researcher):
    from core.local_jobs import local_job_submit

    release.set()
    job = job_create(kind="test.local_waits", user=researcher)
    local_job_submit(job_id=job.pk)
    wait_until_finished(job)
    time.sleep(0.2)
    assert len(ran_on) == 1
    assert Job.objects.get(pk=job.pk).attempts == 1


def test_the_web_process_starts_the_sweep_thread(settings, monkeypatch):
    import importlib

    from core import local_jobs

    swept = threading.Event()
    monkeypatch.setattr(local_jobs, "jobs_sweep_stale", lambda **kw: swept.set())
    monkeypatch.setattr(local_jobs, "_sweeper", None)
    import config.wsgi

    try:
        importlib.reload(config.wsgi)
        assert swept.wait(5)
        assert local_jobs._sweeper.is_alive() and local_jobs._sweeper.daemon
    finally:
        local_jobs.local_jobs_stop_sweeping()
    assert not local_jobs._sweeper.is_alive()


def test_the_web_process_knows_every_job_kind_before_it_sweeps(tmp_path):
    """In a fresh interpreter: a web process re-queues a repeatable kind it never created."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    probe = (
        "import django, json; django.setup()\n"
        "from core import local_jobs; from core.services import jobs\n"
        "local_jobs._sweep_forever = lambda: None\n"
        "local_jobs.local_jobs_start()\n"
        "print(json.dumps(sorted(jobs._REPEATABLE)))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", CHARTROOM_VAR_DIR=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=Path(__file__).resolve().parents[2], env=env,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    repeatable = json.loads(result.stdout.strip().splitlines()[-1])
    assert {"annotation.captions_import", "studies.results_compute", "core.ping"} <= set(repeatable)
    assert "studies.library_import" not in repeatable


@job_handler("test.local_reports")
def _reports(job, report):
    report(0.5, "Half way")
    return {"ok": True}


def test_a_job_whose_claim_and_finish_meet_a_locked_table_still_ends_done(researcher, monkeypatch):
    from django.db import OperationalError
    from django.db.models import QuerySet

    real_update, refused = QuerySet.update, []

    def update(self, **fields):
        # The claim and the final write are each refused once, as a shared-cache SQLite does.
        kind = fields.get("state")
        if (
            self.model is Job
            and kind in (Job.State.RUNNING, Job.State.DONE)
            and kind not in refused
        ):
            refused.append(kind)
            raise OperationalError("database table is locked: core_job")
        return real_update(self, **fields)

    monkeypatch.setattr(QuerySet, "update", update)
    job = wait_until_finished(job_create(kind="test.local_reports", user=researcher))
    assert job.state == Job.State.DONE and refused == [Job.State.RUNNING, Job.State.DONE]


def test_a_progress_report_refused_by_a_locked_table_does_not_fail_the_job(researcher, monkeypatch):
    from django.db import OperationalError
    from django.db.models import QuerySet

    real_update = QuerySet.update

    def update(self, **fields):
        if self.model is Job and fields.get("message") == "Half way":
            raise OperationalError("database table is locked: core_job")
        return real_update(self, **fields)

    monkeypatch.setattr(QuerySet, "update", update)
    job = wait_until_finished(job_create(kind="test.local_reports", user=researcher))
    assert job.state == Job.State.DONE and job.result == {"ok": True}
