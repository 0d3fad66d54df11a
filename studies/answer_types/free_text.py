"""Free text (a number): correct within a relative tolerance of the key (CHARTOM: +/-10%)."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from studies import answers
from studies.answers import quantities

from .base import BaseAnswerType


class FreeText(BaseAnswerType):
    key = "free_text"
    label = "Free text (number)"
    written_names = ("free text", "free text entry")
    uses_tolerance = True
    empty_message = answers.NUMBER_HELP
    key_help = "Free text: a number, which may carry a unit (1.2 million)."
    tolerance_help = "A fraction of the key: 0.1 accepts answers within ±10%."
    prompt_hint = "Reply with only one number."
    api_answer = 'Free text: the number as typed, e.g. "1.2 million".'

    def normalize_key(self, key, *, options=None):
        return quantities.parse_key(key)

    def normalize_answer(self, answer, *, options=None):
        return quantities.parse_number(answer)

    def check(self, answer, key, *, options=None, tolerance=answers.DEFAULT_TOLERANCE):
        # The key as written ("1.2 million"), so the scale-word rule applies.
        return quantities.check_free_text(answer, key, tolerance)

    def read_form(self, post: Mapping[str, str], options: Sequence[str]) -> tuple[Any, dict]:
        text = post.get("number", "")[:2000]
        return text, {"number": text}

    def spec_answer(self, raw, question, data, c):
        answer_raw = raw.get("answer")
        if raw.get("options") is not None:
            c.add("options", "only multiple_choice questions have options")
        try:
            number = float(answer_raw) if not isinstance(answer_raw, bool) else math.nan
        except (TypeError, ValueError):
            number = math.nan
        if not math.isfinite(number):
            c.add("answer", "a free_text answer key must be a number")
            return "", ()
        text = (
            quantities.format_number(answer_raw)
            if quantities.is_number(answer_raw)
            else str(answer_raw).strip()
        )
        return text, ()

    def simulate(self, options, key, *, correct: bool, rng: random.Random):
        if correct:
            return str(key)
        return f"{quantities.parse_key(key) * 2.5 + 3:g}"


ANSWER_TYPE = FreeText()
