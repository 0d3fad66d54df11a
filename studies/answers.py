"""Checking answers to FACT questions (CHARTOM, section 4.1).

The same rules score participants and, later, model answers, so they live here
as plain functions with no Django import.

The parsing and checking rules of the answer types are here; which rule a
type uses is said by its module in :mod:`studies.answer_types`. A
multiple-choice answer is correct when it is the keyed option; a ranking is
correct only when every item is in its keyed place; a free-text number is
correct when it lies within +/-10% of the key, i.e. in ``[0.9a, 1.1a]`` for a
key ``a``.

Parsing errors come in two kinds: :class:`AnswerFormatError` carries a message
meant for the participant (show it and ask again), :class:`KeyFormatError` one
meant for the researcher who wrote the key.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation, localcontext

DEFAULT_TOLERANCE = 0.10

NUMBER_HELP = "Please enter a number, like 42 or 3.5."
SINGLE_NUMBER_HELP = "Please enter just one number, like 42 or 3.5 (we found {found})."
CHOICE_HELP = "Please choose one of the options."
RANKING_HELP = "Please list the items in order, separated by commas or >, e.g. A, B, C."


class AnswerFormatError(ValueError):
    """An answer could not be read; ``message`` can be shown to the participant."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class KeyFormatError(ValueError):
    """An answer key could not be read; ``message`` is meant for the researcher."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


# --------------------------------------------------------------------------- text


def _clean(text: str) -> str:
    # NFKC folds full-width digits, non-breaking spaces and similar look-alikes
    # that phones and word processors insert into what looks like plain text.
    text = unicodedata.normalize("NFKC", text)
    return (
        text.replace("\u2212", "-")  # typographic minus
        .replace("\u2018", "'")
        .replace("\u2019", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
    )


def norm_item(text: str) -> str:
    """Comparison form of an option or ranking item: ignores case, spacing, a final period."""
    text = _clean(str(text)).casefold()
    text = " ".join(text.split())
    return text.rstrip(" .,;").strip()


# The released question files separate lines with a literal "/n" (and some
# tools write "\n" escaped). Inside a word, as in "yes/no" or "and/nor", the
# same two characters are ordinary text, so they are only read as a line break
# when they are not squeezed between a letter and a lower-case letter.
_LITERAL_BREAK = re.compile(r"(?<![A-Za-z])[/\\]n|[/\\]n(?![a-z])")


def normalize_line_breaks(text: str) -> str:
    """Turn CR/LF variants and literal ``/n`` separators into ``\\n``."""
    text = str(text).replace("\r\n", "\n").replace("\r", "\n")
    return _LITERAL_BREAK.sub("\n", text)


# ------------------------------------------------------------------------ numbers


@dataclass(frozen=True)
class Quantity:
    """A number as written: ``value == mantissa * scale``.

    ``has_scale`` records whether a scale word ("million", "k", ...) was
    written, which :func:`check_free_text` needs to apply its unit rule.
    """

    value: Decimal
    mantissa: Decimal
    scale: Decimal = Decimal(1)
    has_scale: bool = False
    percent: bool = False


_SCALE_WORDS = {
    "hundred": Decimal(10) ** 2,
    "thousand": Decimal(10) ** 3,
    "k": Decimal(10) ** 3,
    "million": Decimal(10) ** 6,
    "mil": Decimal(10) ** 6,
    "mln": Decimal(10) ** 6,
    "mn": Decimal(10) ** 6,
    "m": Decimal(10) ** 6,
    "billion": Decimal(10) ** 9,
    "bn": Decimal(10) ** 9,
    "b": Decimal(10) ** 9,
    "trillion": Decimal(10) ** 12,
    "tn": Decimal(10) ** 12,
}

# Single letters ("2.5k", "$1.2m", "3B") are scale suffixes only when glued to
# the number; written apart ("12 m", "3 t") they are far more likely a unit.
_ATTACHED_SCALE = r"(?P<attached>k|mn|m|bn|b|tn)(?![a-z])"
_SPACED_SCALE = (
    r"\s*(?P<spaced>hundred|thousand|million|billion|trillion|mil|mln|mn|bn|tn|k)s?(?![a-z])"
)
_PERCENT = r"\s*(?P<percent>%|per\s?cent\b|pct\b)"

_NUMBER = re.compile(
    r"""
    (?<![\w.,])                     # not the tail of a word, id or another number
    (?P<sign>[-+])?
    (?:[$€£¥₹]\s?)?
    (?P<sign2>[-+])?
    (?P<digits>
        \d{1,3}(?:,\d{3})+(?:\.\d+)?    # 1,234,567.5
      | \d+(?:[.,]\d+)?                 # 1234.5 or a decimal comma 3,5
      | \.\d+                           # .5
    )
    (?:e(?P<exp>[-+]?\d{1,4}))?
    (?![.,]?\d)                     # refuse 1.234.567 and 12,34,567 rather than misread them
    """
    + f"(?:{_ATTACHED_SCALE}|{_SPACED_SCALE})?"
    + f"(?:{_PERCENT})?",
    re.VERBOSE | re.IGNORECASE,
)

_UNITS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS = {
    w: 10 * i
    for i, w in enumerate(
        ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], start=2
    )
}
_WORD_NUMBER = re.compile(
    r"\b(?:(?P<tens>"
    + "|".join(_TENS)
    + r")(?:[-\s](?P<tens_unit>"
    + "|".join(w for w in _UNITS if 0 < _UNITS[w] < 10)
    + r"))?|(?P<unit>"
    + "|".join(_UNITS)
    + r"))\b"
    + f"(?:{_SPACED_SCALE})?"
    + f"(?:{_PERCENT})?",
    re.IGNORECASE,
)


def _digits_to_decimal(digits: str) -> Decimal:
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", digits):
        return Decimal(digits.replace(",", ""))
    # A lone comma not followed by exactly three digits can only be a decimal
    # comma ("3,5"); three digits were taken as a thousands group above.
    return Decimal(digits.replace(",", "."))


def _quantity_from_match(match: re.Match) -> Quantity:
    groups = match.groupdict()
    if groups.get("digits") is not None:
        mantissa = _digits_to_decimal(groups["digits"])
        if groups.get("exp"):
            mantissa = mantissa.scaleb(int(groups["exp"]))
        if (groups.get("sign") or groups.get("sign2")) == "-":
            mantissa = -mantissa
    elif groups.get("tens"):
        unit = groups.get("tens_unit")
        mantissa = Decimal(_TENS[groups["tens"].lower()] + (_UNITS[unit.lower()] if unit else 0))
    else:
        mantissa = Decimal(_UNITS[groups["unit"].lower()])
    word = groups.get("attached") or groups.get("spaced")
    scale = _SCALE_WORDS[word.lower()] if word else Decimal(1)
    with localcontext() as ctx:
        ctx.prec = 60
        value = mantissa * scale
    return Quantity(
        value=value,
        mantissa=mantissa,
        scale=scale,
        has_scale=word is not None,
        percent=groups.get("percent") is not None,
    )


def parse_quantity(text) -> Quantity:
    """Read one number from free text, keeping its scale word; see :func:`parse_number`."""
    if isinstance(text, bool):
        raise AnswerFormatError(NUMBER_HELP)
    if isinstance(text, int | float | Decimal):
        try:
            value = Decimal(repr(text)) if isinstance(text, float) else Decimal(text)
        except InvalidOperation:
            raise AnswerFormatError(NUMBER_HELP) from None
        if not value.is_finite():
            raise AnswerFormatError(NUMBER_HELP)
        return Quantity(value=value, mantissa=value)
    if not isinstance(text, str):
        raise AnswerFormatError(NUMBER_HELP)
    cleaned = _clean(text).strip()
    if not cleaned or len(cleaned) > 500:
        raise AnswerFormatError(NUMBER_HELP)

    matches = list(_NUMBER.finditer(cleaned))
    if not matches and not re.search(r"\d", cleaned):
        matches = list(_WORD_NUMBER.finditer(cleaned))
    if not matches:
        raise AnswerFormatError(NUMBER_HELP)

    quantities = [_quantity_from_match(m) for m in matches]
    first = quantities[0]
    # Several numbers are fine only when they agree, as in "1.2 million
    # (1,200,000)"; "40-50" or "45 in 2019" have no single reading.
    if any(q.value != first.value for q in quantities[1:]):
        found = ", ".join(m.group(0).strip() for m in matches[:4])
        raise AnswerFormatError(SINGLE_NUMBER_HELP.format(found=found))
    if not first.value.is_finite() or abs(first.value) > Decimal("1e300"):
        raise AnswerFormatError(NUMBER_HELP)
    return first


def parse_number(text) -> float:
    """Read a participant's number from free text.

    Accepted: thousands separators ("1,234,567"), a leading sign, decimals
    (including a decimal comma "3,5" when the comma is not followed by exactly
    three digits), currency symbols, percent signs ("45%" reads as 45, the
    number as written), scale words ("1.2 million", "3 billion", "4 thousand",
    "2.5k", "$1.2m"), surrounding words and units ("about 45 people", "12 kg"),
    scientific notation ("1.2e6") and, when no digit is present, number words
    up to ninety-nine ("five", "twenty-five million").

    Ambiguity rule: the text must name one value. Several numbers are accepted
    only when they are equal; otherwise ("40-50", "45 in 2019", "1.234.567",
    "1.234,5") the text is refused with a message asking for one number, rather
    than guessing which one was meant.
    """
    return float(parse_quantity(text).value)


def parse_key(text) -> float:
    """Read a free-text answer key, which may carry a unit or scale word ("1.2 million bags")."""
    return float(_parse_key_quantity(text).value)


def _parse_key_quantity(key) -> Quantity:
    try:
        return parse_quantity(key)
    except AnswerFormatError:
        raise KeyFormatError(
            f"The answer key {key!r} is not a single number (write e.g. 1.2, 45% or 1.2 million)."
        ) from None


def _within(answer: Decimal, key: Decimal, tolerance: Decimal) -> bool:
    lo, hi = sorted((key * (1 - tolerance), key * (1 + tolerance)))
    # Answers computed in binary floating point (1.1 * 1.2 == 1.3200000000000003)
    # land a hair outside an exact edge; a slack of a billionth of the key
    # absorbs that while staying far below any difference a person would type.
    slack = abs(key) * Decimal("1e-9")
    return lo - slack <= answer <= hi + slack


def check_free_text(answer, key, tolerance: float = DEFAULT_TOLERANCE) -> bool:
    """Whether a numeric answer is within ``tolerance`` of the key (CHARTOM 4.1).

    Correct iff the answer lies in ``[a(1 - t), a(1 + t)]`` for key ``a``, edges
    included; for a negative key the interval is ordered, so -10 accepts -11 to -9.
    A zero key shrinks the interval to the single point 0, so only 0 is correct;
    a researcher who wants slack there should phrase the question so the key is
    not 0.

    Scale words: values are always compared, so "1,200,000" matches "1.2
    million". When exactly one side has a scale word, its mantissa (the number
    without the scale word) is also compared with the other side, so answer "1.2 million" matches key
    "1.2" and answer "1.2" matches key "1.2 million": questions such as "the
    dogs eat 1 million bags ... how much in 2019?" set the unit in the
    question, and participants often repeat that unit or leave it out. A plain
    "1,200,000" against a plain key "1.2" is not accepted; write such keys with
    their scale word. With scale words on both sides only values count ("1.2
    thousand" does not match "1.2 million").

    Percentages compare as written: "45%" and "45" match, "0.45" does not.

    Raises :class:`AnswerFormatError` for an unreadable answer and
    :class:`KeyFormatError` for an unreadable key.
    """
    if tolerance < 0:
        raise ValueError("tolerance must be zero or positive")
    t = Decimal(repr(float(tolerance)))
    ans = parse_quantity(answer)
    ref = _parse_key_quantity(key)
    with localcontext() as ctx:
        ctx.prec = 60
        candidates = [(ans.value, ref.value)]
        if ans.has_scale and not ref.has_scale:
            candidates.append((ans.mantissa, ref.value))
        if ref.has_scale and not ans.has_scale:
            candidates.append((ans.value, ref.mantissa))
        return any(_within(a, k, t) for a, k in candidates)


# ----------------------------------------------------------------- multiple choice

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
    match = _NUMBERED_CHOICE.fullmatch(_clean(value).strip())
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


# ------------------------------------------------------------------------ ranking

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
        raw = normalize_line_breaks(_clean(text))
        if _RANK_ARROW.search(raw) or "\n" in raw.strip():
            parts = [p for line in raw.split("\n") for p in _RANK_ARROW.split(line)]
        else:
            parts = raw.split(",")
    elif isinstance(text, Sequence):
        parts = [_clean(str(p)) for p in text]
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


# --------------------------------------------------------------------- dispatching
# Each answer type's rules live in its module of studies.answer_types; these
# entry points look the type up. (Imported inside: the types build on this module.)


def question_key(question) -> tuple[list[str], object]:
    """(options, key) that a question's answers are checked against, wherever they are checked.

    The one entry point for every caller (participant flows, preview, model answers,
    exports); the rule itself is the type's (``question_options`` and ``checked_key``,
    e.g. the multiple-choice fallback to options numbered in the text). ``question``
    has ``answer_type``, ``text``, ``options``, ``answer_key`` and ``key_value``.
    """
    from studies.answer_types import get_type

    kind = get_type(question.answer_type)
    options = kind.question_options(question.options or [], question.text)
    return options, kind.checked_key(question.answer_key, question.key_value)


def normalize_key(answer_type: str, key, *, options: Sequence[str] | None = None):
    """A key in its checked form: a number, an option index or a list of items.

    Raises :class:`KeyFormatError` when the key does not parse for its type.
    """
    from studies.answer_types import get_type

    return get_type(answer_type).normalize_key(key, options=options)


def normalize_answer(answer_type: str, answer, *, options: Sequence[str] | None = None):
    """An answer in the form stored with a response: a float, an option index or a list of items.

    Raises :class:`AnswerFormatError` (with a message for the participant).
    """
    from studies.answer_types import get_type

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
    float, so the scale-word rule of :func:`check_free_text` can apply. A
    multiple-choice key may be an option index (``int``, 0-based) or text read
    by :func:`resolve_choice_key`.
    """
    from studies.answer_types import get_type

    return get_type(answer_type).check(answer, key, options=options, tolerance=tolerance)
