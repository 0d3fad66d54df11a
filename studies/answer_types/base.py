"""What every answer type says about itself: the one place a type's rules live.

A type is a small object with a key, labels and the rules the rest of the code
asks it for: how a key and an answer are read and checked, what an empty
answer is told, how a generator spec states its key, the hint a model prompt
needs, how a simulated participant answers and which templates draw its input.
Callers look a type up (:func:`studies.answer_types.get_type`) instead of
branching on its key. No Django import: the chart generator and the benchmark
reader use it too. The parsing rules a type applies are in :mod:`studies.answers`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext_lazy as _

from studies.answers import DEFAULT_TOLERANCE


class FormAnswerError(ValueError):
    """A form answer that cannot be taken: ``message`` for the participant, ``previous`` to show again."""

    def __init__(self, message: str, previous: dict | None = None):
        super().__init__(message)
        self.message = message
        self.previous = previous or {}


def distinct_options(items: list[str]) -> list[str]:
    """An attention check's options or items as typed, or ValueError with a message for the researcher."""
    if len(items) < 2:
        raise ValueError("List at least two options, one per line.")
    if len({o.casefold() for o in items}) != len(items):
        raise ValueError("Each option must be different.")
    return items


class BaseAnswerType:
    """An answer type; subclasses set the attributes and override the rules that differ."""

    key: str = ""
    # The label researchers choose from (model choices, forms, the API schema).
    label: str = ""
    # Names benchmark files use for the type; the first is the one written.
    written_names: tuple[str, ...] = ()
    # The author lists options (multiple choice) or items (ranking).
    has_options: bool = False
    options_label: str = "Options"
    # A relative tolerance applies to the check (shown beside the key).
    uses_tolerance: bool = False
    tolerance_unit: str = "%"
    # The participant orders the options (listed in each trial's own shuffled order).
    orders_items: bool = False
    # The JSON flow must report at least one interaction (a widget with a starting state).
    needs_interaction: bool = False
    no_interaction_message: str = _("Please give your answer before continuing.")
    no_interaction_detail: str = (
        "An answer given with no interaction cannot be taken (interactions >= 1)."
    )
    empty_message: str = _("Please give your answer.")
    prompt_hint: str = ""
    # How a researcher writes the key, and what the tolerance means (form help texts).
    key_help: str = ""
    tolerance_help: str = ""
    # What the JSON flow's `answer` is for this type (OpenAPI description).
    api_answer: str = ""

    # ------------------------------------------------------------ templates

    @property
    def participant_template(self) -> str:
        """The answer input of the participant trial page."""
        return f"participate/answers/{self.key}.html"

    @property
    def preview_template(self) -> str:
        """The answer input of the researcher's chart preview."""
        return f"studies/library/answers/{self.key}.html"

    # ------------------------------------------------------------ keys

    def question_options(self, options: Sequence[str], text: str) -> list[str]:
        """The options a question's answers are read against."""
        return list(options or [])

    def checked_key(self, answer_key: str, key_value: Any) -> Any:
        """The key a question's answers are checked against (the key as written by default)."""
        return answer_key

    def normalize_key(self, key, *, options: Sequence[str] | None = None) -> Any:
        """The key in its checked form; :class:`KeyFormatError` when it does not parse."""
        raise NotImplementedError

    def question_fields(self, text: str, key_value: Any, options: list[str]) -> dict:
        """Stored fields an authored question gets from its parsed key (see services.library.editing)."""
        return {"stem": text, "options": options}

    def same_key(self, a: Any, b: Any) -> bool:
        """Whether two parsed keys (of a pair's two charts) are the same key."""
        return a == b

    def imported_options(self, options: Sequence[str], key_value: Any) -> list[str]:
        """The options an imported question stores, from its read options and parsed key."""
        return list(options)

    def authored_options(self, text: str) -> list[str]:
        """Options an authored question reads from its text before its key is parsed."""
        return []

    def clean_check_options(self, items: list[str]) -> list[str]:
        """An attention check's options, or ValueError with a message for the researcher."""
        return []

    def check_key_matches_options(self, key_value: Any, options: list[str]) -> str:
        """'' when an attention check's key fits its options, else the message."""
        return ""

    def item_order(self, rng: random.Random, options: Sequence[str], key: Any) -> list[int]:
        """The order a trial first lists the options in (types that ``orders_items``)."""
        return list(range(len(options)))

    # ------------------------------------------------------------ answers

    def normalize_answer(self, answer, *, options: Sequence[str] | None = None) -> Any:
        """The answer as stored; :class:`AnswerFormatError` with a message for the participant."""
        raise NotImplementedError

    def validate_answer(self, value: Any, options: Sequence[str]) -> None:
        """Refuse a readable answer that still is not one (AnswerFormatError)."""

    def check(
        self,
        answer,
        key,
        *,
        options: Sequence[str] | None = None,
        tolerance: float = DEFAULT_TOLERANCE,
    ) -> bool:
        raise NotImplementedError

    def answer_error(self, value: Any, key: Any) -> float | None:
        """The answer's absolute distance from the key, for types that measure one (else None)."""
        return None

    def read_form(self, post: Mapping[str, str], options: Sequence[str]) -> tuple[Any, dict]:
        """(the answer from the participant's form, what to show again); FormAnswerError."""
        raise NotImplementedError

    def read_preview(self, post: Mapping[str, str], question) -> tuple[Any, str]:
        """(answer, the answer as written) from the researcher's chart preview form.

        The key it is checked against is :func:`studies.answer_types.question_key`'s.
        """
        written = post.get("answer", "")
        return written, written

    def preview_state(self, post: Mapping[str, str], question) -> dict:
        """Context the preview's answer input needs to show a posted answer again."""
        return {}

    def display(self, value: Any, options: Sequence[str]) -> str:
        """A stored answer as the researcher reads it."""
        if isinstance(value, list):
            return " > ".join(str(v) for v in value)
        return f"{value:g}" if isinstance(value, float) else str(value)

    def key_text(self, answer_key: str, key: Any, options: Sequence[str]) -> str:
        """The key as researchers read it beside the answers: as written by default."""
        return answer_key

    def answer_text(self, raw: str, value: Any, options: Sequence[str]) -> str:
        """An answer as the results list it beside the key: as given by default (a free-text
        answer keeps its words, "1.2 million")."""
        return raw

    def prompt_text(self, text: str, stem: str) -> str:
        """The question as a trial shows it."""
        return text

    # ------------------------------------------------------------ generator spec

    def spec_answer(self, raw: Mapping[str, Any], question: str, data, c) -> tuple[str, tuple]:
        """(key as text, options) from a generator spec; problems go to the collector ``c``."""
        raise NotImplementedError

    def spec_question_parts(self, spec) -> tuple[str, str, list[str], str, Any]:
        """(text as shown, stem, options, key as written, key in its checked form)."""
        return spec.question, spec.question, [], spec.answer, self.normalize_key(spec.answer)

    # ------------------------------------------------------------ simulation

    def model_replies(self, options: Sequence[str], key: Any, question) -> tuple[str, str]:
        """(a right reply, a wrong reply) as a model would write them (the demo's model answers)."""
        return question.answer_key, "-123456789"

    def simulate(self, options: Sequence[str], key: Any, *, correct: bool, rng: random.Random):
        """An answer of the kind a participant would give, right or wrong as asked."""
        raise NotImplementedError
