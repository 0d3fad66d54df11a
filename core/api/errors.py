"""One error format for every API 4xx: ``{"detail": "...", "errors": {field: [...]}}``."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig, TooManyFieldsSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DataError
from django.http import Http404, JsonResponse
from django.utils.translation import gettext as _
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import ServiceError

OUT_OF_RANGE = "A number or text in the request is out of range."


def too_large_message() -> str:
    """Why a body over DATA_UPLOAD_MAX_MEMORY_SIZE was refused, with the limit."""
    megabytes = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / (1024 * 1024)
    return _(
        "The request is too large (the limit is %(limit)s MB without files). Send less at once."
    ) % {"limit": f"{megabytes:g}"}


def too_many_fields_message() -> str:
    """Why a form body with more fields than DATA_UPLOAD_MAX_NUMBER_FIELDS was refused."""
    return _(
        "The request has too many fields (the limit is %(limit)s). Send fewer at once, or "
        "send JSON."
    ) % {"limit": settings.DATA_UPLOAD_MAX_NUMBER_FIELDS}


def _flatten(value) -> list[str]:
    if isinstance(value, dict):
        return [f"{key}: {msg}" for key, inner in value.items() for msg in _flatten(inner)]
    if isinstance(value, list | tuple):
        return [msg for item in value for msg in _flatten(item)]
    return [str(value)]


def error_body(detail: str, errors: dict | None = None) -> dict:
    return {"detail": detail, "errors": errors or {}}


def exception_handler(exc, context):
    if isinstance(exc, RequestDataTooBig):
        return Response(error_body(too_large_message()), status=413)
    if isinstance(exc, TooManyFieldsSent):
        return Response(error_body(too_many_fields_message()), status=400)
    if isinstance(exc, ServiceError):
        # A refusal says its own status, code and message: the one place the API maps them.
        response = Response(exc.body(), status=exc.status)
        if getattr(exc, "retry_after", None):
            response["Retry-After"] = str(exc.retry_after)
        return response
    if isinstance(exc, DjangoValidationError):
        # Services raise Django's ValidationError; the API speaks DRF's.
        payload = (
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
        exc = exceptions.ValidationError(payload)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound("Not found.")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    elif isinstance(exc, OverflowError | DataError):
        # A number or text beyond what the database column holds, in input a serializer
        # let through: the database refused it and nothing was stored.
        exc = exceptions.ValidationError({"non_field_errors": [OUT_OF_RANGE]})

    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # a real server error: Django's 500 handling takes it

    data = response.data
    if isinstance(exc, exceptions.ValidationError):
        if isinstance(data, dict):
            errors = {key: _flatten(value) for key, value in data.items()}
        else:
            errors = {"non_field_errors": _flatten(data)}
        first = next(iter(errors.values()), ["Invalid input."])
        # A refusal may sum itself up (core.api.input names the keys it refused).
        detail = getattr(exc, "summary", None) or (
            "Invalid input: " + first[0]
            if len(errors) == 1 and len(first) == 1
            else "Invalid input."
        )
        response.data = error_body(detail, errors)
    else:
        detail = data.get("detail") if isinstance(data, dict) else None
        response.data = error_body(str(detail or response.status_text))
    return response


def json_error(status_code: int, detail: str) -> JsonResponse:
    return JsonResponse(error_body(detail), status=status_code)


def api_not_found() -> Response:
    return Response(error_body("Not found."), status=status.HTTP_404_NOT_FOUND)
