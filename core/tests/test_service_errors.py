"""Refusals: one ServiceError base, mapped once for the API and once for pages."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages import get_messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.signed_cookies import SessionStore
from django.core.exceptions import ValidationError
from django.test import RequestFactory
from django.urls import reverse
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from annotation.services import InviteError
from annotation.services.quality import QualityError
from annotation.services.queue import QueueError
from core.decorators import refusal_flashed
from core.errors import ServiceError
from core.middleware import ServiceErrorMiddleware
from studies.services.sessions import AlreadyStarted, StudyUnavailable


class RoundFull(ServiceError):
    status = 429
    code = "round_full"


class Refusing(APIView):
    authentication_classes: list = []
    permission_classes: list = []

    def get(self, request):
        raise RoundFull("Try again in an hour.", errors={"round": ["It is full."]})

    def post(self, request):
        raise StudyUnavailable("The study is full.", reason="full")


def test_a_service_error_carries_status_code_message_and_errors():
    exc = ServiceError("No.", status=404, code="gone", errors={"item": ["Unknown."]})
    assert (exc.status, exc.code, exc.message, str(exc)) == (404, "gone", "No.", "No.")
    assert exc.body() == {"detail": "No.", "errors": {"item": ["Unknown."]}}
    assert (ServiceError("x").status, ServiceError("x").code) == (400, "error")


def test_every_refusal_class_is_a_service_error_and_forms_still_see_validation_errors():
    queue = QueueError("The queue is paused.", status=403, code="paused")
    quality = QualityError("Pass round 1 first.", status=403, code="not_qualified")
    invite = InviteError("This invite link is not valid.")
    for exc in (queue, quality, invite):
        assert isinstance(exc, ServiceError) and isinstance(exc, ValidationError)
        assert exc.messages == [exc.message]
    assert (queue.status, queue.code) == (403, "paused")
    assert isinstance(AlreadyStarted("Taken."), ServiceError)
    assert AlreadyStarted("Taken.").status == 409


def test_the_api_answers_a_refusal_with_its_status_and_body():
    response = Refusing.as_view()(APIRequestFactory().get("/api/v1/x"))
    assert response.status_code == 429
    assert response.data == {
        "detail": "Try again in an hour.",
        "errors": {"round": ["It is full."]},
    }


def test_the_participant_api_body_keeps_its_code_and_reason():
    response = Refusing.as_view()(APIRequestFactory().post("/api/v1/x"))
    assert response.status_code == 409
    assert response.data == {
        "detail": "The study is full.",
        "errors": {},
        "code": "study_unavailable",
        "reason": "full",
    }


def _page_request(path="/somewhere/", method="get"):
    request = getattr(RequestFactory(), method)(path)
    request.user = AnonymousUser()
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    return request


def test_a_page_shows_an_unhandled_refusal_with_its_status_not_a_500():
    middleware = ServiceErrorMiddleware(lambda request: Response())
    response = middleware.process_exception(_page_request(), RoundFull("Round 2 opens tomorrow."))
    assert response.status_code == 429
    assert "Round 2 opens tomorrow." in response.content.decode()
    assert middleware.process_exception(_page_request(), ValueError("bug")) is None


def test_a_validation_error_no_view_caught_is_its_message_with_a_400(caplog):
    middleware = ServiceErrorMiddleware(lambda request: Response())
    problem = ValidationError(["The image of G1_Q1_1 is missing.", "Try again."])
    response = middleware.process_exception(_page_request("/library/x/export/"), problem)
    assert response.status_code == 400
    assert "The image of G1_Q1_1 is missing. Try again." in response.content.decode()
    assert "Uncaught ValidationError on /library/x/export/" in caplog.text
    response = middleware.process_exception(_page_request("/api/v1/raw"), problem)
    assert response.status_code == 400
    assert json.loads(response.content) == {
        "detail": "The image of G1_Q1_1 is missing. Try again.",
        "errors": {"non_field_errors": ["The image of G1_Q1_1 is missing.", "Try again."]},
    }


def test_an_api_path_outside_drf_gets_the_json_body():
    middleware = ServiceErrorMiddleware(lambda request: Response())
    response = middleware.process_exception(_page_request("/api/v1/raw"), RoundFull("Later."))
    assert response.status_code == 429
    assert json.loads(response.content) == {"detail": "Later.", "errors": {}}


@pytest.mark.django_db
def test_a_form_post_refusal_is_flashed_and_sends_the_person_back():
    @refusal_flashed("annotation:quality", "slug")
    def view(request, slug):
        raise QualityError("A round needs gold items.")

    request = _page_request("/p/demo/quality/rounds/new", method="post")
    response = view(request, slug="demo")
    assert response.status_code == 302
    assert response.url == reverse("annotation:quality", kwargs={"slug": "demo"})
    assert [str(m) for m in get_messages(request)] == ["A round needs gold items."]


def test_the_page_mapping_is_installed_after_messages(settings):
    chain = settings.MIDDLEWARE
    assert chain.index("core.middleware.ServiceErrorMiddleware") > chain.index(
        "core.lazy_messages.LazyMessageMiddleware"
    )
