"""Repeated failed sign-ins lock the account and the address for a while (django-axes)."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.management import call_command
from django.utils import timezone

pytestmark = pytest.mark.django_db

LIMIT = 3


@pytest.fixture(autouse=True)
def _small_limit(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT


def sign_in(client, username, password, ip="10.0.0.1", path="/login/"):
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=ip)


def fail_until_locked(client, username, ip="10.0.0.1", path="/login/"):
    for _ in range(LIMIT):
        assert sign_in(client, username, "wrong", ip=ip, path=path).status_code in (200, 429)


def test_an_account_is_locked_after_repeated_failures_from_any_address(
    client, researcher, password
):
    for n in range(LIMIT):  # a spread-out attack: a new address for every guess
        sign_in(client, researcher.username, "wrong", ip=f"10.0.0.{n + 1}")
    response = sign_in(client, researcher.username, password, ip="10.9.9.9")
    assert response.status_code == 429
    text = response.content.decode()
    assert "Too many failed sign-ins" in text and "15 minutes" in text
    assert response["Retry-After"] == str(15 * 60)
    assert "_auth_user_id" not in client.session


def test_an_address_is_locked_after_failures_on_many_accounts(client, researcher, password):
    for n in range(LIMIT):
        sign_in(client, f"guess{n}", "wrong", ip="10.0.0.7")
    assert sign_in(client, researcher.username, password, ip="10.0.0.7").status_code == 429
    # the same account from elsewhere is not affected
    assert sign_in(client, researcher.username, password, ip="10.0.0.8").status_code == 302


def test_the_lock_ends_after_the_cool_off(client, researcher, password):
    fail_until_locked(client, researcher.username)
    assert sign_in(client, researcher.username, password).status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert sign_in(client, researcher.username, password).status_code == 302


def test_a_reset_by_an_administrator_lifts_the_lock_at_once(client, researcher, password):
    fail_until_locked(client, researcher.username)
    assert sign_in(client, researcher.username, password).status_code == 429
    call_command("axes_reset_username", researcher.username)
    assert sign_in(client, researcher.username, password).status_code == 302


def test_axes_reset_lifts_every_lock(client, researcher, password):
    fail_until_locked(client, researcher.username)
    call_command("axes_reset")
    assert sign_in(client, researcher.username, password).status_code == 302


def test_the_admin_login_is_throttled_too(client, make_user, password):
    admin = make_user("researcher", username="boss", is_staff=True, is_superuser=True)
    fail_until_locked(client, admin.username, path="/admin/login/")
    response = sign_in(client, admin.username, password, path="/admin/login/")
    assert response.status_code == 429 and b"Too many failed sign-ins" in response.content


def test_behind_a_tls_proxy_the_client_address_comes_from_x_forwarded_for(
    client, settings, researcher, password
):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    for _ in range(LIMIT):
        client.post(
            "/login/",
            {"username": f"x{_}", "password": "wrong"},
            REMOTE_ADDR="10.0.0.1",  # the proxy
            HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.9",  # forged entry, then the real client
        )
    locked = client.post(
        "/login/",
        {"username": researcher.username, "password": password},
        REMOTE_ADDR="10.0.0.1",
        HTTP_X_FORWARDED_FOR="203.0.113.9",
    )
    other_client = client.post(
        "/login/",
        {"username": researcher.username, "password": password},
        REMOTE_ADDR="10.0.0.1",
        HTTP_X_FORWARDED_FOR="1.2.3.4",
    )
    assert locked.status_code == 429 and other_client.status_code == 302
