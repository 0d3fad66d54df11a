"""Files in S3-compatible buckets (CHARTROOM_STORAGE=s3), against moto's S3 server.

See core/tests/nodes.py for why a protocol-level stand-in. No database, broker or cache:
these run in both CI set-ups.
"""

from __future__ import annotations

import uuid
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from config import storage_settings
from core.storage import private_storage
from core.tests import nodes


@pytest.fixture(scope="module")
def s3_endpoint(tmp_path_factory):
    proc, endpoint = nodes.moto_start(tmp_path_factory.mktemp("moto") / "moto.log")
    yield endpoint
    nodes.stop(proc)


@pytest.fixture
def s3(s3_endpoint, settings, monkeypatch):
    """STORAGES built from the environment a node in S3 mode would have, with fresh buckets."""
    tag = uuid.uuid4().hex[:8]
    env = nodes.s3_env(s3_endpoint, f"charts-{tag}", f"private-{tag}")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    nodes.buckets_create(
        s3_endpoint, env["AWS_STORAGE_BUCKET_NAME"], env["AWS_PRIVATE_BUCKET_NAME"]
    )
    settings.CHARTROOM_STORAGE = "s3"
    settings.STORAGES = {
        **storage_settings.storages_from_env(),
        "staticfiles": settings.STORAGES["staticfiles"],
    }
    return env


def test_a_chart_image_has_a_plain_bucket_url_cached_for_a_year(s3):
    name = default_storage.save("charts/ab/abcdef.png", ContentFile(b"\x89PNG fake"))
    url = default_storage.url(name)
    assert url == f"{s3['AWS_S3_ENDPOINT_URL']}/{s3['AWS_STORAGE_BUCKET_NAME']}/{name}"
    fetched = requests.get(url, timeout=5)
    assert fetched.status_code == 200 and fetched.content == b"\x89PNG fake"
    assert fetched.headers["Cache-Control"] == "public, max-age=31536000, immutable"


def test_a_private_file_is_private_and_its_link_is_signed_and_short_lived(s3):
    storage = private_storage()
    name = storage.save("jobs/2026/12/export.csv", ContentFile(b"a,b\n1,2\n"))
    with storage.open(name, "rb") as handle:
        assert handle.read() == b"a,b\n1,2\n"
    query = parse_qs(urlsplit(storage.url(name)).query)
    assert query["X-Amz-Expires"] == ["300"] and "X-Amz-Signature" in query
    assert requests.get(storage.url(name), timeout=5).content == b"a,b\n1,2\n"
    unsigned = storage.url(name).split("?")[0]
    assert requests.get(unsigned, timeout=5).status_code == 403
    acl = storage.connection.meta.client.get_object_acl(
        Bucket=s3["AWS_PRIVATE_BUCKET_NAME"], Key=name
    )
    assert [g["Grantee"].get("URI") for g in acl["Grants"] if g["Grantee"].get("URI")] == []
    # A second file of the same name is kept beside the first, never written over it.
    assert storage.save("jobs/2026/12/export.csv", ContentFile(b"other")) != name


def test_the_media_view_serves_a_chart_from_the_bucket(s3, client):
    name = default_storage.save("charts/cd/cdef01.png", ContentFile(b"chart bytes"))
    response = client.get(f"/media/{name}")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == b"chart bytes"
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    assert client.get("/media/charts/none.png").status_code == 404


@pytest.mark.django_db
def test_healthz_checks_the_bucket(s3, client, settings):
    body = client.get("/healthz").json()
    assert body["storage"] == {"ok": True, "mode": "s3"}
    listed = private_storage().connection.meta.client.list_objects_v2(
        Bucket=s3["AWS_PRIVATE_BUCKET_NAME"]
    )
    assert listed.get("KeyCount", 0) == 0  # the probe cleans up after itself

    options = settings.STORAGES["private"]["OPTIONS"]
    settings.STORAGES = {
        **settings.STORAGES,
        "private": {**settings.STORAGES["private"], "OPTIONS": {**options, "bucket_name": "gone"}},
    }
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded" and body["storage"]["ok"] is False
    assert "NoSuchBucket" in body["storage"]["error"]


def test_the_chart_bucket_origin_is_allowed_for_images(s3):
    assert storage_settings.public_media_origins() == [s3["AWS_S3_ENDPOINT_URL"]]
