"""Refusals Django makes before any view runs (a body over the size limit, a form without
its CSRF cookie) say what to do, with DEBUG on (`make demo`) as without, and only staff
see Django's debug pages for them."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

TOO_LARGE = "The request is too large (the limit is 2 MB without files). Send less at once."
STALE_FORM = "This form has expired, or your browser did not send the cookie it needs."


@pytest.fixture
def big_form():
    return {"username": "someone", "password": "x" * (3 * 1024 * 1024)}


@pytest.mark.parametrize("debug", [False, True])
def test_a_form_over_the_size_limit_is_a_page_with_the_limit(settings, client, big_form, debug):
    settings.DEBUG = debug
    response = client.post("/login/", big_form)
    page = response.content.decode()
    assert response.status_code in (400, 413)
    assert TOO_LARGE in page and "RequestDataTooBig" not in page


def test_staff_keep_djangos_debug_page_for_it(settings, client, big_form, make_user):
    settings.DEBUG = True
    staff = make_user("researcher")
    staff.is_staff = True
    staff.save()
    client.force_login(staff)
    response = client.post("/login/", big_form)
    assert response.status_code == 400 and "RequestDataTooBig" in response.content.decode()


def test_an_api_body_over_the_size_limit_is_a_413_with_the_limit(researcher_api):
    body = '{"title": "' + "x" * (3 * 1024 * 1024) + '"}'
    response = researcher_api.generic(
        "POST", "/api/v1/studies/", body, content_type="application/json"
    )
    assert response.status_code == 413
    assert response.json()["detail"] == TOO_LARGE


@pytest.mark.parametrize("debug", [False, True])
def test_a_form_without_its_csrf_cookie_says_what_to_do(settings, debug):
    settings.DEBUG = debug
    response = Client(enforce_csrf_checks=True).post("/login/", {"username": "a"})
    assert response.status_code == 403
    page = response.content.decode()
    assert STALE_FORM in page and "CSRF verification failed" not in page
    assert "This form could not be sent" in page


def test_too_many_form_fields_is_a_400_that_says_the_limit(researcher_api, client, settings):
    from studies.tests.factories import make_study

    fields = "&".join(f"a{n}=1" for n in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 5))
    study = make_study(researcher_api.handler._force_user, pairs=1, status="draft")
    refused = researcher_api.generic(
        "PATCH", f"/api/v1/studies/{study.slug}/", fields,
        content_type="application/x-www-form-urlencoded",
    )  # fmt: skip
    assert refused.status_code == 400
    assert "too many fields (the limit is 1000)" in refused.json()["detail"]
    page = client.post("/login/", fields, content_type="application/x-www-form-urlencoded")
    assert page.status_code == 400 and "too many fields" in page.content.decode()
