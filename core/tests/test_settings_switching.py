"""Settings come from the environment: each switch is checked in a fresh interpreter."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STRONG_KEY = "q7Vx2-Lm9pR_tW4zK8bN3cY6hJ1fD5gS0aE_uI-oP2qR7sT9vW3xZ5yB8nM4kL6j"

PROBE = """
import json, django
from django.conf import settings
django.setup()
print(json.dumps({
    "engine": settings.DATABASES["default"]["ENGINE"],
    "db_name": str(settings.DATABASES["default"]["NAME"]),
    "eager": settings.CELERY_TASK_ALWAYS_EAGER,
    "broker": settings.CELERY_BROKER_URL,
    "debug": settings.DEBUG,
    "session_secure": getattr(settings, "SESSION_COOKIE_SECURE", False),
    "csrf_secure": getattr(settings, "CSRF_COOKIE_SECURE", False),
    "media": str(settings.MEDIA_ROOT),
    "hosts": settings.ALLOWED_HOSTS,
    "cache": settings.CACHES["default"]["BACKEND"],
    "cache_location": settings.CACHES["default"].get("LOCATION", ""),
}))
"""


def run_probe(tmp_path, **env_overrides):
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "DATABASE_URL",
            "CELERY_BROKER_URL",
            "CACHE_URL",
            "SECRET_KEY",
            "DJANGO_DEBUG",
            "ALLOWED_HOSTS",
            "SECURE_PROXY_SSL_HEADER",
            "SECURE_SSL_REDIRECT",
            "SECURE_HSTS_SECONDS",
        }  # fmt: skip
    }
    env.update(
        {"DJANGO_SETTINGS_MODULE": "config.settings", "CHARTROOM_VAR_DIR": str(tmp_path / "var")}
    )
    env.update(env_overrides)
    return subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


def test_with_nothing_set_it_uses_sqlite_under_var_eager_tasks_and_debug(tmp_path):
    result = run_probe(tmp_path)
    assert result.returncode == 0, result.stderr
    conf = json.loads(result.stdout)
    assert conf["engine"] == "django.db.backends.sqlite3"
    assert conf["db_name"].startswith(str(tmp_path / "var"))
    assert conf["media"] == str(tmp_path / "var" / "media")
    assert conf["eager"] is True and conf["debug"] is True
    assert (tmp_path / "var" / "secret_key").exists()


def test_the_generated_secret_key_is_kept_between_starts(tmp_path):
    run_probe(tmp_path)
    first = (tmp_path / "var" / "secret_key").read_text()
    run_probe(tmp_path)
    assert (tmp_path / "var" / "secret_key").read_text() == first


def test_database_url_switches_to_postgresql_through_psycopg3(tmp_path):
    conf = json.loads(
        run_probe(tmp_path, DATABASE_URL="postgres://u@127.0.0.1:5432/chartroom").stdout
    )
    assert conf["engine"] == "django.db.backends.postgresql"
    assert conf["db_name"] == "chartroom"


def test_a_database_url_that_is_not_postgres_is_refused(tmp_path):
    result = run_probe(tmp_path, DATABASE_URL="mysql://u@127.0.0.1/db")
    assert result.returncode != 0
    assert "DATABASE_URL must be a postgres:// URL" in result.stderr


def test_broker_url_switches_celery_to_a_real_broker(tmp_path):
    for url in ("redis://127.0.0.1:6379/0", "amqp://guest:guest@127.0.0.1:5672//"):
        conf = json.loads(run_probe(tmp_path, CELERY_BROKER_URL=url).stdout)
        assert conf["eager"] is False and conf["broker"] == url


def test_debug_off_refuses_to_start_without_a_secret_key(tmp_path):
    result = run_probe(tmp_path, DJANGO_DEBUG="0", ALLOWED_HOSTS="chartroom.example.org")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_debug_off_refuses_to_start_without_allowed_hosts(tmp_path):
    result = run_probe(tmp_path, DJANGO_DEBUG="0", SECRET_KEY=STRONG_KEY)
    assert result.returncode != 0
    assert "ALLOWED_HOSTS" in result.stderr


def test_debug_off_with_key_and_hosts_sets_secure_cookies(tmp_path):
    result = run_probe(
        tmp_path,
        DJANGO_DEBUG="0",
        SECRET_KEY=STRONG_KEY,
        ALLOWED_HOSTS="a.example.org,b.example.org",
    )
    assert result.returncode == 0, result.stderr
    conf = json.loads(result.stdout)
    assert conf["debug"] is False
    assert conf["session_secure"] is True and conf["csrf_secure"] is True
    assert conf["hosts"] == ["a.example.org", "b.example.org"]


def test_a_malformed_boolean_is_a_clear_error(tmp_path):
    result = run_probe(tmp_path, DJANGO_DEBUG="maybe")
    assert result.returncode != 0
    assert "DJANGO_DEBUG must be one of" in result.stderr


def test_cache_url_switches_to_a_shared_redis_cache(tmp_path):
    conf = json.loads(run_probe(tmp_path).stdout)
    assert conf["cache"] == "django.core.cache.backends.locmem.LocMemCache"
    conf = json.loads(run_probe(tmp_path, CACHE_URL="redis://127.0.0.1:6379/1").stdout)
    assert conf["cache"] == "django.core.cache.backends.redis.RedisCache"
    assert conf["cache_location"] == "redis://127.0.0.1:6379/1"
    refused = run_probe(tmp_path, CACHE_URL="memcached://127.0.0.1:11211")
    assert refused.returncode != 0 and "CACHE_URL must be a redis:// URL" in refused.stderr
