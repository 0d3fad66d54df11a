import os
import time

import pytest
from django.core.exceptions import ValidationError

from core.models import Job
from core.services.jobs import UnknownJobKind, job_create, job_handler, job_run


@job_handler("test.fails")
def _fails(job, report):
    report(0.3, "Working")
    raise ValueError("the input had no rows")


@job_handler("test.echo", repeatable=True)
def _echo(job, report):
    report(0.5, "Halfway")
    return {"echo": job.params["value"]}


@pytest.mark.django_db
def test_a_job_is_dispatched_after_commit_and_records_its_result(
    researcher, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        job = job_create(
            kind="test.echo", params={"value": 42}, user=researcher, subject="studies.study:1"
        )
        assert Job.objects.get(pk=job.pk).state == Job.State.QUEUED  # nothing runs before commit
    assert len(callbacks) == 1
    job.refresh_from_db()
    assert job.state == Job.State.DONE
    assert job.result == {"echo": 42}
    assert job.progress == 1.0 and job.started_at and job.finished_at


@pytest.mark.django_db
def test_a_failing_job_records_the_error_instead_of_crashing(
    researcher, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        job = job_create(kind="test.fails", user=researcher)
    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert job.error == (
        "ValueError: the input had no rows. Run it again; if it fails again, the server's log "
        f"has the details under job {job.pk}."
    )
    # The traceback is logged, not handed to whoever reads the job over the API.
    assert job.result == {}


@job_handler("test.refused")
def _refused(job, report):
    raise ValidationError(["G1_Q1_x does not follow the naming G<group>_Q<question>_<1|2>."])


@pytest.mark.django_db
def test_a_job_refused_by_a_rule_says_the_rule_in_its_own_words(
    researcher, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        job = job_create(kind="test.refused", user=researcher)
    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert job.error == "G1_Q1_x does not follow the naming G<group>_Q<question>_<1|2>."


@pytest.mark.django_db
def test_a_job_is_not_run_twice_when_its_message_is_redelivered(researcher):
    job = Job.objects.create(kind="test.echo", params={"value": 1}, created_by=researcher)
    job_run(job_id=job.pk)
    finished = Job.objects.get(pk=job.pk).finished_at
    job_run(job_id=job.pk)
    assert Job.objects.get(pk=job.pk).finished_at == finished


@pytest.mark.django_db
def test_a_running_job_whose_worker_died_is_taken_over_only_once_its_heartbeat_is_stale(
    researcher, settings
):
    from datetime import timedelta

    from django.utils import timezone

    settings.CHARTROOM_JOB_STALE_SECONDS = 600
    now = timezone.now()
    job = Job.objects.create(kind="test.echo", params={"value": 7}, created_by=researcher,
                             state=Job.State.RUNNING, started_at=now - timedelta(minutes=5),
                             heartbeat_at=now - timedelta(minutes=5))  # fmt: skip
    # A redelivered message while the first worker may still be at it: left alone.
    assert job_run(job_id=job.pk).state == Job.State.RUNNING
    # Ten minutes without a heartbeat: the worker is gone, the job runs again.
    Job.objects.filter(pk=job.pk).update(heartbeat_at=now - timedelta(minutes=11))
    done = job_run(job_id=job.pk)
    assert done.state == Job.State.DONE and done.result == {"echo": 7}
    assert done.started_at > now - timedelta(minutes=1)


@pytest.mark.django_db
def test_progress_reports_keep_the_heartbeat_fresh(researcher):
    seen = []

    @job_handler("test.heartbeat")
    def _beats(job, report):
        report(0.5, "Halfway")
        seen.append(Job.objects.get(pk=job.pk).heartbeat_at)

    job = Job.objects.create(kind="test.heartbeat", created_by=researcher)
    job_run(job_id=job.pk)
    started = Job.objects.get(pk=job.pk).started_at
    assert seen[0] is not None and seen[0] >= started


@pytest.mark.django_db
def test_an_unknown_job_kind_is_refused_up_front():
    with pytest.raises(UnknownJobKind):
        job_create(kind="no.such.kind")


@pytest.mark.django_db
def test_users_see_only_their_own_jobs_over_the_api(researcher_api, researcher, other_researcher):
    mine = Job.objects.create(kind="core.ping", created_by=researcher)
    theirs = Job.objects.create(kind="core.ping", created_by=other_researcher)
    listing = researcher_api.get("/api/v1/jobs/").json()
    assert [j["id"] for j in listing["results"]] == [mine.pk]
    assert researcher_api.get(f"/api/v1/jobs/{theirs.pk}/").status_code == 404


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_job_runs_in_a_real_celery_worker_process(celery_worker_process, researcher):
    from config.celery import app

    assert app.conf.task_always_eager is False
    job = job_create(kind="core.ping", user=researcher)  # autocommit: dispatched at once
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.is_finished:
            break
        time.sleep(0.2)
    assert job.state == Job.State.DONE, job.error
    assert job.result["pid"] == celery_worker_process.pid
    assert job.result["pid"] != os.getpid()


@pytest.mark.django_db
def test_a_job_in_debug_mode_keeps_only_a_short_log_of_its_queries(researcher, settings):
    from django.db import connection

    @job_handler("test.many_queries")
    def _many(job, report):
        for _ in range(300):
            Job.objects.filter(pk=job.pk).exists()
        return {"logged": len(connection.queries_log)}

    settings.DEBUG = True
    job = Job.objects.create(kind="test.many_queries", created_by=researcher)
    assert job_run(job_id=job.pk).result == {"logged": 100}


@pytest.mark.django_db
def test_a_job_in_debug_mode_gives_the_connection_its_own_query_log_back(researcher, settings):
    from django.db import connection

    @job_handler("test.few_queries")
    def _few(job, report):
        return {}

    settings.DEBUG = True
    log = connection.queries_log
    job_run(job_id=Job.objects.create(kind="test.few_queries", created_by=researcher).pk)
    assert connection.queries_log is log


@pytest.mark.django_db
def test_queries_are_counted_right_after_an_eager_job_ran_while_counting(
    researcher, settings, django_assert_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    @job_handler("test.counted")
    def _counted(job, report):
        for _ in range(150):
            Job.objects.filter(pk=job.pk).exists()
        return {}

    settings.DEBUG = True
    with CaptureQueriesContext(connection) as counted:
        job_run(job_id=Job.objects.create(kind="test.counted", created_by=researcher).pk)
    assert len(counted) > 150
    with django_assert_num_queries(2):
        Job.objects.count()
        Job.objects.count()


@job_handler("test.fails_quietly")
def _fails_quietly(job, report):
    raise RuntimeError()


@job_handler("test.fails_with_a_sentence")
def _fails_with_a_sentence(job, report):
    raise ValueError("The file has no rows.")


@pytest.mark.django_db
def test_a_failure_reads_as_one_sentence_whatever_the_error_says(
    researcher, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        quiet = job_create(kind="test.fails_quietly", user=researcher)
        sentence = job_create(kind="test.fails_with_a_sentence", user=researcher)
    quiet.refresh_from_db()
    sentence.refresh_from_db()
    assert quiet.error.startswith("RuntimeError. Run it again;")
    assert sentence.error.startswith("ValueError: The file has no rows. Run it again;")


@pytest.mark.django_db
def test_a_traceback_stored_by_an_older_failure_is_not_given_out(researcher, researcher_api):
    job = Job.objects.create(
        kind="test.fails", created_by=researcher, state=Job.State.FAILED,
        result={"traceback": 'File "/srv/app/core/x.py", line 1', "rows": 3},
    )  # fmt: skip
    body = researcher_api.get(f"/api/v1/jobs/{job.pk}/").json()
    assert body["result"] == {"rows": 3}
