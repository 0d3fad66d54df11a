"""Refusal pages speak the request's language: the one the view had reached when it
refused (a participant's session, an annotation project), else the request's own."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.signed_cookies import SessionStore
from django.test import RequestFactory
from django.utils import translation
from rest_framework.response import Response

from core.errors import ServiceError
from core.languages import request_language, speaking
from core.middleware import ServiceErrorMiddleware
from core.security import Throttled


class Refused(ServiceError):
    status = 409
    code = "refused"


def _request():
    request = RequestFactory().get("/participate/x/")
    request.user = AnonymousUser()
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    return request


def _refusal_page(request, exception) -> str:
    middleware = ServiceErrorMiddleware(lambda request: Response())
    return middleware.process_exception(request, exception).content.decode()


@pytest.mark.parametrize(
    ("language", "heading"),
    [("de", "Das war leider nicht möglich"), ("es", "No se ha podido hacer")],
)
def test_the_refusal_page_speaks_the_language_the_view_had_reached(language, heading):
    request = _request()
    with pytest.raises(Refused) as raised, speaking(request):
        # As a participant page does once it has read the session (studies' speak()).
        translation.activate(language)
        raise Refused("Nein.")
    assert translation.get_language() != language  # restored after the view
    page = _refusal_page(request, raised.value)
    assert heading in page
    assert f'lang="{language}"' in page
    assert "That could not be done" not in page


def test_a_request_without_a_language_of_its_own_speaks_the_active_one():
    request = _request()
    assert request_language(request) == translation.get_language()
    page = _refusal_page(request, Refused("No."))
    assert "That could not be done" in page and "Nothing was changed." in page


def test_speaking_a_language_given_by_the_view():
    request = _request()
    with pytest.raises(Refused), speaking(request, "es"):
        raise Refused("No.")
    assert request_language(request) == "es"


@pytest.mark.parametrize(
    ("language", "one", "three"),
    [
        ("en", "1 minute", "3 minutes"),
        ("de", "1 Minute", "3 Minuten"),
        ("es", "1 minuto", "3 minutos"),
    ],
)
def test_the_sign_up_wait_is_told_in_the_page_language(language, one, three):
    with translation.override(language):
        assert Throttled(retry_after=30).wait == one
        assert Throttled(retry_after=150).wait == three
