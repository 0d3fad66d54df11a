"""DJANGO_DEBUG=0 is safe by default: HTTPS only, HSTS, no weak key, a clean deploy check."""

import json
import os
import subprocess
import sys

import pytest

from core.tests.test_settings_switching import ROOT, STRONG_KEY, run_probe

SECURITY_PROBE = """
import json, django
from django.conf import settings
django.setup()
print(json.dumps({name: getattr(settings, name, None) for name in (
    "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_PROXY_SSL_HEADER", "SESSION_COOKIE_SECURE")}))
"""
PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "SECRET_KEY": STRONG_KEY,
    "ALLOWED_HOSTS": "chartroom.example.org",
}


def clean_env(tmp_path, **overrides) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SECURE_", "DJANGO_", "SECRET_KEY", "ALLOWED_HOSTS"))
    }
    env.update(DJANGO_SETTINGS_MODULE="config.settings", CHARTROOM_VAR_DIR=str(tmp_path / "var"))
    env.update(overrides)
    return env


def security_settings(tmp_path, **overrides) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", SECURITY_PROBE],
        cwd=ROOT,
        env=clean_env(tmp_path, **PRODUCTION, **overrides),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_production_redirects_to_https_and_sends_hsts_by_default(tmp_path):
    conf = security_settings(tmp_path)
    assert conf["SECURE_SSL_REDIRECT"] is True
    assert conf["SECURE_HSTS_SECONDS"] >= 365 * 24 * 3600
    assert conf["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert conf["SECURE_PROXY_SSL_HEADER"] is None  # a client cannot claim https itself


def test_behind_a_tls_proxy_one_setting_names_its_header(tmp_path):
    conf = security_settings(tmp_path, SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto")
    assert conf["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert conf["SECURE_SSL_REDIRECT"] is True


def test_the_redirect_and_hsts_can_be_switched_off(tmp_path):
    conf = security_settings(tmp_path, SECURE_SSL_REDIRECT="0", SECURE_HSTS_SECONDS="0")
    assert conf["SECURE_SSL_REDIRECT"] is False and conf["SECURE_HSTS_SECONDS"] == 0


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("changeme", "well-known example"),
        ("x" * 60, "too few characters"),
        ("a-short-but-random-Key-29f8", "use at least 50"),
        ("django-insecure-" + "k3j4h5g6f7d8s9a0" * 4, "startproject"),
    ],
)
def test_production_refuses_a_short_or_known_weak_secret_key(tmp_path, key, reason):
    result = run_probe(tmp_path, **{**PRODUCTION, "SECRET_KEY": key})
    assert result.returncode != 0
    assert "refuses this SECRET_KEY" in result.stderr and reason in result.stderr


def test_a_sqlite_database_url_is_refused_naming_chartroom_var_dir(tmp_path):
    result = run_probe(tmp_path, DATABASE_URL="sqlite:////tmp/chartroom.sqlite3")
    assert result.returncode != 0
    assert "CHARTROOM_VAR_DIR" in result.stderr and "sqlite://" in result.stderr


def test_check_deploy_is_clean_with_the_readmes_production_settings(tmp_path):
    """The README's production block: DJANGO_DEBUG=0, SECRET_KEY, ALLOWED_HOSTS (+ services)."""
    env = clean_env(tmp_path, **PRODUCTION)
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
