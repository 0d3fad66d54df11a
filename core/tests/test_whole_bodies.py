"""Django's in-memory responses reach the WSGI server as one piece of bytes, and are closed."""

from __future__ import annotations

import io

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished
from django.http import HttpResponse, StreamingHttpResponse

from core.whole_bodies import WholeBodies


def environ(path: str, method: str = "GET") -> dict:
    return {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "HTTP_HOST": "testserver",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(),
        "wsgi.errors": io.StringIO(),
    }


@pytest.fixture
def finished():
    """How many times Django's request_finished was sent."""
    sent = []

    def count(**kwargs):
        sent.append(kwargs["sender"])

    request_finished.connect(count)
    yield sent
    request_finished.disconnect(count)


def test_a_page_comes_back_as_one_piece_and_its_request_is_finished(db, finished):
    seen = {}

    def start_response(status, headers):
        seen["status"], seen["headers"] = status, dict(headers)

    body = WholeBodies(WSGIHandler())(environ("/healthz"), start_response)
    assert type(body) is list and len(body) == 1 and isinstance(body[0], bytes)
    assert seen["headers"]["Content-Type"] == "application/json"
    assert b'"database"' in body[0]
    assert int(seen["headers"]["Content-Length"]) == len(body[0])
    # The server has nothing to close on a list: the layer closed the response itself.
    assert len(finished) == 1


def test_the_body_is_the_one_django_made(db):
    response = HttpResponse(b"first part, ")
    response.write(b"second part")

    def inner(environ, start_response):
        start_response("200 OK", list(response.items()))
        return response

    assert WholeBodies(inner)(environ("/"), lambda *a: None) == [b"first part, second part"]


def test_a_streaming_response_goes_to_the_server_unread_and_open(finished):
    read = []

    def chunks():
        for chunk in (b"a", b"b"):
            read.append(chunk)
            yield chunk

    streaming = StreamingHttpResponse(chunks())

    def inner(environ, start_response):
        start_response("200 OK", list(streaming.items()))
        return streaming

    assert WholeBodies(inner)(environ("/"), lambda *a: None) is streaming
    assert read == [] and finished == []  # the server walks it, then closes it


def test_the_site_hands_django_the_layer(db, monkeypatch):
    import importlib

    from core import local_jobs

    monkeypatch.setattr(local_jobs, "local_jobs_start", lambda: None)
    import config.wsgi

    importlib.reload(config.wsgi)
    assert isinstance(config.wsgi.application.application, WholeBodies)
    assert isinstance(config.wsgi.application.application.application, WSGIHandler)
