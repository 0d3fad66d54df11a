"""JSON from outside (request bodies, uploads, other servers' replies), read safely.

Python's parser recurses once per nesting level, so a few kilobytes of ``[[[[...`` raise
RecursionError, which no ``except ValueError`` catches: from an anonymous participant
that was a 500 and a traceback per request. Here such a document is refused as the
invalid JSON it is for this project (no real input nests a thousand levels deep), as a
``json.JSONDecodeError``, so every caller's existing handling of bad JSON answers it
with its usual clear message.
"""

from __future__ import annotations

import json
import re
import sys

TOO_DEEP = "the JSON is nested too deeply"
# Python reads at most sys.get_int_max_str_digits() (4300) digits into an int, a guard
# against slow conversions, and says so with a ValueError that is no JSONDecodeError: it
# too was a 500.
TOO_MANY_DIGITS = f"a number in the JSON has more than {sys.get_int_max_str_digits()} digits"


# JSON may write half of a UTF-16 pair ("\ud800"): Python reads it into a str that no
# UTF-8 encoder takes, so it failed later, as a 500 (an error message repeating it, a save)
# or, stored in a JSON field, on every later read of its object.
LONE_SURROGATE = "the JSON holds a lone surrogate (such as \\ud800), which is not a character"
_SURROGATE = re.compile("[\ud800-\udfff]")
NUL = "the JSON holds a NUL character (\\u0000), which cannot be stored"


def holds_lone_surrogate(value) -> bool:
    """Whether a parsed JSON value has a lone surrogate in any text, keys included."""
    return _any_text(value, lambda text: _SURROGATE.search(text) is not None)


def holds_nul(value) -> bool:
    """Whether a parsed JSON value (or a row of cells) has a NUL in any text, keys included:
    PostgreSQL stores NUL in neither text nor jsonb, so a save of one is a 500."""
    return _any_text(value, lambda text: "\x00" in text)


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable(value) -> str | None:
    """Why a parsed JSON value cannot be stored (:data:`NUL` or :data:`LONE_SURROGATE`),
    or None: both checks in one walk, for request bodies (every participant answer)."""
    found: list[str] = []

    def test(text: str) -> bool:
        match = _UNSTORABLE.search(text)
        if match:
            found.append(NUL if match.group() == "\x00" else LONE_SURROGATE)
        return match is not None

    _any_text(value, test)
    return found[0] if found else None


def _any_text(value, test) -> bool:
    if isinstance(value, str):
        return test(value)
    if isinstance(value, dict):
        return any(_any_text(k, test) or _any_text(v, test) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_any_text(v, test) for v in value)
    return False


def loads(text: str | bytes, **kwargs):
    """``json.loads``, with a too deeply nested document, a number too long for Python or a
    lone surrogate a ``json.JSONDecodeError``."""
    try:
        value = json.loads(text, **kwargs)
    except json.JSONDecodeError:
        raise
    except (RecursionError, ValueError) as exc:  # bytes that are not UTF-8 are a ValueError too
        message = (
            TOO_DEEP
            if isinstance(exc, RecursionError)
            else TOO_MANY_DIGITS
            if "integer string conversion" in str(exc)
            else str(exc)
        )
        raise json.JSONDecodeError(message, text if isinstance(text, str) else "", 0) from None
    if holds_lone_surrogate(value):
        raise json.JSONDecodeError(LONE_SURROGATE, text if isinstance(text, str) else "", 0)
    return value
