"""Rankings: the items of a ranking as written, and the all-in-place rule."""

from __future__ import annotations

import re
from collections.abc import Sequence

from studies.answers import (
    RANKING_HELP,
    AnswerFormatError,
    KeyFormatError,
    clean_text,
    norm_item,
    normalize_line_breaks,
)

# The strongest separator present wins, so an item may contain a comma
# ("Apple, Inc.") when the ranking is written with ">" or one item per line.
_RANK_ARROW = re.compile(r"\s*(?:-+>|=>|\u2192|>)\s*")
_RANK_NUMBERING = re.compile(r"^(?:\(\d{1,2}\)|\d{1,2}[.)])\s+")


def parse_ranking(text) -> list[str]:
    """Items of a ranking in order, as written (numbering like "1." stripped).

    Separators: ">" (also "->", "=>", "→") and line breaks (including a literal
    "/n"); when neither appears, commas.
    """
    if isinstance(text, str):
        raw = normalize_line_breaks(clean_text(text))
        if _RANK_ARROW.search(raw) or "\n" in raw.strip():
            parts = [p for line in raw.split("\n") for p in _RANK_ARROW.split(line)]
        else:
            parts = raw.split(",")
    elif isinstance(text, Sequence):
        parts = [clean_text(str(p)) for p in text]
    else:
        raise AnswerFormatError(RANKING_HELP)
    items = []
    for part in parts:
        item = _RANK_NUMBERING.sub("", " ".join(part.split())).strip(" ,;")
        if item:
            items.append(item)
    if not items:
        raise AnswerFormatError(RANKING_HELP)
    return items


def check_ranking(answer_items, key_items) -> bool:
    """Correct only when every item is in its keyed place (case and spacing don't count).

    Both sides may be lists or text in any form :func:`parse_ranking` reads.
    """
    answer = [norm_item(i) for i in parse_ranking(answer_items)]
    try:
        key = [norm_item(i) for i in parse_ranking(key_items)]
    except AnswerFormatError:
        raise KeyFormatError("The ranking key lists no items.") from None
    return answer == key
