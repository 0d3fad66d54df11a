"""The answer types, one module each, and the lookup by key.

Adding a type: write a module here with a :class:`BaseAnswerType` subclass and
``ANSWER_TYPE = YourType()``, name it in ``_MODULES``, and add its two answer
templates (see the README, "Adding an answer type").
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import import_module

from studies.answers import DEFAULT_TOLERANCE

from .base import BaseAnswerType, FormAnswerError

# Order is the order researchers see in choice lists.
_MODULES = ("multiple_choice", "free_text", "ranking", "proportion")

REGISTRY: dict[str, BaseAnswerType] = {}
for _name in _MODULES:
    _type = import_module(f"{__name__}.{_name}").ANSWER_TYPE
    REGISTRY[_type.key] = _type

KEYS: tuple[str, ...] = tuple(REGISTRY)


class UnknownAnswerType(ValueError):
    pass


def get_type(key: str) -> BaseAnswerType:
    """The answer type registered under ``key``; :class:`UnknownAnswerType` otherwise."""
    try:
        return REGISTRY[key]
    except (KeyError, TypeError):
        raise UnknownAnswerType(f"Unknown answer type {key!r}; expected one of {KEYS}.") from None


def all_types() -> list[BaseAnswerType]:
    return list(REGISTRY.values())


def choices() -> list[tuple[str, str]]:
    """(key, label) pairs for model fields, forms and serializers."""
    return [(t.key, t.label) for t in REGISTRY.values()]


def from_written_name(words: str) -> str | None:
    """The key for a name as benchmark files write it ("free text entry"), or None."""
    for t in REGISTRY.values():
        if words in t.written_names:
            return t.key
    return None


# --------------------------------------------------------------------- by type
# The entry points every caller uses to read, normalise and check an answer or key
# of a given type; each looks the type up and applies its rule.


def question_key(question) -> tuple[list[str], object]:
    """(options, key) that a question's answers are checked against, wherever they are checked.

    The one entry point for every caller (participant flows, preview, model answers,
    exports); the rule itself is the type's (``question_options`` and ``checked_key``,
    e.g. the multiple-choice fallback to options numbered in the text). ``question``
    has ``answer_type``, ``text``, ``options``, ``answer_key`` and ``key_value``.
    """
    kind = get_type(question.answer_type)
    options = kind.question_options(question.options or [], question.text)
    return options, kind.checked_key(question.answer_key, question.key_value)


def key_text(question) -> str:
    """A question's key as researchers read it beside the answers (a multiple-choice key as
    its numbered option, "2. Decreased"); ``question`` as for :func:`question_key`."""
    options, key = question_key(question)
    return get_type(question.answer_type).key_text(question.answer_key, key, options)


def answer_text(question, raw: str, value) -> str:
    """A stored answer (``raw`` as given, ``value`` as read) as researchers read it beside
    :func:`key_text`: the same way as the key, so a choice is never a 0-based index."""
    options, _key = question_key(question)
    return get_type(question.answer_type).answer_text(raw, value, options)


def normalize_key(answer_type: str, key, *, options: Sequence[str] | None = None):
    """A key in its checked form: a number, an option index or a list of items.

    Raises :class:`KeyFormatError` when the key does not parse for its type.
    """
    return get_type(answer_type).normalize_key(key, options=options)


def normalize_answer(answer_type: str, answer, *, options: Sequence[str] | None = None):
    """An answer in the form stored with a response: a float, an option index or a list of items.

    Raises :class:`AnswerFormatError` (with a message for the participant).
    """
    return get_type(answer_type).normalize_answer(answer, options=options)


def check_answer(
    answer_type: str,
    answer,
    key,
    *,
    options: Sequence[str] | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
) -> bool:
    """Whether ``answer`` is correct for ``key`` under the rule of ``answer_type``.

    For free text pass the key as written ("1.2 million") rather than a parsed
    float, so the scale-word rule of :func:`studies.answers.quantities.check_free_text` can apply. A
    multiple-choice key may be an option index (``int``, 0-based) or text read
    by :func:`studies.answers.choices.resolve_choice_key`.
    """
    return get_type(answer_type).check(answer, key, options=options, tolerance=tolerance)


__all__ = [
    "KEYS",
    "REGISTRY",
    "BaseAnswerType",
    "FormAnswerError",
    "UnknownAnswerType",
    "all_types",
    "answer_text",
    "check_answer",
    "choices",
    "from_written_name",
    "get_type",
    "key_text",
    "normalize_answer",
    "normalize_key",
    "question_key",
]
