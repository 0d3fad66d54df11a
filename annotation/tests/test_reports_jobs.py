"""Report jobs: computed in the background, coalesced, recomputed as labels arrive."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import ProjectReport
from annotation.services import assignment_next, assignment_submit
from annotation.services.reports import (
    REPORT_JOB,
    report_compute,
    report_refresh,
    report_request,
    report_store,
)
from annotation.services.reports import jobs as report_jobs
from annotation.tests.factories import submit
from core.models import Job

pytestmark = pytest.mark.django_db


@pytest.fixture
def labelled(project, make_items, members):
    annotators = members(3)
    items = make_items(project, 2)
    for item in items:
        for annotator in annotators:
            submit(project, item, annotator, [["value_error"], []])
    return annotators


@pytest.fixture
def with_broker(monkeypatch):
    """Tasks go to a broker instead of running in-process; dispatches are recorded."""
    from core.tasks import run_job

    sent = []
    monkeypatch.setattr(report_jobs, "_tasks_in_process", lambda: False)
    monkeypatch.setattr(
        run_job, "apply_async", lambda args, countdown=None: sent.append((args, countdown))
    )
    monkeypatch.setattr(run_job, "delay", lambda *args: sent.append((args, None)))
    return sent


def test_a_job_computes_and_stores_the_report(
    project, researcher, labelled, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        job = report_request(project=project, user=researcher)
    job.refresh_from_db()
    assert job.state == Job.State.DONE and job.kind == REPORT_JOB
    assert job.subject == project.subject
    snapshot = ProjectReport.objects.get(project=project, labels="annotators")
    assert snapshot.job == job and job.result["report"] == snapshot.pk
    assert snapshot.data["summary"]["label_sets"] == 6
    assert snapshot.figure_svg.startswith("<svg")


def test_requests_while_a_job_is_queued_reuse_it(project, researcher, labelled):
    first = report_request(project=project, user=researcher)
    assert report_request(project=project) == first
    other = report_request(project=project, labels="reference")
    assert other != first
    assert Job.objects.filter(kind=REPORT_JOB).count() == 2


def test_a_queued_job_that_never_ran_is_not_reused_for_ever(project, labelled):
    lost = report_request(project=project)
    Job.objects.filter(pk=lost.pk).update(created_at=timezone.now() - timedelta(hours=1))
    assert report_request(project=project) != lost


def test_submits_schedule_one_delayed_job_when_a_broker_runs_tasks(
    project, members, make_items, with_broker, django_capture_on_commit_callbacks, settings
):
    settings.CHARTROOM_REPORT_DEBOUNCE_SECONDS = 15
    make_items(project, 3)
    annotators = members(2)
    for annotator in annotators:
        with django_capture_on_commit_callbacks(execute=True):
            assignment = assignment_next(project=project, annotator=annotator)
            assignment_submit(
                assignment_id=assignment.pk, annotator=annotator, labels=[["value_error"], []]
            )
    jobs = list(Job.objects.filter(kind=REPORT_JOB))
    assert len(jobs) == 1 and jobs[0].state == Job.State.QUEUED
    assert jobs[0].params["reason"] == "labels arrived"
    assert with_broker == [((jobs[0].pk,), 15)]


def test_submits_schedule_nothing_when_tasks_run_in_process(
    project, members, make_items, django_capture_on_commit_callbacks
):
    make_items(project, 1)
    (annotator,) = members(1)
    with django_capture_on_commit_callbacks(execute=True):
        assignment = assignment_next(project=project, annotator=annotator)
        assignment_submit(assignment_id=assignment.pk, annotator=annotator, labels=[[], []])
    # The annotator never waits for a report; the report page recomputes it when opened.
    assert not Job.objects.filter(kind=REPORT_JOB).exists()


def test_a_broker_that_fails_never_fails_the_submit(
    project, members, make_items, monkeypatch, django_capture_on_commit_callbacks
):
    from core.tasks import run_job

    def down(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(report_jobs, "_tasks_in_process", lambda: False)
    monkeypatch.setattr(run_job, "apply_async", down)
    make_items(project, 1)
    (annotator,) = members(1)
    with django_capture_on_commit_callbacks(execute=True):
        assignment = assignment_next(project=project, annotator=annotator)
        label_set = assignment_submit(
            assignment_id=assignment.pk, annotator=annotator, labels=[[], []]
        )
    assert label_set.pk is not None


def test_a_stale_report_is_recomputed_and_a_fresh_one_left_alone(
    project, members, make_items, labelled, django_capture_on_commit_callbacks
):
    # Views run in autocommit, where the job runs as it is dispatched; here the
    # test's transaction holds it until the capture block ends.
    with django_capture_on_commit_callbacks(execute=True):
        snapshot, job, stale = report_refresh(project=project)
    assert snapshot is None and stale and job.state == Job.State.QUEUED
    snapshot, done, stale = report_refresh(project=project)
    assert not stale and done == job and done.state == Job.State.DONE
    assert snapshot.data["summary"]["label_sets"] == 6

    again, same_job, stale = report_refresh(project=project)
    assert not stale and same_job == job and again.computed_at == snapshot.computed_at
    assert Job.objects.filter(kind=REPORT_JOB).count() == 1

    (late,) = members(1)
    submit(project, project.items.first(), late, [[], []])
    with django_capture_on_commit_callbacks(execute=True):
        _, new_job, stale = report_refresh(project=project)
    assert stale and new_job != job
    fresh, _, stale = report_refresh(project=project)
    assert not stale and fresh.data["summary"]["label_sets"] == 7


def test_a_failed_computation_is_not_retried_on_every_view(
    project, labelled, monkeypatch, django_capture_on_commit_callbacks
):
    def broken(**kwargs):
        raise RuntimeError("no luck")

    monkeypatch.setattr(report_jobs, "report_compute", broken)
    with django_capture_on_commit_callbacks(execute=True):
        report_refresh(project=project)
    snapshot, job, stale = report_refresh(project=project)
    assert snapshot is None and stale and job.state == Job.State.FAILED
    assert "no luck" in job.error
    with django_capture_on_commit_callbacks(execute=True):
        _, again, _ = report_refresh(project=project)
    assert again == job
    assert Job.objects.filter(kind=REPORT_JOB).count() == 1


def test_an_older_computation_never_replaces_a_newer_snapshot(project, labelled):
    older = report_compute(project=project)
    newer = report_compute(project=project)
    report_store(project=project, computed=newer, labels="annotators", include_excluded=False)
    older.data["marker"] = "older"
    kept = report_store(
        project=project, computed=older, labels="annotators", include_excluded=False
    )
    assert "marker" not in kept.data
    assert ProjectReport.objects.count() == 1
