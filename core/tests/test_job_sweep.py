"""The sweep that ends jobs whose worker stopped (a plain service, no worker needed)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from core.models import Job
from core.services.jobs import MAX_ATTEMPTS, job_handler, job_run, jobs_sweep_stale

pytestmark = pytest.mark.django_db


@job_handler("test.sweep_repeatable", repeatable=True)
def _repeatable(job, report):
    return {"ran": True}


@job_handler("test.sweep_once")
def _once(job, report):
    return {"ran": True}


@pytest.fixture(autouse=True)
def _stale_limit(settings):
    settings.CHARTROOM_JOB_STALE_SECONDS = 60


def running(kind, *, beat_seconds_ago, attempts=1, user=None):
    beat = timezone.now() - timedelta(seconds=beat_seconds_ago)
    return Job.objects.create(
        kind=kind, state=Job.State.RUNNING, started_at=beat, heartbeat_at=beat,
        attempts=attempts, progress=0.4, created_by=user,
    )  # fmt: skip


def test_it_fails_a_job_that_is_not_safe_to_repeat_with_a_message_saying_to_run_it_again():
    job = running("test.sweep_once", beat_seconds_ago=61)
    outcome = jobs_sweep_stale()
    job.refresh_from_db()
    assert outcome.failed == [job.pk] and outcome.requeued == []
    assert job.state == Job.State.FAILED and job.finished_at is not None
    assert job.message == "The worker stopped; run it again"
    assert "worker stopped" in job.error and "run it again" in job.error


def test_it_leaves_a_job_with_a_fresh_heartbeat_alone():
    job = running("test.sweep_once", beat_seconds_ago=30)
    done = Job.objects.create(kind="test.sweep_once", state=Job.State.DONE)
    outcome = jobs_sweep_stale()
    assert outcome.failed == outcome.requeued == []
    assert Job.objects.get(pk=job.pk).state == Job.State.RUNNING
    assert Job.objects.get(pk=done.pk).state == Job.State.DONE


def test_it_requeues_a_repeatable_job_and_the_job_runs_again(django_capture_on_commit_callbacks):
    job = running("test.sweep_repeatable", beat_seconds_ago=120)
    with django_capture_on_commit_callbacks(execute=True):
        outcome = jobs_sweep_stale()
    assert outcome.requeued == [job.pk]
    job.refresh_from_db()
    assert job.state == Job.State.DONE and job.result == {"ran": True}
    assert job.attempts == 2


def test_a_requeued_job_shows_why_it_waits(django_capture_on_commit_callbacks):
    job = running("test.sweep_repeatable", beat_seconds_ago=120)
    with django_capture_on_commit_callbacks(execute=False):
        jobs_sweep_stale()
    job.refresh_from_db()
    assert job.state == Job.State.QUEUED and job.progress == 0
    assert job.message == f"The worker stopped; running it again (attempt 2 of {MAX_ATTEMPTS})"


def test_a_repeatable_job_that_keeps_losing_its_worker_fails_after_the_last_attempt():
    job = running("test.sweep_repeatable", beat_seconds_ago=120, attempts=MAX_ATTEMPTS)
    assert jobs_sweep_stale().failed == [job.pk]
    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert f"each of the {MAX_ATTEMPTS} runs" in job.error and "run it again" in job.error


def test_a_running_job_that_never_beat_is_judged_by_its_age():
    job = Job.objects.create(
        kind="test.sweep_once",
        state=Job.State.RUNNING,
        created_at=timezone.now() - timedelta(minutes=5),
    )
    assert jobs_sweep_stale().failed == [job.pk]


def test_a_redelivered_message_of_a_stale_job_that_is_not_repeatable_fails_it_instead_of_rerunning():
    job = running("test.sweep_once", beat_seconds_ago=120)
    assert job_run(job_id=job.pk).state == Job.State.FAILED
    assert Job.objects.get(pk=job.pk).result == {}


def test_two_sweeps_at_once_change_a_job_only_once(django_capture_on_commit_callbacks):
    job = running("test.sweep_repeatable", beat_seconds_ago=120)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first, second = jobs_sweep_stale(), jobs_sweep_stale()
    assert first.requeued == [job.pk] and second.requeued == []
    assert len(callbacks) == 1  # one dispatch


def test_the_local_runner_sweep_sends_old_queued_jobs_again(monkeypatch):
    sent = []
    monkeypatch.setattr("core.services.jobs.job_dispatch", lambda job_id: sent.append(job_id))
    old = Job.objects.create(
        kind="test.sweep_once", created_at=timezone.now() - timedelta(minutes=5)
    )
    Job.objects.create(kind="test.sweep_once")  # just queued: its runner has it
    assert jobs_sweep_stale().redispatched == []  # a broker keeps its own queue
    assert jobs_sweep_stale(orphaned_queued=True).redispatched == [old.pk]
    assert sent == [old.pk]


def test_the_sweep_is_a_periodic_celery_task(settings):
    from config.celery import app
    from core.tasks import sweep_stale_jobs

    entry = settings.CELERY_BEAT_SCHEDULE["sweep-stale-jobs"]
    assert entry["task"] == sweep_stale_jobs.name
    assert entry["schedule"] == settings.CHARTROOM_JOB_SWEEP_SECONDS
    assert app.conf.beat_schedule["sweep-stale-jobs"]["task"] == "core.sweep_stale_jobs"
    job = running("test.sweep_once", beat_seconds_ago=120)
    assert sweep_stale_jobs.delay().get() == {"requeued": [], "failed": [job.pk]}


@job_handler("test.quiet_step")
def _quiet(job, report):
    import time

    time.sleep(1.2)  # one long step that reports nothing
    return {"heartbeat": Job.objects.get(pk=job.pk).heartbeat_at.isoformat()}


@pytest.mark.django_db(transaction=True)
def test_a_job_in_a_long_quiet_step_keeps_beating_so_the_sweep_leaves_it_running(settings):
    settings.CHARTROOM_JOB_STALE_SECONDS = 2  # a beat every 0.4 s
    job = Job.objects.create(kind="test.quiet_step")
    done = job_run(job_id=job.pk)
    assert done.state == Job.State.DONE
    beat = timezone.datetime.fromisoformat(done.result["heartbeat"])
    assert beat - done.started_at >= timedelta(seconds=0.7)
