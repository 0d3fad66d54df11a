"""What a signed-in person is shown stays out of shared and browser caches."""

import pytest
from django.test import Client

from core.services.tokens import api_token_create

pytestmark = pytest.mark.django_db


def _private(response) -> bool:
    cache = response.get("Cache-Control", "")
    return "private" in cache and "no-store" in cache


def test_signed_in_pages_and_api_answers_are_private(client, researcher, researcher_api):
    client.force_login(researcher)
    assert _private(client.get("/"))
    assert _private(client.get("/researcher/tokens/"))
    assert _private(researcher_api.get("/api/v1/studies/"))


def test_an_answer_to_an_api_token_is_private(researcher):
    key = api_token_create(user=researcher, name="cli").key
    response = Client().get("/api/v1/studies/", HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 200 and _private(response)


def test_anonymous_answers_keep_their_own_caching(client, researcher):
    from studies.tests.factories import make_study

    study = make_study(researcher, pairs=2)
    response = client.get(f"/api/v1/participate/studies/{study.slug}/")
    assert response.status_code == 200 and "private" not in response.get("Cache-Control", "")
