"""A refused request is one log line; a server error keeps its traceback."""

import logging

import pytest

from core.log_filters import ClientErrorsWithoutTraceback


def _record(level, name="django.request"):
    try:
        raise PermissionError("not yours")
    except PermissionError:
        import sys

        return logging.LogRecord(
            name, level, __file__, 1, "Forbidden: %s", ("/x/",), sys.exc_info()
        )


@pytest.mark.parametrize("level", [logging.WARNING, logging.INFO])
def test_a_client_error_keeps_its_line_without_the_traceback(level):
    record = _record(level)
    assert ClientErrorsWithoutTraceback().filter(record) and record.exc_info is None
    assert logging.Formatter().format(record) == "Forbidden: /x/"


def test_a_server_error_keeps_its_traceback():
    record = _record(logging.ERROR)
    assert ClientErrorsWithoutTraceback().filter(record) and record.exc_info is not None
    assert "PermissionError: not yours" in logging.Formatter().format(record)
