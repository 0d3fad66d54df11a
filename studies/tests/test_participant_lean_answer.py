"""The answer's lean path (core/api/lean_post.py) answers exactly as DRF's path would."""

import json

import pytest
from rest_framework.test import APIClient
from rest_framework.views import APIView

from studies.tests.factories import answer_for, make_study
from studies.tests.test_participant_api import API, start, trial_at

pytestmark = pytest.mark.django_db

# An Accept header that needs DRF's content negotiation: the answer then goes DRF's way.
NEGOTIATED = {"HTTP_ACCEPT": "application/json;q=0.9, */*;q=0.1"}
HEADERS = ("Content-Type", "Allow", "Vary", "Content-Language", "Cache-Control")


@pytest.fixture
def study(researcher):
    return make_study(researcher, pairs=2)


def post(client, token, body, *, lean: bool):
    raw = body if isinstance(body, str) else json.dumps(body)
    return client.post(
        f"{API}/sessions/{token}/responses/",
        raw,
        content_type="application/json",
        **({} if lean else NEGOTIATED),
    )


def same(lean, drf):
    assert lean.status_code == drf.status_code
    assert lean.json() == drf.json()
    assert {h: lean.get(h) for h in HEADERS} == {h: drf.get(h) for h in HEADERS}


@pytest.mark.parametrize(
    "body",
    [
        "{",
        "[]",
        '{"answer": "\\ud800", "position": 0}',
        {"answer": "3"},
        {"position": "first", "answer": "3"},
        {"position": 0, "answer": "3", "interactions": 2, "colour": "red"},
        {"position": 0, "answer": "", "interactions": 2},
        {"position": 7, "answer": "3", "interactions": 2},
        {"position": 0, "answer": "3", "interactions": 0},
    ],
    ids=[
        "broken",
        "list",
        "surrogate",
        "no-position",
        "bad-position",
        "unknown-key",
        "empty",
        "not-current",
        "no-interaction",
    ],  # fmt: skip
)
def test_a_refused_answer_is_refused_the_same_on_both_paths(study, body):
    client = APIClient()
    token = start(client, study).json()["token"]
    lean, drf = post(client, token, body, lean=True), post(client, token, body, lean=False)
    assert 400 <= lean.status_code < 500
    same(lean, drf)


def test_an_unknown_session_is_a_404_on_both_paths(study):
    client = APIClient()
    body = {"position": 0, "answer": "3", "interactions": 2}
    same(post(client, "x" * 43, body, lean=True), post(client, "x" * 43, body, lean=False))


def test_answers_and_retries_are_stored_and_answered_the_same_on_both_paths(study):
    client = APIClient()
    replies = {}
    for lean in (True, False):
        token = start(client, study, pid=f"p{lean}").json()["token"]
        body = {"position": 0, "answer": answer_for(trial_at(token, 0)), "interactions": 1,
                "idempotency_key": "k0"}  # fmt: skip
        first, retry = post(client, token, body, lean=lean), post(client, token, body, lean=lean)
        replies[lean] = (first, retry)
    for lean, drf in zip(replies[True], replies[False], strict=True):
        assert {h: lean.get(h) for h in HEADERS} == {h: drf.get(h) for h in HEADERS}
        assert lean.status_code == drf.status_code
        a, b = lean.json(), drf.json()
        # Two sessions differ in their token, clock and (randomized) order of trials.
        assert a["next_trial"].keys() == b["next_trial"].keys()
        for body in (a, b):
            body.pop("next_trial")
            for key in ("token", "deadline", "seconds_left"):
                body["session"].pop(key)
        assert a == b
    assert [r.status_code for r in replies[True]] == [201, 200]
    assert replies[True][1].json()["duplicate"] is True


def test_a_plain_answer_builds_no_drf_request(study, monkeypatch):
    built = []
    original = APIView.initialize_request

    def counted(self, request, *args, **kwargs):
        built.append(request.method)
        return original(self, request, *args, **kwargs)

    monkeypatch.setattr(APIView, "initialize_request", counted)
    client = APIClient()
    token = start(client, study).json()["token"]
    built.clear()
    body = {"position": 0, "answer": answer_for(trial_at(token, 0)), "interactions": 1}
    assert post(client, token, body, lean=True).status_code == 201
    assert built == []
    body = {"position": 1, "answer": answer_for(trial_at(token, 1)), "interactions": 1}
    assert post(client, token, body, lean=False).status_code == 201
    assert built == ["POST"]


def test_an_unexpected_error_is_answered_the_same_on_both_paths_with_debug_on(
    study, monkeypatch, settings
):
    # DRF renders an error it does not handle with the request's negotiated renderer when
    # DEBUG is on; the lean path negotiates one before handing the error over.
    from django.db import OperationalError

    from studies.api import participant

    def unreachable(**kwargs):
        raise OperationalError("the database went away")

    client = APIClient()
    token = start(client, study).json()["token"]
    settings.DEBUG = True
    monkeypatch.setattr(participant.svc, "response_record", unreachable)
    body = {"position": 0, "answer": "3", "interactions": 2}
    lean, drf = post(client, token, body, lean=True), post(client, token, body, lean=False)
    assert lean.status_code == drf.status_code == 503
    assert lean.json() == drf.json()


def test_a_query_string_takes_drf_s_path(study, monkeypatch):
    built = []
    original = APIView.initialize_request
    monkeypatch.setattr(
        APIView,
        "initialize_request",
        lambda self, request, *a, **k: built.append(1) or original(self, request, *a, **k),
    )
    client = APIClient()
    token = start(client, study).json()["token"]
    built.clear()
    body = {"position": 0, "answer": answer_for(trial_at(token, 0)), "interactions": 1}
    response = client.post(
        f"{API}/sessions/{token}/responses/?format=json",
        json.dumps(body),
        content_type="application/json",
    )
    assert response.status_code == 201 and built == [1]
