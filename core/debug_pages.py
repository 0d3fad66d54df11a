"""Chartroom's own 404 and 500 pages while DEBUG is on (the default, and `make demo`).

With DEBUG on, Django answers a missing page or an uncaught exception with its
technical pages (URL patterns, settings, tracebacks) instead of handler404/handler500.
Demo visitors and participants should see the project's pages like in production,
while developers keep the tracebacks: signed-in staff (the demo's `admin`) still get
Django's pages, and so does everyone when CHARTROOM_DEBUG_PAGES=1. Every 500 is
logged with its traceback (the runserver console), as Django would have logged it.

Django offers no setting for this, so a middleware does it: Http404 and other
exceptions from views arrive in process_exception; a path that matches no URL pattern
never reaches a view, so it is resolved here first.
"""

from __future__ import annotations

import logging

from django.core.exceptions import (
    BadRequest,
    PermissionDenied,
    SuspiciousOperation,
    ValidationError,
)
from django.db import DataError
from django.http import Http404
from django.urls import Resolver404, resolve

from core.debug_access import debug_pages_for_all, is_staff
from core.errors import ServiceError
from core.middleware import is_database_unavailable

logger = logging.getLogger("django.request")
# Django (or another middleware) answers these with a page of their own even in DEBUG.
LEFT_TO_OTHERS = (
    ServiceError,
    ValidationError,
    OverflowError,
    DataError,
    PermissionDenied,
    BadRequest,
    SuspiciousOperation,
)


def _matches_no_url(request) -> bool:
    try:
        resolve(request.path_info)
    except Resolver404:
        return True
    return False


class DebugErrorPagesMiddleware:
    """Listed after AuthenticationMiddleware (it asks who is signed in) and after
    CommonMiddleware, whose APPEND_SLASH redirect still sees the 404 it answers.
    The signed-in user is looked up only for an error, never on the way in."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not debug_pages_for_all() and _matches_no_url(request) and not is_staff(request):
            from core.views import page_not_found

            return page_not_found(request)
        return self.get_response(request)

    def process_exception(self, request, exception):
        if debug_pages_for_all() or isinstance(exception, LEFT_TO_OTHERS):
            return None
        if is_database_unavailable(exception):
            return None  # ApiErrorMiddleware answers 503 with Retry-After
        if is_staff(request):
            return None
        from core.views import page_not_found, server_error_page

        if isinstance(exception, Http404):
            return page_not_found(request, exception)
        logger.error(
            "Internal Server Error: %s",
            request.path,
            exc_info=(type(exception), exception, exception.__traceback__),
            extra={"status_code": 500, "request": request},
        )
        return server_error_page(request)
