"""The messages middleware builds a request's storage only when it is used."""

from __future__ import annotations

import pytest
from django.contrib import messages
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpResponse
from django.test import RequestFactory

from core import lazy_messages
from core.lazy_messages import LazyMessageMiddleware


@pytest.fixture
def built(monkeypatch):
    """The storages built, one entry per request that used its messages."""
    made = []
    real = lazy_messages.default_storage

    def counting(request):
        made.append(request.path)
        return real(request)

    monkeypatch.setattr(lazy_messages, "default_storage", counting)
    return made


def stack(view):
    return SessionMiddleware(LazyMessageMiddleware(view))


def listing(request):
    return HttpResponse("|".join(str(m) for m in messages.get_messages(request)))


def adding(request):
    messages.success(request, "Saved.")
    return HttpResponse("added")


def test_a_request_that_never_uses_messages_builds_no_storage(built):
    response = stack(lambda request: HttpResponse("ok"))(RequestFactory().get("/quiet"))
    assert response.status_code == 200 and built == []
    assert "messages" not in response.cookies


@pytest.mark.django_db
def test_a_message_added_is_shown_on_the_next_page_once(built):
    factory = RequestFactory()
    added = stack(adding)(factory.get("/add"))
    assert built == ["/add"]
    cookie = added.cookies["messages"].value

    shown = stack(listing)(factory.get("/list", HTTP_COOKIE=f"messages={cookie}"))
    assert shown.content == b"Saved."
    # Read once: the reply clears the cookie, and the next page shows nothing.
    assert shown.cookies["messages"].value == ""
    assert stack(listing)(factory.get("/list")).content == b""


@pytest.mark.django_db
def test_the_sites_pages_use_the_lazy_storage(client, built):
    client.get("/api/v1/")
    assert built == []
    page = client.get("/login/")
    assert page.status_code == 200 and built == ["/login/"]
