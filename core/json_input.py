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

TOO_DEEP = "the JSON is nested too deeply"
# Python reads at most 4300 digits into an int (a guard against slow conversions) and says
# so with a ValueError that is no JSONDecodeError: it too was a 500.
TOO_MANY_DIGITS = "a number in the JSON has more than 4300 digits"


def loads(text: str | bytes, **kwargs):
    """``json.loads``, with a too deeply nested document or a number too long for Python
    a ``json.JSONDecodeError``."""
    try:
        return json.loads(text, **kwargs)
    except json.JSONDecodeError:
        raise
    except (RecursionError, ValueError) as exc:
        message = TOO_DEEP if isinstance(exc, RecursionError) else TOO_MANY_DIGITS
        raise json.JSONDecodeError(message, text if isinstance(text, str) else "", 0) from None
