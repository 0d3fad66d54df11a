"""With DEBUG on (as `make demo` runs), visitors get the project's 404 and 500 pages."""

import logging

import pytest
from django.core.exceptions import ValidationError
from django.urls import path

from config.urls import urlpatterns as site_urls

pytestmark = pytest.mark.django_db
NOT_FOUND = "We could not find that page"


def boom(request):
    raise RuntimeError("a bug")


def refuse(request):
    raise ValidationError("That file is not a chart set.")


urlpatterns = [*site_urls, path("boom/", boom), path("refuse/", refuse)]


@pytest.fixture
def debug(settings):
    settings.DEBUG = True
    return settings


def test_a_missing_study_is_the_projects_404_page(debug, client, researcher):
    client.force_login(researcher)
    response = client.get("/studies/study/no-such-study/")
    assert response.status_code == 404
    assert NOT_FOUND in response.content.decode()


def test_a_path_that_matches_nothing_is_the_projects_404_page(debug, client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404 and NOT_FOUND in response.content.decode()
    # APPEND_SLASH still redirects first.
    assert client.get("/login").status_code == 301
    assert client.get("/api/v1/nothing/").json()["detail"] == "Not found."


@pytest.mark.urls(__name__)
def test_an_error_is_the_projects_500_page_and_its_traceback_is_logged(debug, client, caplog):
    client.raise_request_exception = False
    with caplog.at_level(logging.ERROR, logger="django.request"):
        response = client.get("/boom/")
    assert response.status_code == 500
    assert "Something went wrong on our side" in response.content.decode()
    assert any(r.exc_info and "a bug" in str(r.exc_info[1]) for r in caplog.records)


@pytest.mark.urls(__name__)
def test_staff_and_chartroom_debug_pages_keep_djangos_debug_pages(debug, client, make_user):
    client.force_login(make_user(is_staff=True))
    assert "URLconf" in client.get("/no/such/page/").content.decode()
    client.logout()
    debug.CHARTROOM_DEBUG_PAGES = True
    assert "URLconf" in client.get("/no/such/page/").content.decode()
    client.raise_request_exception = False
    assert "Traceback" in client.get("/boom/").content.decode()


@pytest.mark.urls(__name__)
def test_a_validation_error_no_view_caught_is_its_message_not_a_500(debug, client):
    response = client.get("/refuse/")
    assert response.status_code == 400
    assert "That file is not a chart set." in response.content.decode()
