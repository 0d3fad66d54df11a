"""Multiple choice: the options numbered in a question's text, and which option an answer names."""

from __future__ import annotations

import re
from collections.abc import Sequence

from studies.answers import (
    CHOICE_HELP,
    AnswerFormatError,
    KeyFormatError,
    clean_text,
    norm_item,
    normalize_line_breaks,
)

# "1." / "1)" / "(1)" starting an option: at the start of the text or a line,
# after whitespace or after the question's closing punctuation.
_OPTION_MARKER = re.compile(
    r"(?:(?<=[\s?:!;])|^)(?:\((?P<paren>\d{1,2})\)|(?P<num>\d{1,2})(?P<style>[.)]))(?=\s)",
    re.MULTILINE,
)


def _marker_style(match: re.Match) -> str:
    return "()" if match.group("paren") else match.group("style")


def _marker_number(match: re.Match) -> int:
    return int(match.group("paren") or match.group("num"))


def _find_option_markers(text: str) -> list[re.Match]:
    markers = list(_OPTION_MARKER.finditer(text))
    # Options are a run "1.", "2.", "3." ... in one style; following the run
    # rather than taking every "2." keeps numbers inside option texts ("1. 2018
    # 2. 2022 3. 2018 and 2022 were the same.") intact. Of several runs the
    # longest wins, then the last, since a stray "1." is likelier in the stem.
    best: list[re.Match] = []
    for i, start in enumerate(markers):
        if _marker_number(start) != 1:
            continue
        chain = [start]
        for candidate in markers[i + 1 :]:
            if _marker_number(candidate) == len(chain) + 1 and _marker_style(
                candidate
            ) == _marker_style(start):
                chain.append(candidate)
        if len(chain) >= 2 and len(chain) >= len(best):
            best = chain
    return best


def parse_options(question_text: str) -> list[str]:
    """The numbered options listed in a multiple-choice question, in order.

    Options are written "1. ...", "1) ..." or "(1) ...", on one line or
    separated by newlines or a literal "/n". Fewer than two options means the
    text lists none, and ``[]`` is returned.
    """
    text = normalize_line_breaks(question_text)
    markers = _find_option_markers(text)
    if not markers:
        return []
    options = []
    for marker, following in zip(markers, [*markers[1:], None], strict=True):
        end = following.start() if following else len(text)
        options.append(" ".join(text[marker.end() : end].split()))
    return options


def question_stem(question_text: str) -> str:
    """The question without its numbered options (the whole text when it has none)."""
    text = normalize_line_breaks(question_text)
    markers = _find_option_markers(text)
    stem = text[: markers[0].start()] if markers else text
    return "\n".join(line.rstrip() for line in stem.strip().splitlines())


_NUMBERED_CHOICE = re.compile(r"\(?(?P<n>\d{1,3})\s*[.)]?\)?(?:\s+(?P<rest>.*))?", re.DOTALL)


def _resolve_choice(value: str, options: Sequence[str]) -> tuple[int | None, str | None]:
    """(index, problem) for a choice written as an option number, its text, or both."""
    wanted = norm_item(value)
    if not wanted:
        return None, "empty"
    normalised = [norm_item(o) for o in options]
    by_text = [i for i, o in enumerate(normalised) if o == wanted]
    if len(by_text) > 1:
        return None, "duplicate"

    by_number = None
    match = _NUMBERED_CHOICE.fullmatch(clean_text(value).strip())
    if match:
        n = int(match.group("n"))
        rest = match.group("rest")
        if 1 <= n <= len(options) and (rest is None or norm_item(rest) == normalised[n - 1]):
            by_number = n - 1

    if by_text and by_number is not None and by_text[0] != by_number:
        return None, "ambiguous"
    if by_text:
        return by_text[0], None
    if by_number is not None:
        return by_number, None
    return None, "missing"


def resolve_choice_key(key, options: Sequence[str]) -> int:
    """Index (0-based) of the keyed option.

    The key may be the option's number as printed ("2", "2.", "(2)"), its text
    ("It has decreased" - case, spacing and a trailing period don't count) or
    both ("2. It has decreased."). A key that reads both as one option's number
    and another option's text (key "2" with options "2", "3") is refused as
    ambiguous rather than guessed.
    """
    if isinstance(key, bool):
        raise KeyFormatError(f"The answer key {key!r} is not an option.")
    options = list(options)
    if not options:
        raise KeyFormatError(
            "The question lists no numbered options (write them as 1. ... 2. ...)."
        )
    index, problem = _resolve_choice(str(key), options)
    if index is not None:
        return index
    listed = "; ".join(f"{i}. {o}" for i, o in enumerate(options, start=1))
    if problem == "ambiguous":
        raise KeyFormatError(
            f"The answer key {key!r} is both an option number and another option's text; "
            f"write the number and the text together, e.g. '2. <option text>'. Options: {listed}"
        )
    if problem == "duplicate":
        raise KeyFormatError(
            f"The answer key {key!r} matches more than one option. Options: {listed}"
        )
    raise KeyFormatError(
        f"The answer key {key!r} is neither an option number (1-{len(options)}) "
        f"nor the text of an option. Options: {listed}"
    )


def choice_index(answer, options: Sequence[str]) -> int:
    """Index (0-based) of a participant's or model's choice.

    An ``int`` is taken as the 0-based index a form posts; text is read like a
    key: the printed option number ("2"), the option's text, or both.
    """
    options = list(options)
    if isinstance(answer, bool):
        raise AnswerFormatError(CHOICE_HELP)
    if isinstance(answer, int):
        if 0 <= answer < len(options):
            return answer
        raise AnswerFormatError(CHOICE_HELP)
    if not isinstance(answer, str):
        raise AnswerFormatError(CHOICE_HELP)
    index, _ = _resolve_choice(answer, options)
    if index is None:
        raise AnswerFormatError(CHOICE_HELP)
    return index


def check_multiple_choice(answer, key_index: int, options: Sequence[str]) -> bool:
    """Whether the answer is the keyed option; see :func:`choice_index` for the answer's forms."""
    options = list(options)
    if (
        isinstance(key_index, bool)
        or not isinstance(key_index, int)
        or not 0 <= key_index < len(options)
    ):
        raise KeyFormatError(
            f"The key index {key_index!r} is not one of the {len(options)} options."
        )
    return choice_index(answer, options) == key_index
