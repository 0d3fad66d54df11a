"""Numbers as participants write them ("1.2 million", "35%", "forty") and the free-text rule,
and numbers as the chart generator's specs write them (keys, category labels).

No Django and nothing of the answer types or the chart generator: both read numbers with it.
"""

from __future__ import annotations

import contextvars
import functools
import math
import re
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation, localcontext
from typing import Any

from studies.answers import (
    AMBIGUOUS_NUMBER_HELP,
    DEFAULT_TOLERANCE,
    DIGITS_NUMBER_HELP,
    FRACTION_NUMBER_HELP,
    MIXED_NUMBER_HELP_COMMA,
    MIXED_NUMBER_HELP_POINT,
    NUMBER_HELP,
    SIGN_NUMBER_HELP,
    SINGLE_NUMBER_HELP,
    SIZE_NUMBER_HELP,
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
# Written-out scales of the other languages a study can speak. A German "Billion" and a
# Spanish "billón" are 10**12, and a Spanish "mil" is a thousand, so these replace the
# English words rather than join them.
_LANGUAGE_SCALE_WORDS = {
    "de": {
        "tausend": Decimal(10) ** 3,
        "tsd": Decimal(10) ** 3,
        "millionen": Decimal(10) ** 6,
        "million": Decimal(10) ** 6,
        "mio": Decimal(10) ** 6,
        "milliarden": Decimal(10) ** 9,
        "milliarde": Decimal(10) ** 9,
        "mrd": Decimal(10) ** 9,
        "billionen": Decimal(10) ** 12,
        "billion": Decimal(10) ** 12,
        "k": Decimal(10) ** 3,
    },
    "es": {
        "mil millones": Decimal(10) ** 9,
        "millones": Decimal(10) ** 6,
        "millón": Decimal(10) ** 6,
        "millon": Decimal(10) ** 6,
        "mill": Decimal(10) ** 6,
        "mil": Decimal(10) ** 3,
        "billones": Decimal(10) ** 12,
        "billón": Decimal(10) ** 12,
        "billon": Decimal(10) ** 12,
        "k": Decimal(10) ** 3,
    },
}
# How each language writes a number: (decimal mark, thousands mark). English is the
# reading when no language is given (keys, model replies, older sessions).
NUMBER_MARKS = {"en": (".", ","), "de": (",", "."), "es": (",", ".")}
_reading = contextvars.ContextVar("number_language", default="en")


@contextmanager
def numbers_written_in(language: str):
    """Read participants' numbers the way ``language`` writes them inside this block."""
    token = _reading.set(language if language in NUMBER_MARKS else "en")
    try:
        yield
    finally:
        _reading.reset(token)


def _language(language: str | None) -> str:
    return language if language in NUMBER_MARKS else _reading.get()


# Single letters ("2.5k", "$1.2m", "3B") are scale suffixes only when glued to
# the number; written apart ("12 m", "3 t") they are far more likely a unit.
_ATTACHED_SCALE = r"(?P<attached>k|mn|m|bn|b|tn)(?![a-z])"
_PERCENT = r"\s*(?P<percent>%|per\s?cent\b|pct\b|prozent\b|por\s?ciento\b)"


def _spaced_scale(words) -> str:
    alternatives = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in words)
    return rf"\s*(?P<spaced>{alternatives})s?\.?(?![a-zà-ÿ])"


# The currency signs a number may carry in front.
_CURRENCY = "[$€£¥₹]"


@functools.cache
def _number_pattern(language: str) -> re.Pattern:
    decimal, group = (re.escape(m) for m in NUMBER_MARKS[language])
    words = sorted(_LANGUAGE_SCALE_WORDS.get(language, _ENGLISH_SPACED), key=len, reverse=True)
    attached = _ATTACHED_SCALE if language == "en" else r"(?P<attached>k)(?![a-z])"
    return re.compile(
        r"""
        (?<![\w.,])                    # not the tail of a word, id or another number
        (?P<sign>[-+])?
        """
        + rf"(?:{_CURRENCY}\s?)?"
        + r"""
        (?P<sign2>[-+])?
        (?P<digits>
        """
        + rf"\d{{1,3}}(?:{group}\d{{3}})+(?:{decimal}\d+)?"  # 1,234,567.5 / 1.234.567,5
        + r"""
          | \d+(?:[.,]\d+)?                 # 1234.5 or 1234,5
        """
        + rf"| {decimal}\d+"  # .5 / ,5
        + r"""
        )
        (?:e(?P<exp>[-+]?\d{1,4}))?
        (?![.,]?\d)                     # refuse a mix such as 1.234.567 in English
        """
        + f"(?:{attached}|{_spaced_scale(words)})?"
        + f"(?:{_PERCENT})?"
        + r"(?:\s*€)?",
        re.VERBOSE | re.IGNORECASE,
    )


_ENGLISH_SPACED = ("hundred", "thousand", "million", "billion", "trillion", "mil", "mln", "mn")
_ENGLISH_SPACED += ("bn", "tn", "k")
_SPACED_SCALE = _spaced_scale(_ENGLISH_SPACED)

# Numbers in the other convention with several groups ("1,234,567" or "1,234.5" where a
# comma is the decimal mark): each has two readings, so the participant is asked.
_MIXED = {
    language: re.compile(
        rf"\d{{1,3}}(?:{re.escape(d)}\d{{3}}){{2,}}|\d{{1,3}}(?:{re.escape(d)}\d{{3}})+{re.escape(g)}\d"
    )
    for language, (d, g) in NUMBER_MARKS.items()
}

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


def _digits_to_decimal(digits: str, language: str = "en") -> Decimal:
    decimal, group = NUMBER_MARKS[language]
    grouped = rf"\d{{1,3}}(?:{re.escape(group)}\d{{3}})+(?:{re.escape(decimal)}\d+)?"
    if re.fullmatch(grouped, digits):
        return Decimal(digits.replace(group, "").replace(decimal, "."))
    if language != "en" and re.fullmatch(rf"[1-9]\d{{0,2}}{re.escape(decimal)}\d{{3}}", digits):
        # "1,500" in a German study: a decimal by the rules, but participants used to
        # English often write a thousand so. English studies keep reading "1.500" as 1.5.
        whole, part = digits.split(decimal)
        short = part.rstrip("0")
        # The same value written so it can only be a decimal: "1,5" or "1,1250".
        plain = whole if not short else f"{whole}{decimal}{short if short != part else part + '0'}"
        raise AnswerFormatError(
            AMBIGUOUS_NUMBER_HELP.format(found=digits, thousands=whole + part, decimal=plain)
        )
    # A lone mark not followed by exactly three digits can only be a decimal mark
    # ("3,5" in English, "3.5" in German); three digits were taken as a group above.
    return Decimal(digits.replace(",", "."))


def _quantity_from_match(match: re.Match, language: str = "en") -> Quantity:
    groups = match.groupdict()
    if groups.get("digits") is not None:
        mantissa = _digits_to_decimal(groups["digits"], language)
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
    words = _LANGUAGE_SCALE_WORDS.get(language, _SCALE_WORDS)
    scale = words[" ".join(word.lower().split())] if word else Decimal(1)
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


# Programmers' notations read as a plain number followed by a word ("0x10" as 0 and
# "x10", "1_000" as 1): refused, so no participant's typo passes as a different number.
_NOT_DECIMAL = re.compile(r"(?<![\w.,])[-+]?0[xob][0-9a-f]|\d_+\d", re.IGNORECASE)
# "1/2", "3 1/2" and "½" (which NFKC writes 1⁄2 with a fraction slash) would read as two
# numbers, and "3½" as 31 and 2.
_FRACTION = re.compile(r"(?<![\d.,])\d{1,3}\s*[/\u2044\u2215]\s*\d{1,3}(?![\d.,])")
_VULGAR_FRACTION = re.compile("[\u00bc-\u00be\u2150-\u215e\u2189]")
# Two signs before one number ("--5", "+-5", "-$-5"), or a minus standing apart at the
# start ("- 5"): read as one of them, the number may not be the one meant, so the
# participant is asked to write the sign at the number. After a digit ("5 -- 6") it is
# a range: two numbers, refused as such.
_DOUBLED_SIGN = re.compile(rf"[-+]\s*(?:{_CURRENCY}\s?)?[-+]\s*(?:{_CURRENCY}\s?)?\d")
_SIGN_APART = re.compile(rf"^-\s+(?:{_CURRENCY}\s?)?\d")
# Beyond these a float loses the number (1e-400 becomes 0.0) or it is no estimate.
_LARGEST = Decimal("1e300")
_SMALLEST = Decimal("1e-300")


def _sized(quantity: Quantity) -> Quantity:
    value = quantity.value
    if not value.is_finite() or abs(value) > _LARGEST or (value and abs(value) < _SMALLEST):
        raise AnswerFormatError(SIZE_NUMBER_HELP)
    return quantity


def _refuse_other_notations(text: str, language: str) -> None:
    """Refuse numbers written other than in plain decimals, saying what to type."""
    found = _NOT_DECIMAL.search(text)
    if found:
        word = next(w for w in re.finditer(r"[-+]?\w+", text) if w.end() > found.start())
        raise AnswerFormatError(DIGITS_NUMBER_HELP.format(found=word.group(0)))
    cleaned = clean_text(text).strip()
    if _SIGN_APART.match(cleaned) or any(
        not cleaned[: m.start()].rstrip()[-1:].isdigit() for m in _DOUBLED_SIGN.finditer(cleaned)
    ):
        raise AnswerFormatError(SIGN_NUMBER_HELP)
    if _VULGAR_FRACTION.search(text) or _FRACTION.search(cleaned):
        example = f"0{NUMBER_MARKS[language][0]}5"
        raise AnswerFormatError(FRACTION_NUMBER_HELP.format(example=example))


def parse_quantity(text, language: str | None = None) -> Quantity:
    """Read one number from free text, keeping its scale word; see :func:`parse_number`.

    ``language`` (default: the one set by :func:`numbers_written_in`, else English) says
    which mark separates decimals and which thousands.
    """
    language = _language(language)
    if isinstance(text, bool):
        raise AnswerFormatError(NUMBER_HELP)
    if isinstance(text, int | float | Decimal):
        try:
            value = Decimal(repr(text)) if isinstance(text, float) else Decimal(text)
        except InvalidOperation:
            raise AnswerFormatError(NUMBER_HELP) from None
        if not value.is_finite():
            raise AnswerFormatError(NUMBER_HELP)
        return _sized(Quantity(value=value, mantissa=value))
    if not isinstance(text, str):
        raise AnswerFormatError(NUMBER_HELP)
    cleaned = clean_text(text).strip()
    if not cleaned or len(cleaned) > 500:
        raise AnswerFormatError(NUMBER_HELP)
    _refuse_other_notations(text, language)

    matches = list(_number_pattern(language).finditer(cleaned))
    if not matches and not re.search(r"\d", cleaned):
        matches = list(_WORD_NUMBER.finditer(cleaned))
    if not matches:
        if language != "en" and _MIXED[language].search(cleaned):
            decimal = NUMBER_MARKS[language][0]
            raise AnswerFormatError(
                (MIXED_NUMBER_HELP_COMMA if decimal == "," else MIXED_NUMBER_HELP_POINT).format(
                    example=f"1{NUMBER_MARKS[language][1]}234{decimal}5",
                )
            )
        raise AnswerFormatError(NUMBER_HELP)

    quantities = [_quantity_from_match(m, language) for m in matches]
    first = quantities[0]
    # Several numbers are fine only when they agree, as in "1.2 million
    # (1,200,000)"; "40-50" or "45 in 2019" have no single reading.
    if any(q.value != first.value for q in quantities[1:]):
        # Where a comma marks decimals, "3,5, 4" would read as three numbers.
        separator = "; " if NUMBER_MARKS[language][0] == "," else ", "
        found = separator.join(m.group(0).strip() for m in matches[:4])
        raise AnswerFormatError(SINGLE_NUMBER_HELP.format(found=found))
    return _sized(first)


def parse_number(text, language: str | None = None) -> float:
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

    Refused with a message saying what to type instead: other notations ("0x10",
    "0b101", "1_000"), fractions ("1/2", "½") and values a float cannot hold
    ("1e400", "1e-400"); "inf" and "nan" are no numbers at all.

    In German and Spanish (``language`` "de" or "es") the marks swap: "3,5" is 3.5,
    "1.000" a thousand and "1.234.567,5" reads; a point not followed by exactly three
    digits ("3.5") can only be a decimal point. The other convention's grouped forms
    ("1,234,567", "1,234.5") are refused with a message saying how to write the number.
    """
    return float(parse_quantity(text, language).value)


def parse_key(text) -> float:
    """Read a free-text answer key, which may carry a unit or scale word ("1.2 million bags")."""
    return float(_parse_key_quantity(text).value)


def _parse_key_quantity(key) -> Quantity:
    # Keys are written by the researcher in the English convention, whatever the session.
    try:
        return parse_quantity(key, "en")
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
