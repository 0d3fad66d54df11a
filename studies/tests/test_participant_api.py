"""The participant flow as JSON: start or resume, current trial, answer, finish, withdraw."""

import re

import pytest
from rest_framework.test import APIClient

from studies.models import ParticipantSession, Response, Study
from studies.tests.factories import answer_for, make_study

pytestmark = pytest.mark.django_db

API = "/api/v1/participate"
# The form of every chart's alt text (studies.models.library.chart_alt_text).
CHART_ALT = re.compile(r"^(Line|Bar|Scatter|Pie|Map) chart\b")


@pytest.fixture
def client():
    return APIClient()


@pytest.fixture
def study(researcher):
    return make_study(researcher, pairs=3, completion_url="https://example.org/ok?cc={code}")


def start(client, study, pid="PID001"):
    response = client.post(
        f"{API}/studies/{study.slug}/sessions/",
        {"consent": True, "params": {"PROLIFIC_PID": pid, "STUDY_ID": "S1", "SESSION_ID": "X"}},
        format="json",
    )
    return response


def current(client, token):
    return client.get(f"{API}/sessions/{token}/trial/")


def submit(client, token, position, answer, **extra):
    # A client reports how the answer was given; a ranking needs at least one action.
    extra.setdefault("interactions", 2)
    return client.post(
        f"{API}/sessions/{token}/responses/",
        {"position": position, "answer": answer, **extra},
        format="json",
    )


def trial_at(token, position):
    return (
        ParticipantSession.objects.get(token=token)
        .trials.select_related("question", "attention_check")
        .get(position=position)
    )


def run_through(client, token, *, fail_checks=False):
    while True:
        trial = current(client, token)
        if trial.status_code != 200:
            return trial
        position = trial.json()["position"]
        t = trial_at(token, position)
        answer = answer_for(t, correct=not (fail_checks and t.is_attention))
        assert submit(client, token, position, answer, client_ms=1500).status_code == 201


def test_the_json_flow_takes_a_participant_from_consent_to_the_completion_code(client, study):
    info = client.get(f"{API}/studies/{study.slug}/").json()
    assert info["accepting"] is True and info["id_param"] == "PROLIFIC_PID"
    assert info["consent_text"].startswith("You agree")

    started = start(client, study)
    assert started.status_code == 201
    state = started.json()
    token = state["token"]
    assert state["stage"] == "instructions" and state["trial_count"] == 8
    assert client.post(f"{API}/sessions/{token}/begin/").json()["stage"] == "trial"

    trial = current(client, token).json()
    assert trial["position"] == 0 and trial["number"] == 1 and trial["image_url"].startswith("http")
    assert trial["answer_type"] in ("multiple_choice", "free_text", "ranking")

    early = client.post(f"{API}/sessions/{token}/finish/")
    assert early.status_code == 409 and early.json()["code"] == "not_finished"

    run_through(client, token, fail_checks=True)
    state = client.get(f"{API}/sessions/{token}/").json()
    assert state["status"] == "completed" and state["completion"]["code"] == "C0DE42"
    finished = client.post(f"{API}/sessions/{token}/finish/").json()
    assert finished == {"code": "C0DE42", "redirect_url": "https://example.org/ok?cc=C0DE42"}

    session = ParticipantSession.objects.get(token=token)
    assert session.attention_failures == 2
    responses = Response.objects.filter(session=session)
    assert responses.count() == 8 and all(r.client_ms == 1500 for r in responses)
    assert all(r.server_ms is not None for r in responses)
    assert current(client, token).status_code == 409


def test_each_answer_type_is_read_and_checked(client, study):
    token = start(client, study).json()["token"]
    seen = set()
    alts = {}
    while (trial := current(client, token)).status_code == 200:
        data = trial.json()
        t = trial_at(token, data["position"])
        if data["answer_type"] == "ranking":
            assert sorted(i["text"] for i in data["items"]) == ["Alpha", "Beta", "Gamma"]
        assert "kind" not in data  # checks look like any other trial to the client
        if data["image_url"]:
            # Described as the charts are: the alt text does not tell a check either.
            assert CHART_ALT.match(data["alt"]), data["alt"]
            alts[t.kind] = data["alt"]
        else:
            assert data["alt"] == ""  # nothing shown, nothing to describe
        if data["answer_type"] == "multiple_choice" and t.kind == "chart":
            assert data["options"] == ["2018", "2019"]
            assert "1. 2018" not in data["prompt"]
        submit(client, token, data["position"], answer_for(t))
        seen.add(data["answer_type"])
    assert seen == {"multiple_choice", "free_text", "ranking"}
    assert set(alts) == {"chart", "attention"}
    values = {
        r.chart.question.answer_type: r.value
        for r in Response.objects.filter(chart__isnull=False).select_related("chart__question")
    }
    assert values == {"multiple_choice": 1, "free_text": 1.2, "ranking": ["Alpha", "Beta", "Gamma"]}
    assert all(r.correct for r in Response.objects.all())


def test_a_retry_with_the_same_key_returns_the_stored_answer(client, study):
    token = start(client, study).json()["token"]
    answer = answer_for(trial_at(token, 0))
    first = submit(client, token, 0, answer, idempotency_key="abc")
    again = submit(client, token, 0, answer, idempotency_key="abc")
    assert first.status_code == 201 and again.status_code == 200
    assert again.json()["duplicate"] is True and again.json()["session"]["position"] == 1
    assert Response.objects.count() == 1
    # The same answer without a key is also recognised as a repeat.
    assert submit(client, token, 0, answer).status_code == 200
    changed = submit(
        client, token, 0, answer_for(trial_at(token, 0), correct=False), idempotency_key="new"
    )
    assert changed.status_code == 409 and changed.json()["code"] == "already_answered"
    assert Response.objects.count() == 1


def test_answers_to_a_trial_that_is_not_current_are_refused(client, study):
    token = start(client, study).json()["token"]
    for position in (1, 5, 99):
        response = submit(client, token, position, "1")
        assert response.status_code == 409 and response.json()["code"] == "not_current"
        assert response.json()["current"] == 0
    assert not Response.objects.exists()


def test_an_unreadable_number_keeps_the_trial_open(client, study):
    token = start(client, study).json()["token"]
    while True:
        data = current(client, token).json()
        t = trial_at(token, data["position"])
        if data["answer_type"] == "free_text":
            break
        submit(client, token, data["position"], answer_for(t))
    response = submit(client, token, data["position"], "lots and lots")
    assert response.status_code == 400
    body = response.json()
    assert (
        body["code"] == "answer_invalid"
        and body["detail"] == "Please enter a number, like 42 or 3.5."
    )
    assert current(client, token).json()["position"] == data["position"]
    assert (
        submit(client, token, data["position"], "40-50")
        .json()["detail"]
        .startswith("Please enter just one number")
    )
    for typed, start_of_message in [
        ("0x10", "Please type the number with the digits 0 to 9"),
        ("1e-400", "That number is too large or too small"),
        ("½", "Please type a fraction as a decimal number"),
    ]:
        refused = submit(client, token, data["position"], typed)
        assert refused.status_code == 400
        assert refused.json()["detail"].startswith(start_of_message)
    assert submit(client, token, data["position"], "1,2").status_code == 201


def test_malformed_bodies_get_clear_errors(client, study):
    token = start(client, study).json()["token"]
    bad = [
        ({"answer": "1"}, "position"),
        ({"position": -1, "answer": "1"}, "position"),
        ({"position": 0, "answer": {"x": 1}}, "answer"),
        ({"position": 0, "answer": "1", "client_ms": "soon"}, "client_ms"),
        ({"position": 0, "answer": "1", "idempotency_key": "white space"}, "idempotency_key"),
    ]
    for body, field in bad:
        response = client.post(f"{API}/sessions/{token}/responses/", body, format="json")
        assert response.status_code == 400 and field in response.json()["errors"], body
    raw = client.generic(
        "POST", f"{API}/sessions/{token}/responses/", "{oops", content_type="application/json"
    )
    assert raw.status_code == 400
    big = client.generic(
        "POST",
        f"{API}/sessions/{token}/responses/",
        '{"position": 0, "answer": "' + "9" * 20_000 + '"}',
        content_type="application/json",
    )
    assert big.status_code == 413 and "too large" in big.json()["detail"]
    assert not Response.objects.exists()


def test_start_requires_consent_and_a_platform_id(client, study):
    no_consent = client.post(
        f"{API}/studies/{study.slug}/sessions/", {"consent": False}, format="json"
    )
    assert no_consent.status_code == 400 and "consent" in no_consent.json()["errors"]
    no_id = client.post(f"{API}/studies/{study.slug}/sessions/", {"consent": True}, format="json")
    assert no_id.status_code == 400 and no_id.json()["code"] == "link_problem"
    declined = client.post(f"{API}/studies/{study.slug}/decline/")
    assert declined.json()["status"] == "declined"
    assert ParticipantSession.objects.get().status == "declined"


def test_a_closed_or_full_study_starts_no_session(client, researcher):
    study = make_study(researcher, target_participants=1)
    assert start(client, study, pid="one").status_code == 201
    full = start(client, study, pid="two")
    assert full.status_code == 409 and full.json()["reason"] == "full"
    Study.objects.filter(pk=study.pk).update(status="closed")
    closed = start(client, study, pid="three")
    assert closed.status_code == 409 and closed.json()["reason"] == "closed"
    assert ParticipantSession.objects.count() == 1


def test_withdrawal_deletes_answers_and_ends_the_session(client, study):
    token = start(client, study).json()["token"]
    submit(client, token, 0, answer_for(trial_at(token, 0)))
    state = client.post(f"{API}/sessions/{token}/withdraw/").json()
    assert state["status"] == "withdrawn" and state["stage"] == "ended"
    assert not Response.objects.exists()
    late = submit(client, token, 1, answer_for(trial_at(token, 1)))
    assert late.status_code == 410 and late.json()["code"] == "session_ended"


def test_no_participant_can_read_or_write_another_session(client, study):
    mine = start(client, study, pid="MINE").json()["token"]
    theirs = start(APIClient(), study, pid="THEIRS").json()["token"]
    tampered = theirs[:-2] + ("xx" if not theirs.endswith("xx") else "yy")
    for token in (tampered, "not-a-token", "x" * 200):
        assert client.get(f"{API}/sessions/{token}/").status_code == 404
        assert client.get(f"{API}/sessions/{token}/trial/").status_code == 404
        assert submit(client, token, 0, "1").status_code == 404
        assert client.post(f"{API}/sessions/{token}/withdraw/").status_code == 404
    # Answering with one's own token always lands in one's own session.
    submit(client, mine, 0, answer_for(trial_at(mine, 0)))
    assert Response.objects.get().session.token == mine
    assert ParticipantSession.objects.get(token=theirs).current_position == 0
    # A researcher's account gives no access to the participant endpoints of others either.
    body = client.get(f"{API}/sessions/{mine}/").json()
    assert "external_id" not in body and "order" not in body


def test_the_participant_endpoints_are_in_the_openapi_schema(client):
    schema = client.get("/api/schema/?format=json").json()
    paths = schema["paths"]
    for path in (
        "/api/v1/participate/studies/{slug}/sessions/",
        "/api/v1/participate/sessions/{token}/trial/",
        "/api/v1/participate/sessions/{token}/responses/",
        "/api/v1/participate/sessions/{token}/finish/",
        "/api/v1/participate/sessions/{token}/withdraw/",
    ):
        assert path in paths, path
    submit_op = paths["/api/v1/participate/sessions/{token}/responses/"]["post"]
    assert {"200", "201", "400", "409", "410", "413"} <= set(submit_op["responses"])
    # A custom front end learns from the docs that begin is optional and what it does.
    begin = paths["/api/v1/participate/sessions/{token}/begin/"]["post"]["description"]
    assert "Optional" in begin and "clock" in begin


def test_an_answer_after_the_time_limit_ends_the_session_and_is_not_stored(client, study):
    from datetime import timedelta

    from django.utils import timezone

    token = start(client, study).json()["token"]
    ParticipantSession.objects.filter(token=token).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )
    late = submit(client, token, 0, answer_for(trial_at(token, 0)))
    assert late.status_code == 410 and late.json()["status"] == "timed_out"
    assert ParticipantSession.objects.get(token=token).status == "timed_out"
    assert not Response.objects.exists()


def test_each_answer_returns_the_next_trial_so_one_request_per_trial_suffices(client, study):
    token = start(client, study).json()["token"]
    trial = current(client, token).json()
    answered = 0
    while trial is not None:
        body = submit(
            client, token, trial["position"], answer_for(trial_at(token, trial["position"]))
        ).json()
        answered += 1
        trial = body["next_trial"]
        if trial is not None:
            assert trial["position"] == answered and trial["shown_at"] is not None
            # The next trial's clock started when it was sent.
            assert (
                ParticipantSession.objects.get(token=token).trials.get(position=answered).shown_at
            )
    assert answered == 8 and body["session"]["status"] == "completed"


def test_a_receipt_states_the_session_as_its_own_endpoint_does_without_a_serializer(
    client, study, monkeypatch
):
    from studies.api.participant_serializers import SessionStateSerializer

    token = start(client, study).json()["token"]
    trial = current(client, token).json()
    # The session state goes out with every answer: a plain dict, not a DRF serializer
    # instance (whose fields are deep-copied per instance). The schema keeps the class.
    built = []
    monkeypatch.setattr(SessionStateSerializer, "__init__", lambda *a, **k: built.append(a))
    receipt = submit(client, token, 0, answer_for(trial_at(token, trial["position"]))).json()
    state = client.get(f"{API}/sessions/{token}/").json()
    assert built == []
    assert receipt["session"] == state
    assert state["position"] == 1 and state["stage"] == "trial"


def test_every_chart_url_is_the_chart_files_own_on_the_host_asked(study, settings):
    from studies.selectors.study import trial_image

    settings.ALLOWED_HOSTS = ["participants.example.org"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    client = APIClient(HTTP_HOST="participants.example.org", HTTP_X_FORWARDED_PROTO="https")
    token = start(client, study).json()["token"]

    def url(position):
        trials = ParticipantSession.objects.get(token=token).trials
        image = trial_image(trials.filter(position=position).first())
        return f"https://participants.example.org{image.url}" if image else None

    data = current(client, token).json()
    seen = []
    while data is not None:
        position = data["position"]
        assert data["image_url"] == url(position)
        assert data["preload_image_url"] == url(position + 1)
        seen.append(data["image_url"])
        receipt = submit(client, token, position, answer_for(trial_at(token, position)))
        data = receipt.json()["next_trial"]
    assert len(seen) == 8 and sum(u is not None for u in seen) >= 6
