"""No answer the participant did not give: unranked rankings, how each answer was given."""

import csv
import io
import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from studies import exclusion_rules
from studies.models import AnswerType, ParticipantSession, Response, Study
from studies.selectors.monitor import study_monitor
from studies.selectors.study import trial_current
from studies.services.exports import export_write
from studies.services.results.exclusion import study_exclusion
from studies.tests.factories import answer_for
from studies.tests.test_participant_pages import form_for, session_url, start

pytestmark = pytest.mark.django_db

API = "/api/v1/participate"


def _to_type(client, session, answer_type):
    """Answer (correctly, without JavaScript) until the current trial has this answer type."""
    client.post(reverse("participate:begin", args=[session.token]))
    while True:
        trial = trial_current(session)
        if not trial.is_attention and trial.question.answer_type == answer_type:
            return trial
        client.post(reverse("participate:answer", args=[session.token]), form_for(trial))
        session.refresh_from_db()


# ------------------------------------------------------------------ HTML flow


def test_a_ranking_opens_unranked_and_other_answers_open_empty(client, study):
    session = start(client, study)
    seen = set()
    client.post(reverse("participate:begin", args=[session.token]))
    while session.current_position < session.trial_count:
        trial = trial_current(session)
        # The answer inputs drawn for the script (in <template>, inert) come after the trial's.
        page = client.get(session_url(session)).content.decode().split("<template", 1)[0]
        answer_type = trial.attention_check.answer_type if trial.is_attention else None
        answer_type = answer_type or trial.question.answer_type
        seen.add(answer_type)
        assert " checked" not in page
        if answer_type == AnswerType.RANKING:
            selects = re.findall(r"<select name=\"rank_\d\".*?</select>", page, re.S)
            assert len(selects) == 3
            for select in selects:
                # The empty choice is the one selected; no rank is chosen for the participant.
                assert re.search(r'<option value="" selected>', select)
                assert len(re.findall(r"selected", select)) == 1
        if answer_type == AnswerType.FREE_TEXT:
            assert 'value=""' in re.search(r'<input type="text" name="number"[^>]*>', page, re.S)[0]
        client.post(reverse("participate:answer", args=[session.token]), form_for(trial))
        session.refresh_from_db()
    assert seen >= {AnswerType.RANKING, AnswerType.MULTIPLE_CHOICE, AnswerType.FREE_TEXT}


def test_next_is_refused_until_every_item_is_placed(client, study):
    session = start(client, study)
    trial = _to_type(client, session, AnswerType.RANKING)
    url = reverse("participate:answer", args=[session.token])
    options = trial.question.options
    partly = {"position": trial.position, f"rank_{options.index('Alpha')}": "1"}
    for data in ({"position": trial.position}, partly):
        response = client.post(url, data)
        assert response.status_code == 302
        page = client.get(session_url(session)).content.decode()
        assert "Please place every item" in page
        assert not Response.objects.filter(trial=trial).exists()
    assert "2 still to place" in page
    # What was placed comes back placed.
    assert re.search(
        rf'name="rank_{options.index("Alpha")}".*?<option value="1" selected>', page, re.S
    )
    # Without JavaScript the full form goes through, with nothing reported on interactions.
    assert client.post(url, form_for(trial)).status_code == 302
    response = Response.objects.get(trial=trial)
    assert response.value == ["Alpha", "Beta", "Gamma"]
    assert (response.interactions, response.first_interaction_ms) == (None, None)


def test_the_form_records_how_the_answer_was_given(client, study):
    session = start(client, study)
    trial = _to_type(client, session, AnswerType.MULTIPLE_CHOICE)
    client.get(session_url(session))
    data = {
        **form_for(trial),
        "interactions": "3",
        "first_interaction_ms": "812",
        "client_ms": "2400",
    }
    client.post(reverse("participate:answer", args=[session.token]), data)
    response = Response.objects.get(trial=trial)
    assert (response.interactions, response.first_interaction_ms, response.client_ms) == (
        3,
        812,
        2400,
    )
    assert response.server_ms is not None


def test_an_answer_reported_as_given_without_interaction_is_refused(client, study):
    session = start(client, study)
    trial = _to_type(client, session, AnswerType.RANKING)
    data = {**form_for(trial), "interactions": "0"}
    client.post(reverse("participate:answer", args=[session.token]), data)
    assert "place every item, then continue" in client.get(session_url(session)).content.decode()
    assert not Response.objects.filter(trial=trial).exists()


# ------------------------------------------------------------------ JSON flow


def _api_session(study, pid="given-1"):
    client = APIClient()
    body = client.post(
        f"{API}/studies/{study.slug}/sessions/",
        {"consent": True, "params": {"PROLIFIC_PID": pid}},
        format="json",
    ).json()
    client.post(f"{API}/sessions/{body['token']}/begin/")
    return client, body["token"]


def _api_to_type(client, token, answer_type):
    while True:
        trial_json = client.get(f"{API}/sessions/{token}/trial/").json()
        trial = ParticipantSession.objects.get(token=token).trials.get(
            position=trial_json["position"]
        )
        if trial_json["answer_type"] == answer_type:
            return trial
        client.post(
            f"{API}/sessions/{token}/responses/",
            {"position": trial.position, "answer": answer_for(trial), "interactions": 1},
            format="json",
        )


def test_the_json_flow_refuses_a_ranking_reported_without_interaction(study):
    client, token = _api_session(study)
    trial = _api_to_type(client, token, AnswerType.RANKING)
    url = f"{API}/sessions/{token}/responses/"
    body = {"position": trial.position, "answer": ["Alpha", "Beta", "Gamma"]}
    for extra in ({}, {"interactions": None}, {"interactions": 0}):
        refused = client.post(url, {**body, **extra}, format="json")
        assert refused.status_code == 400
        data = refused.json()
        assert data["code"] == "answer_invalid" and "interactions" in data["errors"]
        assert "place every item" in data["detail"]
    assert not Response.objects.filter(trial=trial).exists()
    given = {"interactions": 4, "first_interaction_ms": 950, "client_ms": 5100}
    stored = client.post(url, {**body, **given}, format="json")
    assert stored.status_code == 201
    response = Response.objects.get(trial=trial)
    assert (response.interactions, response.first_interaction_ms, response.client_ms) == (
        4,
        950,
        5100,
    )


def test_the_json_flow_takes_other_answers_without_a_report_but_not_with_zero(study):
    client, token = _api_session(study)
    trial = _api_to_type(client, token, AnswerType.MULTIPLE_CHOICE)
    url = f"{API}/sessions/{token}/responses/"
    body = {"position": trial.position, "answer": answer_for(trial)}
    assert client.post(url, {**body, "interactions": 0}, format="json").status_code == 400
    negative = client.post(url, {**body, "interactions": -1}, format="json")
    assert negative.status_code == 400 and "interactions" in negative.json()["errors"]
    assert client.post(url, body, format="json").status_code == 201
    assert Response.objects.get(trial=trial).interactions is None


def test_the_trial_lists_ranking_items_without_a_rank(study):
    client, token = _api_session(study)
    trial = _api_to_type(client, token, AnswerType.RANKING)
    data = client.get(f"{API}/sessions/{token}/trial/").json()
    assert data["position"] == trial.position
    assert sorted(item["text"] for item in data["items"]) == ["Alpha", "Beta", "Gamma"]
    assert all(set(item) == {"index", "text"} for item in data["items"])


# ------------------------------------------------------------------ exports, monitor, exclusion


def _answered(study, *, server_ms, pid="given-1"):
    client, token = _api_session(study, pid)
    session = ParticipantSession.objects.get(token=token)
    for position in range(session.trial_count):
        trial = session.trials.get(position=position)
        client.get(f"{API}/sessions/{token}/trial/")
        client.post(
            f"{API}/sessions/{token}/responses/",
            {
                "position": position,
                "answer": answer_for(trial),
                "interactions": 2,
                "first_interaction_ms": 700,
            },
            format="json",
        )
    Response.objects.filter(session=session).update(server_ms=server_ms)
    return session


def test_interaction_columns_are_exported(study):
    _answered(study, server_ms=3000)
    buffer = io.BytesIO()
    export_write(study=study, slug="responses-csv", out=buffer)
    rows = list(csv.DictReader(io.StringIO(buffer.getvalue().decode())))
    assert rows and all(r["interactions"] == "2" for r in rows)
    assert all(r["first_interaction_ms"] == "700" for r in rows)
    buffer = io.BytesIO()
    export_write(study=study, slug="responses-wide-csv", out=buffer)
    header = buffer.getvalue().decode().splitlines()[0].split(",")
    assert any(c.endswith("_interactions") for c in header)
    assert any(c.endswith("_first_interaction_ms") for c in header)


def test_a_trial_answered_too_fast_excludes_in_the_monitor_and_the_analysis(study):
    Study.objects.filter(pk=study.pk).update(min_trial_ms=500)
    study.refresh_from_db()
    slow = _answered(study, server_ms=3000, pid="slow")
    fast = _answered(study, server_ms=3000, pid="fast")
    Response.objects.filter(session=fast, position=2).update(server_ms=180)

    decisions = {d.facts.id: d for d in study_exclusion(study).decisions}
    assert decisions[slow.pk].included
    assert decisions[fast.pk].main_reason == "trial_too_fast"
    assert "answered a trial in 180 ms (minimum 500 ms)" in decisions[fast.pk].reason_text

    rows = {row.session.pk: row for row in study_monitor(study).rows}
    assert rows[slow.pk].reasons == [] and rows[slow.pk].fastest_trial_ms == 3000
    assert rows[fast.pk].reasons == ["answered a trial in 180 ms (minimum 500 ms)"]


class _Rules:
    exclude_incomplete = True
    max_attention_failures = 0
    min_seconds_per_trial = 0
    min_trial_ms = 400


def test_the_rule_is_one_pure_function_and_off_at_zero():
    fast = exclusion_rules.RuleFacts(
        status="completed", answered=4, trial_count=4, fastest_trial_ms=399
    )
    assert exclusion_rules.rule_reasons(_Rules, fast) == [
        ("trial_too_fast", "answered a trial in 399 ms (minimum 400 ms)")
    ]
    at_limit = exclusion_rules.RuleFacts(status="completed", fastest_trial_ms=400)
    assert exclusion_rules.rule_reasons(_Rules, at_limit) == []
    off = type("Off", (_Rules,), {"min_trial_ms": 0})
    assert exclusion_rules.rule_reasons(off, fast) == []
