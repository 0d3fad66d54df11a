"""The settings for several machines: storage mode, the pooler, a shared SECRET_KEY."""

import subprocess
import sys

import dj_database_url
import pytest
from django.core.exceptions import ImproperlyConfigured

from config.pooler import pooled_database
from config.storage_settings import public_media_origins, storages_from_env
from core.checks import shared_state_check
from core.tests.test_settings_switching import ROOT, run_probe


@pytest.fixture
def s3_env(monkeypatch):
    for name, value in {
        "CHARTROOM_STORAGE": "s3",
        "AWS_STORAGE_BUCKET_NAME": "charts",
        "AWS_PRIVATE_BUCKET_NAME": "private",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_S3_ENDPOINT_URL", raising=False)
    monkeypatch.delenv("AWS_S3_CUSTOM_DOMAIN", raising=False)


def test_by_default_files_stay_in_local_folders(monkeypatch):
    monkeypatch.delenv("CHARTROOM_STORAGE", raising=False)
    storages = storages_from_env()
    assert storages["private"]["BACKEND"] == "core.storage.PrivateFileSystemStorage"
    assert storages["default"]["BACKEND"] == "django.core.files.storage.FileSystemStorage"
    assert public_media_origins() == []


def test_s3_mode_makes_charts_public_and_cached_and_the_rest_private_and_signed(s3_env):
    storages = storages_from_env()
    public, private = storages["default"]["OPTIONS"], storages["private"]["OPTIONS"]
    assert public["bucket_name"] == "charts" and public["querystring_auth"] is False
    assert public["object_parameters"] == {"CacheControl": "public, max-age=31536000, immutable"}
    assert private["bucket_name"] == "private" and private["querystring_auth"] is True
    assert private["default_acl"] == "private" and private["querystring_expire"] == 300
    assert public_media_origins() == ["https://*.amazonaws.com"]


def test_a_custom_domain_is_the_image_origin(s3_env, monkeypatch):
    monkeypatch.setenv("AWS_S3_CUSTOM_DOMAIN", "media.example.org")
    assert public_media_origins() == ["https://media.example.org"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"AWS_PRIVATE_BUCKET_NAME": ""}, "needs AWS_STORAGE_BUCKET_NAME"),
        ({"AWS_PRIVATE_BUCKET_NAME": "charts"}, "must differ"),
        ({"CHARTROOM_STORAGE": "nfs"}, "must be local or s3"),
    ],
)
def test_a_bad_storage_setting_is_refused_with_the_reason(s3_env, monkeypatch, change, message):
    for name, value in change.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ImproperlyConfigured, match=message):
        storages_from_env()


def test_pgbouncer_turns_off_prepared_statements_and_held_cursors():
    database = dj_database_url.parse("postgres://app@pgbouncer:6432/chartroom")
    pooled = pooled_database(database, "pgbouncer")
    assert pooled["ENGINE"] == "core.db.pgbouncer"
    assert pooled["OPTIONS"]["prepare_threshold"] is None
    assert pooled["HOST"] == "pgbouncer" and pooled["PORT"] == 6432
    with pytest.raises(ImproperlyConfigured, match="DB_POOLER must be one of: pgbouncer"):
        pooled_database(database, "pgpool")


def test_s3_mode_refuses_to_start_without_a_shared_secret_key(tmp_path):
    result = run_probe(
        tmp_path,
        CHARTROOM_STORAGE="s3",
        AWS_STORAGE_BUCKET_NAME="charts",
        AWS_PRIVATE_BUCKET_NAME="private",
    )
    assert result.returncode != 0
    assert "needs SECRET_KEY set, the same on every node" in result.stderr


def test_db_pooler_without_a_database_url_is_refused(tmp_path):
    result = run_probe(tmp_path, DB_POOLER="pgbouncer")
    assert result.returncode != 0 and "DB_POOLER needs DATABASE_URL" in result.stderr


def test_the_pgbouncer_backend_loads():
    code = "from core.db.pgbouncer.base import DatabaseWrapper; print(DatabaseWrapper.vendor)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "postgresql", out.stderr


def test_the_deploy_check_names_node_local_state_with_buckets(settings):
    settings.CHARTROOM_STORAGE = "s3"
    settings.CACHE_URL = settings.CELERY_BROKER_URL = ""
    assert [w.id for w in shared_state_check(None)] == ["chartroom.W001", "chartroom.W002"]
    settings.CACHE_URL = "redis://127.0.0.1:6379/1"
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    assert shared_state_check(None) == []
    settings.CHARTROOM_STORAGE = "local"
    settings.CACHE_URL = ""
    assert shared_state_check(None) == []
