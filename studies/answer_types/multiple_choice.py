"""Multiple choice: correct when the participant picks the keyed option."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from studies import answers
from studies.answers import choices

from .base import BaseAnswerType, distinct_options


class MultipleChoice(BaseAnswerType):
    key = "multiple_choice"
    label = "Multiple choice"
    written_names = ("multiple choice",)
    has_options = True
    empty_message = answers.CHOICE_HELP
    key_help = "Multiple choice: the option's number or text."
    prompt_hint = "Reply with only the number of the option you choose."
    api_answer = "Multiple choice: the 0-based option index (or the option's text)."

    # ------------------------------------------------------------ keys

    def question_options(self, options, text):
        # Imported questions may keep their options only in the text ("1. ... 2. ...").
        return list(options or []) or choices.parse_options(text)

    def checked_key(self, answer_key, key_value):
        # The parsed option index when there is one; the written key otherwise.
        if isinstance(key_value, int) and not isinstance(key_value, bool):
            return key_value
        return answer_key

    def normalize_key(self, key, *, options=None):
        if isinstance(key, int) and not isinstance(key, bool):
            if options and 0 <= key < len(options):
                return key
            raise answers.KeyFormatError(f"The key index {key!r} is not one of the options.")
        return choices.resolve_choice_key(key, options or [])

    def authored_options(self, text):
        options = choices.parse_options(text)
        if len(options) < 2:
            raise ValueError(
                "A multiple-choice question lists its options in its text: 1. … 2. … 3. …"
            )
        return options

    def question_fields(self, text, key_value, options):
        return {"stem": choices.question_stem(text), "options": options}

    def clean_check_options(self, items):
        return distinct_options(items)

    # ------------------------------------------------------------ answers

    def normalize_answer(self, answer, *, options=None):
        return choices.choice_index(answer, _require_options(options))

    def check(self, answer, key, *, options=None, tolerance=answers.DEFAULT_TOLERANCE):
        opts = _require_options(options)
        key_index = (
            key
            if isinstance(key, int) and not isinstance(key, bool)
            else choices.resolve_choice_key(key, opts)
        )
        return choices.check_multiple_choice(answer, key_index, opts)

    def read_form(self, post: Mapping[str, str], options: Sequence[str]) -> tuple[Any, dict]:
        raw = post.get("choice", "")
        if raw.isdigit() and int(raw) < len(options):
            return int(raw), {"choice": int(raw)}
        return None, {}

    def read_preview(self, post, question):
        written = post.get("answer", "")
        if not written.isdigit():
            raise answers.AnswerFormatError(answers.CHOICE_HELP)
        return int(written), written

    def display(self, value, options):
        if isinstance(value, int) and value < len(options):
            return f"{value + 1}. {options[value]}"
        return super().display(value, options)

    def key_text(self, answer_key, key, options):
        # The keyed option as the answers are listed, "2. Decreased", however the key was
        # written (its number, its text or both).
        try:
            index = self.normalize_key(key, options=options)
        except answers.KeyFormatError:
            return answer_key
        return self.display(index, options)

    def answer_text(self, raw, value, options):
        # A choice is stored as its 0-based index and arrives as an index or as text; the
        # raw form would read "1" for the second option beside a key "2".
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(options):
            return self.display(value, options)
        return raw

    def prompt_text(self, text, stem):
        return stem or choices.question_stem(text)

    # ------------------------------------------------------------ generator spec

    def spec_answer(self, raw, question, data, c):
        answer_raw = raw.get("answer")
        options = _spec_options(raw.get("options"), question, c)
        key = str(answer_raw).strip() if isinstance(answer_raw, int | str) else ""
        if not options:
            return "", ()
        if not key.isdigit() or not 1 <= int(key) <= len(options):
            c.add("answer", f"expected an option number from 1 to {len(options)}")
            return "", options
        return str(int(key)), options

    def spec_question_parts(self, spec):
        # Read as the participant page reads it, so the spec's options are the ones shown.
        stem = choices.question_stem(spec.question)
        embedded = choices.parse_options(spec.question)
        options = list(spec.options or embedded)
        if embedded:
            text = spec.question
        else:
            text = "\n".join([spec.question, *(f"{i}. {o}" for i, o in enumerate(options, 1))])
        number = int(spec.answer)
        key = f"{number}. {options[number - 1]}"
        if choices.parse_options(text) != options:
            # The participant page lists parsed options; they must be the spec's.
            text = "\n".join([stem, *(f"{i}. {o}" for i, o in enumerate(options, 1))])
        # The written key must resolve to the same option (a generator bug otherwise).
        self.normalize_key(key, options=options)
        return text, stem, options, key, number - 1

    # ------------------------------------------------------------ simulation

    def model_replies(self, options, key, question):
        if not options:
            return super().model_replies(options, key, question)
        index = self.normalize_key(key, options=options)
        return options[index], options[(index + 1) % len(options)]

    def simulate(self, options, key, *, correct: bool, rng: random.Random):
        right = self.normalize_key(key, options=options)
        if correct or len(options) < 2:
            return right
        return rng.choice([i for i in range(len(options)) if i != right])


def _require_options(options):
    if not options:
        raise ValueError("A multiple-choice question needs its options.")
    return list(options)


def _spec_options(raw_options: Any, question: str, c) -> tuple[str, ...]:
    embedded = tuple(choices.parse_options(question))
    if raw_options is None:
        if len(embedded) < 2:
            c.add("question", "multiple_choice needs options embedded as '1. ... 2. ...'")
        return embedded
    if not (
        isinstance(raw_options, list)
        and len(raw_options) >= 2
        and all(isinstance(o, str) and o.strip() for o in raw_options)
    ):
        c.add("options", "expected a list of at least two non-empty strings")
        return ()
    options = tuple(o.strip() for o in raw_options)
    if embedded and [answers.norm_item(o) for o in embedded] != [
        answers.norm_item(o) for o in options
    ]:
        c.add("options", "differ from the options embedded in the question text")
    return options


ANSWER_TYPE = MultipleChoice()
