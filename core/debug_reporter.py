"""Django's debug page for an exception outside any view, only for those who get debug pages."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import BadRequest, SuspiciousOperation
from django.views.debug import ExceptionReporter

from core.debug_access import shows_debug_pages


class StaffOnlyExceptionReporter(ExceptionReporter):
    """settings.DEFAULT_EXCEPTION_REPORTER: the debug page of an exception raised outside any
    view (a body over the size limit met by the CSRF check, a bad Host header) only for
    those who get debug pages; others get the project's page for it, as in production.

    Django renders those itself in DEBUG, before any middleware could answer, so its
    reporter is the one place to decide. Without DEBUG it is Django's reporter unchanged
    (the one error e-mails use).
    """

    def _project_page(self):
        if self.request is None or not settings.DEBUG:
            return None
        # Imported here: logging loads this module (for error e-mails) before the apps.
        from core.middleware import is_database_unavailable
        from core.views import bad_request, server_error_page

        if is_database_unavailable(self.exc_value):
            return None  # who is asking lives in the database that is away
        try:
            if shows_debug_pages(self.request):
                return None
            if isinstance(self.exc_value, SuspiciousOperation | BadRequest):
                return bad_request(self.request, self.exc_value)
            return server_error_page(self.request)
        except Exception:  # the page failed too: Django's own report is still an answer
            return None

    def get_traceback_html(self):
        page = self._project_page()
        return page.content.decode() if page is not None else super().get_traceback_html()

    def get_traceback_text(self):
        page = self._project_page()
        return page.content.decode() if page is not None else super().get_traceback_text()
