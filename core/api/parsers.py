"""The API's request parsers (settings.REST_FRAMEWORK's DEFAULT_PARSER_CLASSES)."""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError

from core.json_input import LONE_SURROGATE, NUL, TOO_DEEP, holds_lone_surrogate, holds_nul


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, with a too deeply nested body, a lone surrogate or a NUL a 400
    like any other bad JSON (core/json_input.py says why)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON parse error - {TOO_DEEP}.") from None
        if holds_lone_surrogate(data):
            raise ParseError(f"JSON parse error - {LONE_SURROGATE}.")
        if holds_nul(data):
            raise ParseError(f"JSON parse error - {NUL}.")
        return data
