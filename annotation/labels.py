"""The shape of a label set: one list of category keys per sentence.

Shared by imports (reference labels), drafts and submits, so every way in checks
labels the same way. No Django import.
"""

from __future__ import annotations

from collections.abc import Collection


class LabelProblem(ValueError):
    """Labels that do not fit the caption or the project's categories."""


def clean_labels(labels, *, sentences: int, keys: Collection[str]) -> list[list[str]]:
    """Check ``labels`` and return them with each sentence's keys in category order.

    ``keys`` are the project's category keys in display order. Raises
    :class:`LabelProblem` with a message that names the sentence and the value.
    """
    if not isinstance(labels, list):
        raise LabelProblem("Labels must be a list with one list of categories per sentence.")
    if len(labels) != sentences:
        raise LabelProblem(
            f"The caption has {sentences} sentence{'s' if sentences != 1 else ''} "
            f"but {len(labels)} label list{'s were' if len(labels) != 1 else ' was'} given."
        )
    order = {key: n for n, key in enumerate(keys)}
    cleaned = []
    for index, sentence_labels in enumerate(labels, start=1):
        if not isinstance(sentence_labels, list):
            raise LabelProblem(f"Sentence {index}: labels must be a list of category names.")
        for value in sentence_labels:
            if not isinstance(value, str) or value not in order:
                raise LabelProblem(
                    f"Sentence {index}: unknown category {value!r}; use one of {', '.join(keys)}."
                )
        repeated = sorted({v for v in sentence_labels if sentence_labels.count(v) > 1})
        if repeated:
            # A set of categories: a repeat would be dropped, and input is never dropped
            # without a word (a client that sends one may believe it counts twice).
            raise LabelProblem(
                f"Sentence {index}: {', '.join(repeated)} given more than once; give each "
                "category once."
            )
        cleaned.append(sorted(sentence_labels, key=order.__getitem__))
    return cleaned
