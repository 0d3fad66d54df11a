"""The answer types, one module each, and the lookup by key.

Adding a type: write a module here with a :class:`BaseAnswerType` subclass and
``ANSWER_TYPE = YourType()``, name it in ``_MODULES``, and add its two answer
templates (see the README, "Adding an answer type").
"""

from __future__ import annotations

from importlib import import_module

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


__all__ = [
    "KEYS",
    "REGISTRY",
    "BaseAnswerType",
    "FormAnswerError",
    "UnknownAnswerType",
    "all_types",
    "choices",
    "from_written_name",
    "get_type",
]
