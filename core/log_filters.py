"""Logging filters (settings.LOGGING)."""

from __future__ import annotations

import logging


class ClientErrorsWithoutTraceback(logging.Filter):
    """Django logs a 4xx it made from an exception (a PermissionDenied, a bad request) with
    that exception's traceback, which only says where the refusal was raised: the line
    ("Forbidden (Permission denied): /studies/...") is kept, the traceback dropped. Errors
    (5xx) keep theirs."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.ERROR and record.name.startswith("django.") and record.exc_info:
            record.exc_info = None
            record.exc_text = None
        return True
