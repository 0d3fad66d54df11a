"""Every API 4xx has one shape; pages fail with friendly pages, never a traceback."""

import pytest
from django.test import override_settings


@pytest.mark.django_db
def test_unknown_api_url_is_a_json_404(researcher_api):
    response = researcher_api.get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found.", "errors": {}}


@pytest.mark.django_db
def test_wrong_method_is_a_405_in_the_error_format(researcher_api):
    response = researcher_api.put("/api/v1/me/", {}, format="json")
    assert response.status_code == 405
    assert response.json()["detail"] == 'Method "PUT" not allowed.'


@pytest.mark.django_db
def test_malformed_json_is_a_400_in_the_error_format(researcher_api):
    response = researcher_api.generic(
        "POST", "/api/v1/studies/", "{not json", content_type="application/json"
    )
    assert response.status_code == 400
    body = response.json()
    assert body["detail"].startswith("JSON parse error") and body["errors"] == {}


@pytest.mark.django_db
def test_validation_errors_name_the_field(researcher_api):
    response = researcher_api.post("/api/v1/studies/", {"title": ""}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["errors"] == {"title": ["This field may not be blank."]}
    assert body["detail"] == "Invalid input: This field may not be blank."


def test_missing_auth_is_a_401_in_the_error_format(client):
    response = client.get("/api/v1/me/")
    assert response.status_code == 401
    assert response.json() == {
        "detail": "Authentication credentials were not provided.",
        "errors": {},
    }


@pytest.mark.django_db
@override_settings(DEBUG=False)
def test_an_unknown_page_is_a_friendly_404_page(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert b"We could not find that page" in response.content
    assert b"Traceback" not in response.content


@pytest.mark.django_db
def test_a_page_for_another_role_is_a_friendly_403(client, annotator, password):
    client.login(username=annotator.username, password=password)
    response = client.get("/researcher/")
    assert response.status_code == 403
    assert b"This page is for researchers." in response.content


@pytest.mark.django_db
def test_a_server_error_in_the_api_is_a_json_500_without_a_traceback(researcher, monkeypatch):
    from django.test import Client

    from core.api import views

    def explode(self, request):
        raise RuntimeError("boom")

    monkeypatch.setattr(views.MeView, "get", explode)
    client = Client(raise_request_exception=False)
    client.force_login(researcher)
    with override_settings(DEBUG=False):
        response = client.get("/api/v1/me/")
    assert response.status_code == 500
    assert response.json()["detail"].startswith("Something went wrong")
    assert b"boom" not in response.content
