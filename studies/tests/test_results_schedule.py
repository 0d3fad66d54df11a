"""Debounced recomputes after responses, and the hook in the participant flow."""

import pytest

from core.models import AuditEntry, Job
from studies.models import StudyResults
from studies.services.exports import export_request
from studies.services.results.schedule import (
    auto_recompute_enabled,
    results_after_completion,
    results_request_compute,
    results_schedule_recompute,
)
from studies.services.sessions import Identity, response_record, session_start
from studies.services.study.status import study_test_sessions_clear
from studies.tests.factories import answer_for, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def auto(settings):
    settings.CHARTROOM_RESULTS_AUTO_RECOMPUTE = True
    settings.CHARTROOM_RESULTS_DEBOUNCE_SECONDS = 120


def test_responses_schedule_at_most_one_pending_recompute_per_study(researcher, auto):
    study = make_study(researcher)
    first = results_schedule_recompute(study=study)
    assert first is not None and first.state == "queued"
    assert results_schedule_recompute(study=study) is None
    assert results_schedule_recompute(study=study.pk) is None
    assert Job.objects.filter(kind="studies.results_compute").count() == 1
    assert StudyResults.objects.get(study=study).pending_job == first
    other = make_study(researcher)
    assert results_schedule_recompute(study=other) is not None


def test_the_pending_job_runs_after_the_debounce_delay_and_clears(
    researcher, auto, monkeypatch, django_capture_on_commit_callbacks
):
    from core import tasks

    calls = []
    monkeypatch.setattr(
        tasks.run_job, "apply_async", lambda args, countdown: calls.append((args, countdown))
    )
    study = make_study(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        job = results_schedule_recompute(study=study)
    assert calls == [((job.pk,), 120)]
    # The worker runs it later; then a new response schedules a fresh one.
    from core.services.jobs import job_run

    assert job_run(job_id=job.pk).state == "done"
    results = StudyResults.objects.get(study=study)
    assert results.pending_job is None and results.job == job and results.computed_at
    assert results_schedule_recompute(study=study) is not None


def test_completing_a_session_schedules_a_recompute(
    researcher, auto, django_capture_on_commit_callbacks, monkeypatch
):
    from core import tasks

    monkeypatch.setattr(tasks.run_job, "apply_async", lambda args, countdown: None)
    study = make_study(researcher, pairs=2, checks=())
    session = session_start(study=study, identity=Identity("prolific", "P1")).session
    from studies.selectors.study import participant_trials

    trials = list(participant_trials().filter(session=session).order_by("position"))
    for trial in trials[:-1]:
        response_record(token=session.token, position=trial.position, answer=answer_for(trial))
    assert not Job.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        response_record(
            token=session.token, position=trials[-1].position, answer=answer_for(trials[-1])
        )
    assert Job.objects.filter(kind="studies.results_compute", state="queued").count() == 1


def test_pilot_sessions_and_eager_set_ups_schedule_nothing(
    researcher, settings, django_capture_on_commit_callbacks
):
    study = make_study(researcher, pairs=2, checks=())
    session = session_start(study=study, identity=Identity("prolific", "P2")).session
    settings.CHARTROOM_RESULTS_AUTO_RECOMPUTE = None
    # Tests run Celery eagerly: a recompute would run inside the participant's request.
    assert auto_recompute_enabled() is False
    with django_capture_on_commit_callbacks(execute=True):
        results_after_completion(session)
    settings.CHARTROOM_RESULTS_AUTO_RECOMPUTE = True
    session.is_pilot = True
    with django_capture_on_commit_callbacks(execute=True):
        results_after_completion(session)
    assert not Job.objects.exists()


def test_a_study_s_jobs_and_audit_entries_name_it_one_way(researcher, auto):
    study = make_study(researcher)
    scheduled = results_schedule_recompute(study=study.pk)
    pressed = results_request_compute(study=study, user=researcher)
    export_request(study=study, slug="responses-csv", user=researcher, include_platform_ids=True)
    assert study.subject == f"studies.study:{study.pk}"
    jobs = Job.objects.filter(subject=study.subject)
    assert {scheduled.pk, pressed.pk} <= set(jobs.values_list("pk", flat=True))
    assert jobs.filter(kind="studies.results_export").exists()
    study_test_sessions_clear(study=study, actor=researcher)
    logged = AuditEntry.objects.filter(subject=study.subject).values_list("action", flat=True)
    assert {"study.export_platform_ids", "study.clear_test_sessions"} <= set(logged)
