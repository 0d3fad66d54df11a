"""Chart images answered before Django: the right file, or Django's own answer."""

from __future__ import annotations

import io

import pytest

from core.media_files import IMMUTABLE, PublicMediaFiles, public_media_files

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 100


def django_stand_in(environ, start_response):
    start_response("418 I'm a teapot", [("Content-Type", "text/plain")])
    return [b"django"]


@pytest.fixture
def media(tmp_path):
    root = tmp_path / "media"
    (root / "charts").mkdir(parents=True)
    (root / "charts" / "ab12cd.png").write_bytes(PNG)
    (tmp_path / "secret.txt").write_text("not public")
    return root


def call(app, path, *, method="GET", query="", scheme="http", **extra):
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "wsgi.url_scheme": scheme,
        "wsgi.input": io.BytesIO(),
        **extra,
    }
    seen = {}

    def start_response(status, headers):
        seen["status"], seen["headers"] = status, dict(headers)

    body = b"".join(app(environ, start_response))
    return seen["status"], seen["headers"], body


def make(media, **kwargs):
    options = {"redirect_http": False, **kwargs}
    return PublicMediaFiles(django_stand_in, media_url="/media/", media_root=media, **options)


def test_a_chart_is_served_with_immutable_caching(media):
    status, headers, body = call(make(media), "/media/charts/ab12cd.png")
    assert status == "200 OK"
    assert body == PNG
    assert headers["Content-Type"] == "image/png"
    assert headers["Content-Length"] == str(len(PNG))
    assert headers["Cache-Control"] == IMMUTABLE
    assert headers["X-Content-Type-Options"] == "nosniff"


def test_head_sends_the_headers_alone(media):
    status, headers, body = call(make(media), "/media/charts/ab12cd.png", method="HEAD")
    assert (status, body) == ("200 OK", b"")
    assert headers["Content-Length"] == str(len(PNG))


def test_a_file_uploaded_after_start_is_served(media):
    app = make(media)
    (media / "charts" / "new.png").write_bytes(PNG)
    assert call(app, "/media/charts/new.png")[0] == "200 OK"


@pytest.mark.parametrize(
    "path",
    [
        "/media/charts/missing.png",  # Django's 404 page
        "/media/../secret.txt",  # outside the folder
        "/media/charts/../../secret.txt",
        "/media/charts",  # a folder
        "/media/",
        "/static/app.css",  # not media
        "/mediaX/charts/ab12cd.png",
    ],
)
def test_anything_else_goes_to_django(media, path):
    assert call(make(media), path)[2] == b"django"


def test_other_methods_and_query_strings_go_to_django(media):
    app = make(media)
    assert call(app, "/media/charts/ab12cd.png", method="POST")[2] == b"django"
    assert call(app, "/media/charts/ab12cd.png", query="x=1")[2] == b"django"


def test_a_symlink_out_of_the_folder_is_not_followed(media):
    (media / "charts" / "link.txt").symlink_to(media.parent / "secret.txt")
    assert call(make(media), "/media/charts/link.txt")[2] == b"django"


def test_plain_http_is_left_to_djangos_https_redirect(media):
    app = make(media, redirect_http=True, proxy_ssl_header=("HTTP_X_FORWARDED_PROTO", "https"))
    assert call(app, "/media/charts/ab12cd.png")[2] == b"django"
    assert call(app, "/media/charts/ab12cd.png", scheme="https")[2] == PNG
    proxied = call(app, "/media/charts/ab12cd.png", HTTP_X_FORWARDED_PROTO="https")
    assert proxied[2] == PNG


def test_the_file_wrapper_of_the_server_is_used(media):
    used = []

    def file_wrapper(handle, block):
        used.append(block)
        return iter(lambda: handle.read(block), b"")

    status, _, body = call(
        make(media), "/media/charts/ab12cd.png", **{"wsgi.file_wrapper": file_wrapper}
    )
    assert (status, body, bool(used)) == ("200 OK", PNG, True)


def test_the_site_serves_media_through_it(db, settings, monkeypatch):
    # The WSGI application gunicorn and runserver load has the layer in front (its job
    # threads are not wanted here).
    import importlib

    from core import local_jobs

    monkeypatch.setattr(local_jobs, "local_jobs_start", lambda: None)
    import config.wsgi

    importlib.reload(config.wsgi)
    assert isinstance(config.wsgi.application, PublicMediaFiles)
    assert config.wsgi.application.prefix == settings.MEDIA_URL


def test_bucket_storage_leaves_media_to_django(monkeypatch):
    monkeypatch.setenv("CHARTROOM_STORAGE", "s3")
    assert public_media_files(django_stand_in) is django_stand_in
