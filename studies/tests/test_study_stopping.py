"""The precision stopping rule: it stops admitting, says why, and the JSON flow says so too."""

import pytest
from rest_framework.test import APIClient

from analysis.planning import n_for_half_width
from studies.models import ParticipantSession, Study
from studies.services.results.simulate import study_simulate
from studies.services.sessions import Identity, StudyFull, session_start
from studies.services.study import study_update
from studies.services.study.stopping import study_stop_check
from studies.tests.factories import make_study
from studies.tests.test_participant_api import run_through, start

pytestmark = pytest.mark.django_db
API = "/api/v1/participate"


def _ruled(researcher, **extra):
    settings = {
        "stopping_rule": "precision",
        "stopping_half_width": 0.2,
        "stopping_min_included": 5,
        **extra,
    }
    return make_study(researcher, pairs=3, checks=(None,), **settings)


def test_a_study_stops_when_every_interval_is_narrow_enough(researcher):
    study = _ruled(researcher)
    summary = study_simulate(study=study, participants=80, seed=4, timeout_rate=0)
    study.refresh_from_db()
    assert study.stopped_at is not None and study.stopped_reason == "precision"
    assert "±0.20" in study.stopped_detail
    # It stopped well before 80 and no later than the worst case needs.
    assert summary.created < 80 and summary.refused
    assert summary.completed <= n_for_half_width(0.2) / (1 - 0.3)
    later = study_simulate(study=study, participants=90, seed=5)
    assert later.created == 0 and "all the participants it needs" in later.refused
    with pytest.raises(StudyFull) as caught:
        session_start(study=study, identity=Identity(platform="prolific", external_id="late"))
    assert caught.value.code == "study_full" and caught.value.status == 409


def test_the_maximum_stops_it_even_when_imprecise(researcher):
    study = _ruled(researcher, stopping_half_width=0.02, stopping_min_included=1,
                   stopping_max_included=4)  # fmt: skip
    study_simulate(study=study, participants=20, seed=1, timeout_rate=0, attention_fail_rate=0)
    study.refresh_from_db()
    assert study.stopped_reason == "max" and "maximum of 4" in study.stopped_detail


def test_the_rule_is_off_by_default_and_ignores_pilots(researcher):
    study = make_study(researcher, pairs=2, checks=(None,), stopping_half_width=0.45)
    study_simulate(study=study, participants=6, seed=1, timeout_rate=0)
    assert not Study.objects.get(pk=study.pk).stopped_at
    pilot = _ruled(researcher, status="pilot", stopping_min_included=1, stopping_half_width=0.45)
    study_simulate(study=pilot, participants=6, seed=1, timeout_rate=0)
    assert not Study.objects.get(pk=pilot.pk).stopped_at


def test_the_json_flow_stops_after_a_completion_and_answers_study_full(
    researcher, django_capture_on_commit_callbacks
):
    # One completed participant already gives intervals under ±0.45.
    study = _ruled(researcher, stopping_half_width=0.45, stopping_min_included=1)
    client = APIClient()
    token = start(client, study, pid="first").json()["token"]
    client.post(f"{API}/sessions/{token}/begin/")
    with django_capture_on_commit_callbacks(execute=True):
        run_through(client, token)
    assert ParticipantSession.objects.get(token=token).status == "completed"
    study.refresh_from_db()
    assert study.stopped_reason == "precision"
    full = start(client, study, pid="second")
    assert full.status_code == 409
    body = full.json()
    assert body["code"] == "study_full" and body["reason"] == "full"
    info = client.get(f"{API}/studies/{study.slug}/").json()
    assert info["accepting"] is False and info["unavailable_reason"] == "full"


@pytest.mark.parametrize("rule", ["off", "stopped"])
def test_a_completion_with_nothing_to_check_locks_nothing(
    researcher, django_capture_on_commit_callbacks, monkeypatch, rule
):
    # The check locks the study row; a classroom completing at once would queue on it.
    from studies.services.study import stopping

    checked = []
    monkeypatch.setattr(stopping, "study_stop_check", lambda **kw: checked.append(kw))
    if rule == "off":
        study = make_study(researcher, pairs=2, checks=(None,))
    else:
        study = _ruled(researcher, stopping_half_width=0.45, stopping_min_included=1)
    client = APIClient()
    token = start(client, study, pid="p1").json()["token"]
    client.post(f"{API}/sessions/{token}/begin/")
    if rule == "stopped":  # after this session started: it finishes and counts
        Study.objects.filter(pk=study.pk).update(stopped_at="2026-01-01T00:00Z")
    with django_capture_on_commit_callbacks(execute=True):
        run_through(client, token)
    assert ParticipantSession.objects.get(token=token).status == "completed"
    assert checked == []
    ruled = _ruled(researcher, stopping_half_width=0.01)
    token = start(client, ruled, pid="p2").json()["token"]
    client.post(f"{API}/sessions/{token}/begin/")
    with django_capture_on_commit_callbacks(execute=True):
        run_through(client, token)
    assert checked == [{"study_id": ruled.pk}]


def test_sessions_in_progress_finish_after_the_stop(researcher):
    study = _ruled(researcher, stopping_half_width=0.45, stopping_min_included=1)
    client = APIClient()
    early = start(client, study, pid="early").json()["token"]
    study_simulate(study=study, participants=1, seed=2, timeout_rate=0, attention_fail_rate=0)
    assert Study.objects.get(pk=study.pk).stopped_at
    client.post(f"{API}/sessions/{early}/begin/")
    run_through(client, early)
    assert ParticipantSession.objects.get(token=early).status == "completed"


def test_the_full_page_is_polite(client, researcher):
    study = _ruled(researcher, stopping_half_width=0.45, stopping_min_included=1)
    study_simulate(study=study, participants=2, seed=2, timeout_rate=0, attention_fail_rate=0)
    page = client.get(f"/s/{study.slug}/?PROLIFIC_PID=late&STUDY_ID=a&SESSION_ID=b")
    assert page.status_code == 200
    assert b"This study is full" in page.content


def test_the_researcher_is_told_on_the_page_and_by_the_api(client, researcher, researcher_api):
    study = _ruled(researcher, stopping_half_width=0.45, stopping_min_included=1)
    study_simulate(study=study, participants=2, seed=2, timeout_rate=0, attention_fail_rate=0)
    client.force_login(researcher)
    page = client.get(f"/studies/study/{study.slug}/").content.decode()
    assert "Recruitment stopped" in page and "Precision per chart" in page
    data = researcher_api.get(f"/api/v1/studies/{study.slug}/").json()
    assert data["stopped_reason"] == "precision" and data["stopped_at"]
    monitor = researcher_api.get(f"/api/v1/studies/{study.slug}/monitor/").json()
    precision = monitor["precision"]
    assert precision["met"] is True and len(precision["charts"]) == 6
    assert all(c["half_width"] <= 0.45 and c["still_needed"] == 0 for c in precision["charts"])


def test_the_monitor_projects_what_is_still_needed(researcher, researcher_api):
    study = _ruled(researcher, stopping_half_width=0.05, stopping_min_included=1)
    study_simulate(study=study, participants=3, seed=2, timeout_rate=0, attention_fail_rate=0)
    charts = researcher_api.get(f"/api/v1/studies/{study.slug}/monitor/").json()["precision"]
    assert charts["met"] is False and charts["still_needed"] > 0
    row = charts["charts"][0]
    assert row["still_needed"] == n_for_half_width(0.05, row["hmi"]) - row["n"]


def test_changing_the_rule_lets_the_study_take_participants_again(researcher):
    study = _ruled(researcher, stopping_half_width=0.45, stopping_min_included=1)
    study_simulate(study=study, participants=2, seed=2, timeout_rate=0, attention_fail_rate=0)
    study.refresh_from_db()
    assert study.stopped_at
    study_update(study=study, actor=researcher, stopping_half_width=0.05)
    study.refresh_from_db()
    assert study.stopped_at is None and study.stopped_detail == ""
    assert study_stop_check(study_id=study.pk) is False


def test_the_maximum_may_not_be_below_the_minimum(researcher, researcher_api):
    study = _ruled(researcher)
    response = researcher_api.patch(
        f"/api/v1/studies/{study.slug}/",
        {"stopping_min_included": 30, "stopping_max_included": 10},
        format="json",
    )
    assert response.status_code == 400
    assert "stopping_max_included" in response.json()["errors"]


def test_the_hmi_export_card_says_which_rule_stopped_the_study(researcher):
    import io
    import zipfile

    from studies.services.exports.hmi import hmi_zip_write

    study = _ruled(researcher, stopping_half_width=0.45, stopping_min_included=1)
    study_simulate(study=study, participants=2, seed=2, timeout_rate=0, attention_fail_rate=0)
    study.refresh_from_db()
    buffer = io.BytesIO()
    hmi_zip_write(study, buffer)
    readme = zipfile.ZipFile(buffer).read("README.md").decode()
    assert "## Stopping rule" in readme and "Stopped by the precision rule" in readme
    assert "±0.45" in readme
