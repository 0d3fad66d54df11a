"""Proportion: a percentage judged on a 0-100 slider (Cleveland and McGill, 1984).

The slider has no starting position: its handle appears where the participant
first touches it, so no value is ever submitted that they did not set. An
answer is correct within the question's tolerance, read as a fraction of the
0-100 scale (0.05 = within 5 points); the absolute error in points is stored
beside the answer, the measure graphical-perception studies analyse.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext_lazy as _

from studies import answers
from studies.answers import quantities

from .base import BaseAnswerType

SCALE = 100.0
SLIDER_HELP = _("Please move the slider to your estimate, from 0 to 100.")


def _on_scale(value: float) -> bool:
    return math.isfinite(value) and 0 <= value <= SCALE


class Proportion(BaseAnswerType):
    key = "proportion"
    label = "Proportion (0–100 slider)"
    written_names = ("proportion", "slider", "proportion slider", "percentage")
    uses_tolerance = True
    tolerance_unit = " points"
    needs_interaction = True
    no_interaction_message = _("Please move the slider to your estimate, then continue.")
    no_interaction_detail = (
        "A slider answer needs at least one reported interaction (interactions >= 1)."
    )
    empty_message = SLIDER_HELP
    key_help = "Proportion: the true percentage, from 0 to 100 (35)."
    tolerance_help = "For a proportion, a fraction of the 0–100 scale: 0.05 accepts ±5 points."
    prompt_hint = "Reply with only one number from 0 to 100 (a percentage)."
    api_answer = "Proportion: the slider's value, a number from 0 to 100."

    def normalize_key(self, key, *, options=None):
        value = quantities.parse_key(key)
        if not _on_scale(value):
            raise answers.KeyFormatError(
                f"The proportion key {key!r} is not on the 0–100 scale (write e.g. 35)."
            )
        return value

    def normalize_answer(self, answer, *, options=None):
        try:
            value = quantities.parse_number(answer)
        except answers.AnswerFormatError:
            raise answers.AnswerFormatError(SLIDER_HELP) from None
        if not _on_scale(value):
            raise answers.AnswerFormatError(SLIDER_HELP)
        return value

    def points(self, tolerance: float) -> float:
        """The tolerance in points of the 0-100 scale."""
        return tolerance * SCALE

    def answer_error(self, value: Any, key: Any) -> float | None:
        try:
            return round(abs(float(value) - self.normalize_key(key)), 6)
        except (TypeError, ValueError):
            return None

    def check(self, answer, key, *, options=None, tolerance=answers.DEFAULT_TOLERANCE):
        key_value = self.normalize_key(key)
        value = self.normalize_answer(answer)
        # A small epsilon so that exactly the stated tolerance counts despite float error.
        return abs(value - key_value) <= self.points(tolerance) + 1e-9

    def read_form(self, post: Mapping[str, str], options: Sequence[str]) -> tuple[Any, dict]:
        # Empty until the participant moves the slider (static/js/proportion.js).
        text = post.get("proportion", "").strip()[:20]
        return text, {"proportion": text}

    def display(self, value, options):
        return f"{value:g}%" if isinstance(value, float | int) else str(value)

    def spec_answer(self, raw, question, data, c):
        answer_raw = raw.get("answer")
        if raw.get("options") is not None:
            c.add("options", "only multiple_choice questions have options")
        if not quantities.is_number(answer_raw) or not _on_scale(float(answer_raw)):
            c.add("answer", "a proportion answer key is a number from 0 to 100")
            return "", ()
        return quantities.format_number(answer_raw), ()

    def model_replies(self, options, key, question):
        return question.answer_key, self.simulate(options, key, correct=False, rng=random.Random(0))

    def simulate(self, options, key, *, correct: bool, rng: random.Random):
        value = self.normalize_key(key)
        if correct:
            return f"{value:g}"
        # Far enough off to miss any tolerance up to 15 points.
        wrong = value + 30 if value <= 50 else value - 30
        return f"{wrong:g}"


ANSWER_TYPE = Proportion()
