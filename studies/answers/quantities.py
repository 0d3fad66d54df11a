"""Numbers as participants write them ("1.2 million", "35%", "forty") and the free-text rule,
and numbers as the chart generator's specs write them (keys, category labels).

No Django and nothing of the answer types or the chart generator: both read numbers with it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation, localcontext
from typing import Any

from studies.answers import (
    DEFAULT_TOLERANCE,
    NUMBER_HELP,
    SINGLE_NUMBER_HELP,
    AnswerFormatError,
    KeyFormatError,
    clean_text,
)


def is_number(value: Any) -> bool:
    """Whether a JSON value is a finite number (``True`` and ``False`` are not numbers)."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


def format_number(value: float) -> str:
    """Integral values print without a decimal point, so years read 2018, not 2018.0."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:g}"


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
    cleaned = clean_text(text).strip()
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
