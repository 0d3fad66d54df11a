"""Error responses that no view produces: the API's JSON format everywhere under /api/,
and a 503 instead of a 500 while the database cannot be reached."""

from __future__ import annotations

import logging

from django.core.exceptions import ValidationError
from django.db import DataError, InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.utils.functional import empty

from core.api.errors import OUT_OF_RANGE, error_body
from core.api.serializers import MAX_ID
from core.errors import ServiceError
from core.languages import request_language

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"
# How long clients should wait before asking again while the database is away: long
# enough for a restart or a failover, short enough that a participant's retry succeeds.
RETRY_AFTER_SECONDS = 60
UNAVAILABLE_DETAIL = (
    "The service is briefly unavailable (its database cannot be reached). Try again in a minute."
)


def is_api_request(request) -> bool:
    return request.path.startswith(API_PREFIX)


def is_database_unavailable(exc: BaseException | None) -> bool:
    # OperationalError is what psycopg and sqlite raise when the server is gone, refuses
    # connections or the file is locked; InterfaceError when a pooled connection died.
    return isinstance(exc, OperationalError | InterfaceError)


def unavailable_response(request) -> HttpResponse:
    """503 with Retry-After: JSON under /api/, a self-contained page elsewhere.

    The page is rendered without context processors: they would read the session and
    the user, which live in the database that is down.
    """
    if is_api_request(request):
        response = JsonResponse(error_body(UNAVAILABLE_DETAIL), status=503)
    else:
        response = HttpResponse(render_to_string("503.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


def _is_json(response) -> bool:
    content_type = response.get("Content-Type", "")
    return content_type.startswith("application/json") or "+json" in content_type


def _detail_of(request, response) -> str:
    if response.status_code == 405:
        return f'Method "{request.method}" not allowed.'  # DRF's wording, for one voice
    reason = response.reason_phrase or "Error"
    return {404: "Not found.", 500: "Something went wrong on our side. It has been logged."}.get(
        response.status_code, f"{reason}."
    )


class ApiErrorMiddleware:
    """Outermost error shaping: every error response under /api/ is JSON, and a database
    outage anywhere is a 503 with Retry-After.

    Views behind DRF already answer in the format (core.api.errors); this catches what
    happens before or around them: Django's own 404/405 responses, the schema and docs
    views rendering errors as YAML or HTML, and exceptions raised by other middleware.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if is_api_request(request) and response.status_code >= 400 and not _is_json(response):
            response = self._as_json(request, response)
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        # An id in the URL larger than any row's (20 digits) is a mistake, not a missing
        # row: a 400 naming it, the same on every database (the ORM would answer 404).
        if not is_api_request(request):
            return None
        errors = {
            name: [f"{value} is out of range: ids are whole numbers up to {MAX_ID}."]
            for name, value in view_kwargs.items()
            if isinstance(value, int) and value > MAX_ID
        }
        if not errors:
            return None
        return JsonResponse(error_body(OUT_OF_RANGE, errors), status=400)

    def process_exception(self, request, exception):
        if is_database_unavailable(exception):
            return unavailable_response(request)
        return None

    @staticmethod
    def _as_json(request, response) -> JsonResponse:
        json_response = JsonResponse(
            error_body(_detail_of(request, response)), status=response.status_code
        )
        for header in ("Allow", "Retry-After", "WWW-Authenticate"):
            if header in response:
                json_response[header] = response[header]
        return json_response


class ServiceErrorMiddleware:
    """The one mapping of refusals for pages: a ServiceError no view answered itself is a
    page with its message and its status (409, 403 ...), never a 500; so is a Django
    ValidationError, with 400.

    Views catch one only to do something of their own (re-render a form, flash and go
    back: see core.decorators.refusal_flashed). Under /api/ DRF's handler answers first;
    this covers the few API views outside DRF with the same JSON body.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, ServiceError):
            message, status, body = exception.message, exception.status, exception.body()
        elif isinstance(exception, ValidationError | OverflowError | DataError):
            # Services say what is wrong with Django's ValidationError, and views that can
            # do better (re-render a form, flash and go back) catch it; a number or text
            # beyond what a column holds (an id of 20 digits in a URL) is refused by the
            # database. One a view did not expect still reaches the person as a message
            # with a 400, never as a 500; it is logged so that the view can learn to answer
            # it in place.
            messages = exception.messages if isinstance(exception, ValidationError) else []
            logger.warning("Uncaught %s on %s: %s", type(exception).__name__, request.path,
                           messages or exception)  # fmt: skip
            message, status = " ".join(messages) or OUT_OF_RANGE, 400
            body = error_body(message, {"non_field_errors": messages or [OUT_OF_RANGE]})
        else:
            return None
        if is_api_request(request):
            return JsonResponse(body, status=status)
        # The message was written in the view's language; the page around it matches.
        with translation.override(request_language(request)):
            return render(request, "refused.html", {"reason": message}, status=status)


def _about_a_signed_in_person(request) -> bool:
    """Whether the response was made for a signed-in person (a session or an API token).

    The user is read only if the view read it already (or the request carries a token
    header): a participant's request, which never signs in, costs no session lookup here.
    """
    user = getattr(request, "user", None)
    if user is None:
        return False
    if getattr(user, "_wrapped", None) is empty and "HTTP_AUTHORIZATION" not in request.META:
        return False
    return bool(user.is_authenticated)


class PrivateResponsesMiddleware:
    """What a signed-in person is shown (their studies, exports, tokens, results) is kept
    out of shared and browser caches: ``Cache-Control: private, no-store`` on every
    response that does not set its own caching. Participants' pages set ``never_cache``
    themselves (studies/views/participant_base.py)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not response.has_header("Cache-Control") and _about_a_signed_in_person(request):
            patch_cache_control(response, private=True, no_store=True)
        return response


# Style sources some responses need beyond the site's policy (config/settings.py). Scripts
# stay 'self' everywhere: these only let third-party markup keep its look.
RELAXED_STYLES = {"style-src": ["'unsafe-inline'"]}


class CspAdjustMiddleware:
    """Per-response additions to the Content-Security-Policy, for markup that is not ours.

    HTML under /api/ (the browsable API and the API docs) comes from DRF's and Swagger
    UI's templates and bundles, which set style attributes and inject <style> elements.

    Listed after the CSP middleware (core/csp.py), so it marks the response before the policy
    is written.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if is_api_request(request) and response.get("Content-Type", "").startswith("text/html"):
            response._csp_update = {
                **RELAXED_STYLES,
                **(getattr(response, "_csp_update", None) or {}),
            }
        return response
