"""Split machine-written chart captions into the sentences annotators label.

Captions are full of periods that do not end a sentence: decimals ("20.4%"),
country abbreviations ("U.S."), Latin abbreviations ("e.g.", "vs."), titles
("Dr."). The splitter is a few explicit rules rather than a trained model so
that the same caption always yields the same sentences, which the stored
sentence indices of labels depend on.

No Django import: caption imports and analysis scripts use it without settings.
"""

from __future__ import annotations

import re

__all__ = ["split_sentences"]

# Abbreviations that are never the last word of a sentence in practice.
_NEVER_FINAL = frozenset(
    {
        "mr.", "mrs.", "ms.", "dr.", "prof.", "rev.", "gen.", "sen.", "rep.", "gov.", "hon.",
        "vs.", "v.", "e.g.", "i.e.", "cf.", "approx.", "ca.", "fig.", "figs.", "eq.", "no.",
        "nos.", "vol.", "pp.", "est.", "incl.", "excl.", "resp.",
    }
)  # fmt: skip

# Abbreviations that may also close a sentence ("... in the U.S. The share ...").
_MAYBE_FINAL = frozenset(
    {
        "etc.", "inc.", "ltd.", "co.", "corp.", "jr.", "sr.", "st.", "bn.", "mn.", "pct.",
        "jan.", "feb.", "mar.", "apr.", "jun.", "jul.", "aug.", "sep.", "sept.", "oct.",
        "nov.", "dec.",
    }
)  # fmt: skip

# After an ambiguous abbreviation only a typical sentence opener starts a new
# sentence: "the U.S. Census Bureau" stays whole, "the U.S. The share" splits.
_OPENERS = frozenset(
    {
        "A", "An", "The", "This", "That", "These", "Those", "There", "It", "Its", "They",
        "Their", "We", "Our", "He", "She", "In", "On", "At", "By", "For", "From", "Of", "To",
        "With", "As", "After", "Before", "During", "Between", "Since", "Over", "Under",
        "Meanwhile", "However", "Overall", "Also", "Additionally", "Moreover", "Furthermore",
        "Similarly", "Conversely", "Finally", "Then", "Both", "Each", "All", "Most", "Some",
        "While", "Although", "When", "If", "But", "And", "Yet", "So", "Notably", "Here",
        "Interestingly", "Compared",
    }
)  # fmt: skip

_DOTTED = re.compile(r"^(?:[a-z]\.){2,}$")  # u.s., e.u., a.m.
_INITIAL = re.compile(r"^[a-z]\.$")  # J. K. Rowling, group B.
# Sentence-ending punctuation, closing quotes or brackets, then whitespace.
_BOUNDARY = re.compile(r"(?:\.{3}|…|[.!?])+[\"'”’»)\]]*(?=\s)")
_LAST_WORD = re.compile(r"(?<![0-9])[A-Za-z.]*$")  # "1990s." and "$30k." are not abbreviations
_OPENING = "\"'“‘«([{"
_SPACE = re.compile(r"\s+")


def _ends_sentence(text: str, start: int, end: int) -> bool:
    """Whether the punctuation at text[start:end] closes a sentence."""
    following = text[end:].lstrip()
    if not following:
        return True
    next_word = following.split(None, 1)[0].lstrip(_OPENING)
    next_char = next_word[:1]
    punctuation = text[start:end].rstrip("\"'”’»)]")
    if punctuation == ".":
        # "2017-Aug." and "(U.S." are judged by their last word: "aug.", "u.s.".
        word = _LAST_WORD.search(text[:end].rstrip("\"'”’»)]")).group().lower()
        if word in _NEVER_FINAL:
            return False
        if word in _MAYBE_FINAL or _DOTTED.match(word) or _INITIAL.match(word):
            return next_word.rstrip(",;:") in _OPENERS
    # A new sentence starts with a capital, a digit or a quote, never lowercase.
    return not next_char.islower()


def _split_text(text: str) -> list[str]:
    sentences = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        if _ends_sentence(text, match.start(), match.end()):
            sentences.append(text[start : match.end()])
            start = match.end()
    sentences.append(text[start:])
    return sentences


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into trimmed sentences; whitespace runs inside one become single spaces.

    Only punctuation ends a sentence: line breaks, blank lines included, are
    whitespace, so a heading such as "Key findings:" stays with the sentence
    that follows, as in the CHOCOLATE release. Empty or blank text gives ``[]``.
    """
    if not text or not text.strip():
        return []
    cleaned = (_SPACE.sub(" ", sentence).strip() for sentence in _split_text(text))
    return [sentence for sentence in cleaned if sentence]
