"""JSON nested too deeply for Python's parser is bad input with a clear message, not a 500.

A few kilobytes of ``[[[[...`` make Python's parser raise RecursionError; before
core/json_input.py every JSON endpoint, the participant ones included, answered it with a
500 and a traceback.
"""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from core import json_input
from studies.model_answers_reading import read_model_answers
from studies.tests.factories import make_study

DEEP = "[" * 5000 + "]" * 5000


def test_loads_refuses_a_too_deep_document_as_invalid_json_and_reads_the_rest():
    for text in (DEEP, DEEP.encode()):
        with pytest.raises(json.JSONDecodeError, match="nested too deeply"):
            json_input.loads(text)
    nested = "[" * 50 + "1" + "]" * 50
    assert json_input.loads(nested) == json.loads(nested)
    assert json_input.loads(b'{"a": [1, 2.5]}') == {"a": [1, 2.5]}


@pytest.mark.django_db
def test_the_api_answers_a_too_deep_body_with_a_400_anonymous_or_signed_in(
    researcher, researcher_api
):
    study = make_study(researcher, pairs=2)
    anonymous = APIClient()
    for client, method, url in (
        (anonymous, "POST", f"/api/v1/participate/studies/{study.slug}/sessions/"),
        (researcher_api, "POST", "/api/v1/studies/"),
        (researcher_api, "PATCH", f"/api/v1/studies/{study.slug}/"),
    ):
        response = client.generic(method, url, DEEP, content_type="application/json")
        assert response.status_code == 400, (url, response.status_code)
        assert response.json()["detail"] == "JSON parse error - the JSON is nested too deeply."


def test_an_upload_of_model_answers_nested_too_deeply_is_a_problem_of_the_file():
    result = read_model_answers(DEEP.encode(), "answers.json")
    assert not result.rows
    assert any("nested too deeply" in str(problem) for problem in result.problems)


LONG = "1" * 5001  # Python reads at most 4300 digits into an int


def test_a_number_too_long_for_python_is_invalid_json_not_a_500():
    with pytest.raises(json.JSONDecodeError, match="more than 4300 digits"):
        json_input.loads(f'{{"a": {LONG}}}')
    line = f'{{"model": "m", "chart_id": "G1_Q1_1", "fact_answer": {LONG}}}'
    result = read_model_answers(line.encode(), "answers.jsonl")
    assert not result.rows
    assert any("more than 4300 digits" in str(problem) for problem in result.problems)


SURROGATE_MESSAGE = (
    "JSON parse error - the JSON holds a lone surrogate (such as \\ud800), which is not a "
    "character."
)


@pytest.mark.django_db
def test_a_lone_surrogate_in_a_body_is_a_400_and_nothing_is_saved(researcher, researcher_api):
    # Sent as JSON's escape, half a UTF-16 pair became a str no UTF-8 encoder takes: a 500
    # where an error message repeated it, and, saved in a JSON field, on every later read.
    study = make_study(researcher, pairs=2)
    anonymous = APIClient()
    session = anonymous.post(
        f"/api/v1/participate/studies/{study.slug}/sessions/",
        {"consent": True, "params": {"PROLIFIC_PID": "s1"}},
        format="json",
    ).json()["token"]
    for client, method, url, body in (
        (anonymous, "POST", f"/api/v1/participate/studies/{study.slug}/sessions/",
         '{"\\ud800": 1}'),
        (anonymous, "POST", f"/api/v1/participate/sessions/{session}/responses/",
         '{"position": 0, "answer": "1\\ud800", "interactions": 1}'),
        (researcher_api, "POST", "/api/v1/studies/", '{"title": "t", "platform": "\\ud800"}'),
        (researcher_api, "PATCH", f"/api/v1/studies/{study.slug}/",
         '{"description": "a\\udfffb"}'),
    ):  # fmt: skip
        response = client.generic(method, url, body, content_type="application/json")
        assert response.status_code == 400, (url, response.status_code)
        assert response.json()["detail"] == SURROGATE_MESSAGE
    study.refresh_from_db()
    assert "\udfff" not in study.description
    assert not study.sessions.filter(responses__isnull=False).exists()
    # A pair written as such is a character like any other.
    assert json_input.loads('"\\ud83d\\ude00"') == "\U0001f600"


def test_an_upload_with_a_lone_surrogate_is_a_problem_of_the_file():
    with pytest.raises(json.JSONDecodeError, match="lone surrogate"):
        json_input.loads('{"a": ["x\\ud800"]}')
    line = '{"model": "m\\ud800", "chart_id": "G1_Q1_1", "fact_answer": "1"}'
    result = read_model_answers(line.encode(), "answers.jsonl")
    assert not result.rows
    assert any("lone surrogate" in str(problem) for problem in result.problems)


@pytest.mark.django_db
def test_a_nul_in_a_body_is_a_400_and_in_an_upload_a_problem_of_its_row(researcher, researcher_api):
    # PostgreSQL stores NUL in neither text nor jsonb: saving one was a 500 there.
    study = make_study(researcher, pairs=2)
    response = researcher_api.generic(
        "PATCH", f"/api/v1/studies/{study.slug}/", '{"description": "a\\u0000b"}',
        content_type="application/json",
    )  # fmt: skip
    assert response.status_code == 400
    assert response.json()["detail"] == (
        "JSON parse error - the JSON holds a NUL character (\\u0000), which cannot be stored."
    )
    line = '{"model": "m", "chart_id": "G1_Q1_1", "fact_answer": "1\\u00002"}'
    result = read_model_answers(line.encode(), "answers.jsonl")
    assert not result.rows
    assert [p.message for p in result.problems] == [
        "This row holds a NUL character (binary data, not text)."
    ]
