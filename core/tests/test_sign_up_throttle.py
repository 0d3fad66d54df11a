"""Annotator sign-up is limited per address: account creation cannot be scripted."""

import pytest

from annotation.services import project_create
from core import security
from core.models import User

pytestmark = pytest.mark.django_db


@pytest.fixture
def invite_url(researcher, settings):
    settings.CHARTROOM_SIGNUP_LIMIT = 2
    settings.CHARTROOM_SIGNUP_WINDOW_SECONDS = 3600
    return f"/annotation/join/{project_create(owner=researcher, title='Captions').invite_code}/"


def sign_up(client, url, username, ip="10.0.0.1"):
    client.logout()
    return client.post(
        url,
        {"username": username, "email": "", "password1": "a-long-pass-phrase",
         "password2": "a-long-pass-phrase"},
        REMOTE_ADDR=ip,
    )  # fmt: skip


def test_sign_ups_beyond_the_limit_from_one_address_are_refused_with_a_message(client, invite_url):
    assert sign_up(client, invite_url, "first").status_code == 302
    assert sign_up(client, invite_url, "second").status_code == 302
    refused = sign_up(client, invite_url, "third")
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Too many accounts were created from your network" in refused.content.decode()
    assert not User.objects.filter(username="third").exists()
    # another address is not affected
    assert sign_up(client, invite_url, "fourth", ip="10.0.0.2").status_code == 302


def test_the_limit_is_lifted_in_the_next_window(client, invite_url, monkeypatch):
    now = 1_000_000 * 3600.0
    monkeypatch.setattr(security.time, "time", lambda: now)
    for name in ("a1", "a2"):
        sign_up(client, invite_url, name)
    assert sign_up(client, invite_url, "a3").status_code == 429
    now += 3600
    assert sign_up(client, invite_url, "a3").status_code == 302
