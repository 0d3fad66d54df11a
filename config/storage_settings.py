"""Where files live: local folders (one machine) or S3-compatible buckets (several machines).

Two storages: "default" holds public chart images (content-hash names, cached for a year by
browsers and proxies); "private" holds uploads being imported, exports and job results, which
are only ever handed out by views that check who is asking. With CHARTROOM_STORAGE=s3 both
are buckets reached through django-storages (boto3), so every web and worker node reads the
same files. Credentials are not settings: boto3 reads AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY from the environment (or an instance role).
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

# Chart image names are digests of their bytes: the file at a URL never changes.
IMMUTABLE = "public, max-age=31536000, immutable"
# A signed link to a private file is made per download and only has to reach the browser.
PRIVATE_URL_SECONDS = 300


def _env(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def storage_mode() -> str:
    mode = _env("CHARTROOM_STORAGE", "local") or "local"
    if mode not in ("local", "s3"):
        raise ImproperlyConfigured("CHARTROOM_STORAGE must be local or s3.")
    return mode


def local_storages() -> dict:
    return {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "private": {"BACKEND": "core.storage.PrivateFileSystemStorage"},
    }


def _s3_common() -> dict:
    endpoint = _env("AWS_S3_ENDPOINT_URL") or None
    options = {
        "endpoint_url": endpoint,
        "region_name": _env("AWS_S3_REGION_NAME") or None,
        # MinIO, Ceph, Garage and test stand-ins answer at one host name: buckets go in the
        # path there. Amazon's own endpoint (no AWS_S3_ENDPOINT_URL) takes virtual hosts.
        "addressing_style": _env("AWS_S3_ADDRESSING_STYLE", "path" if endpoint else "auto"),
        "signature_version": "s3v4",
    }
    return options


def s3_storages() -> dict:
    public = _env("AWS_STORAGE_BUCKET_NAME")
    private = _env("AWS_PRIVATE_BUCKET_NAME")
    if not public or not private:
        raise ImproperlyConfigured(
            "CHARTROOM_STORAGE=s3 needs AWS_STORAGE_BUCKET_NAME (public chart images) and "
            "AWS_PRIVATE_BUCKET_NAME (uploads and exports)."
        )
    if public == private:
        raise ImproperlyConfigured(
            "AWS_PRIVATE_BUCKET_NAME must differ from AWS_STORAGE_BUCKET_NAME: the chart "
            "bucket is readable by anyone, exports must not be."
        )
    common = _s3_common()
    return {
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                **common,
                "bucket_name": public,
                # Plain URLs (no signature) so browsers and proxies can cache them.
                "querystring_auth": False,
                "custom_domain": _env("AWS_S3_CUSTOM_DOMAIN") or None,
                "default_acl": _env("AWS_DEFAULT_ACL") or None,
                "object_parameters": {"CacheControl": IMMUTABLE},
                "file_overwrite": True,  # same name, same bytes
            },
        },
        "private": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                **common,
                "bucket_name": private,
                "default_acl": "private",
                "querystring_auth": True,
                "querystring_expire": PRIVATE_URL_SECONDS,
                "file_overwrite": False,  # two exports of the same name both survive
            },
        },
    }


def storages_from_env() -> dict:
    """STORAGES without the staticfiles entry (settings adds it)."""
    return s3_storages() if storage_mode() == "s3" else local_storages()


def public_media_origins() -> list[str]:
    """Origins chart images load from, for the Content-Security-Policy's img-src."""
    if storage_mode() != "s3":
        return []
    domain = _env("AWS_S3_CUSTOM_DOMAIN")
    if domain:
        return [f"https://{domain}"]
    endpoint = _env("AWS_S3_ENDPOINT_URL")
    if endpoint:
        parts = urlsplit(endpoint)
        return [f"{parts.scheme}://{parts.netloc}"]
    return ["https://*.amazonaws.com"]
