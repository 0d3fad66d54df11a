"""Who gets Django's debug pages: with DEBUG on, staff, or everyone with CHARTROOM_DEBUG_PAGES=1
(core/debug_pages.py says why). Read by the pages' middleware, the exception reporter and the
CSRF failure view alike."""

from __future__ import annotations

from django.conf import settings


def debug_pages_for_all() -> bool:
    # Without DEBUG, Django already answers with the project's handlers.
    return not settings.DEBUG or getattr(settings, "CHARTROOM_DEBUG_PAGES", False)


def is_staff(request) -> bool:
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated and user.is_staff)


def shows_debug_pages(request) -> bool:
    """Whether this request gets Django's debug pages (DEBUG on, and staff or everyone)."""
    return settings.DEBUG and (
        getattr(settings, "CHARTROOM_DEBUG_PAGES", False) or is_staff(request)
    )
