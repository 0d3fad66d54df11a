import pytest
from rest_framework.test import APIClient

from core.models import ApiToken
from core.services.tokens import api_token_create


@pytest.mark.django_db
def test_a_token_authenticates_api_requests_as_its_owner(researcher):
    issued = api_token_create(user=researcher, name="notebook")
    client = APIClient(HTTP_AUTHORIZATION=f"Token {issued.key}")
    response = client.get("/api/v1/me/")
    assert response.status_code == 200
    assert response.json()["username"] == researcher.username
    issued.token.refresh_from_db()
    assert issued.token.last_used_at is not None


@pytest.mark.django_db
def test_only_the_hash_of_the_key_is_stored(researcher):
    issued = api_token_create(user=researcher, name="notebook")
    row = ApiToken.objects.get(pk=issued.token.pk)
    assert issued.key not in (row.key_hash, row.prefix, row.name)
    assert row.key_hash == ApiToken.hash_key(issued.key)


@pytest.mark.django_db
def test_a_revoked_or_wrong_token_is_refused_with_401(researcher_api, researcher):
    created = researcher_api.post("/api/v1/tokens/", {"name": "ci"}, format="json").json()
    key = created["key"]
    assert APIClient(HTTP_AUTHORIZATION=f"Token {key}").get("/api/v1/me/").status_code == 200

    assert researcher_api.delete(f"/api/v1/tokens/{created['id']}/").status_code == 204
    refused = APIClient(HTTP_AUTHORIZATION=f"Token {key}").get("/api/v1/me/")
    assert refused.status_code == 401
    assert refused.json() == {"detail": "Invalid or revoked API token.", "errors": {}}
    assert APIClient(HTTP_AUTHORIZATION="Token nonsense").get("/api/v1/me/").status_code == 401


@pytest.mark.django_db
def test_a_researcher_cannot_revoke_someone_elses_token(researcher_api, other_researcher):
    theirs = api_token_create(user=other_researcher, name="theirs")
    assert researcher_api.delete(f"/api/v1/tokens/{theirs.token.pk}/").status_code == 404
    theirs.token.refresh_from_db()
    assert theirs.token.is_active


@pytest.mark.django_db
def test_researchers_create_and_revoke_tokens_in_the_ui(client, researcher, password):
    client.login(username=researcher.username, password=password)
    page = client.post("/researcher/tokens/", {"name": "laptop"}, follow=True)
    assert page.status_code == 200
    token = ApiToken.objects.get(user=researcher)
    key = page.context["new_key"]
    assert ApiToken.hash_key(key) == token.key_hash
    assert key.encode() in page.content  # shown once

    listing = client.get("/researcher/tokens/")
    assert key.encode() not in listing.content  # and never again

    client.post(f"/researcher/tokens/{token.pk}/revoke/")
    token.refresh_from_db()
    assert not token.is_active


@pytest.mark.django_db
def test_a_created_token_is_shown_after_a_redirect_so_a_reload_creates_no_second(
    client, researcher, password
):
    client.login(username=researcher.username, password=password)
    created = client.post("/researcher/tokens/", {"name": "laptop"})
    assert created.status_code == 302 and created["Location"] == "/researcher/tokens/"
    shown = client.get("/researcher/tokens/")
    assert shown.context["new_key"] and shown.context["new_key"].encode() in shown.content
    client.get("/researcher/tokens/")  # the reload: a GET, which posts nothing
    assert ApiToken.objects.filter(user=researcher).count() == 1


@pytest.mark.django_db
def test_a_refused_token_name_stays_in_the_box(client, researcher, password):
    client.login(username=researcher.username, password=password)
    long_name = "n" * 101
    page = client.post("/researcher/tokens/", {"name": long_name})
    assert b"at most 100 characters" in page.content
    assert f'value="{long_name}"'.encode() in page.content
    assert not ApiToken.objects.exists()


@pytest.mark.django_db
def test_an_empty_token_name_is_a_clear_message_not_an_error(client, researcher, password):
    client.login(username=researcher.username, password=password)
    page = client.post("/researcher/tokens/", {"name": "  "}, follow=True)
    assert page.status_code == 200
    assert b"Give the token a name" in page.content
    assert not ApiToken.objects.exists()
