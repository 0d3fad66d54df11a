"""Every response under /api/ is in the JSON error format, and a database outage is a 503."""

from unittest import mock

import pytest
from django.db import OperationalError
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test import override_settings

from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


def test_an_attention_check_without_a_kind_is_a_400_naming_the_field(researcher_api, researcher):
    study = make_study(researcher, status="draft")
    response = researcher_api.post(
        f"/api/v1/studies/{study.slug}/attention-checks/",
        {"prompt": "Pick 'Blue'.", "options": ["Red", "Blue"], "answer_key": "Blue"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["errors"] == {"kind": ["This field is required."]}


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("path", ["/api/", "/api/nothing", "/api/v1/no/such/thing/"])
def test_unknown_api_paths_are_json_404s_even_with_debug_on(researcher_api, path, debug):
    with override_settings(DEBUG=debug):
        response = researcher_api.get(path)
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found.", "errors": {}}


@pytest.mark.parametrize(("method", "path"), [("delete", "/api/schema/"), ("post", "/api/docs/")])
def test_a_wrong_method_on_the_schema_and_docs_is_a_json_405(researcher_api, method, path):
    response = getattr(researcher_api, method)(path)
    assert response.status_code == 405
    assert response["Content-Type"] == "application/json"
    assert response.json()["detail"] == f'Method "{method.upper()}" not allowed.'
    assert "GET" in response["Allow"]


def _database_gone():
    """Every new cursor fails the way psycopg fails when the server is unreachable."""
    return mock.patch.object(
        BaseDatabaseWrapper,
        "cursor",
        side_effect=OperationalError('connection to server at "127.0.0.1" failed: refused'),
    )


def test_with_the_database_down_the_api_answers_503_with_retry_after(researcher_api):
    with _database_gone():
        response = researcher_api.get("/api/v1/studies/")
    assert response.status_code == 503
    assert response["Retry-After"] == "60"
    body = response.json()
    assert body["errors"] == {} and "Try again in a minute" in body["detail"]


def test_with_the_database_down_pages_show_a_friendly_503(client, researcher):
    client.force_login(researcher)
    with _database_gone():
        response = client.get("/researcher/")
    assert response.status_code == 503
    assert response["Retry-After"] == "60"
    assert b"try again in a minute" in response.content
    assert b"Traceback" not in response.content


def test_with_the_database_down_a_participant_link_shows_the_503_page(client, researcher):
    study = make_study(researcher, status="live")
    with _database_gone():
        response = client.get(f"/s/{study.slug}/?PROLIFIC_PID=p1")
    assert response.status_code == 503 and b"briefly unavailable" in response.content


def test_an_outage_met_outside_a_view_is_a_503_too(client, researcher):
    """The 404 page reads the signed-in user from the database: that failure is a 503."""
    client.force_login(researcher)
    client.raise_request_exception = False
    with _database_gone():
        response = client.get("/no/such/page/")
    assert response.status_code == 503 and response["Retry-After"] == "60"
    assert b"briefly unavailable" in response.content
