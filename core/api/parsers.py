"""The API's request parsers (settings.REST_FRAMEWORK's DEFAULT_PARSER_CLASSES)."""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError

from core.json_input import TOO_DEEP, unstorable


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, with a too deeply nested body, a lone surrogate or a NUL a 400
    like any other bad JSON (core/json_input.py says why)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON parse error - {TOO_DEEP}.") from None
        problem = unstorable(data)
        if problem:
            raise ParseError(f"JSON parse error - {problem}.")
        return data
