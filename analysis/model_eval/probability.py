"""Reading a model's MIND prediction out of free text.

The MIND prompt (CHARTOM, section 3.1) asks: "First, give your prediction as a
decimal number between 0 and 1, then justify your prediction in words." So the
prediction sits at the start of the answer, and later numbers belong to the
justification ("the y-axis starts at 240").

Which number is the prediction
    1. The first number in the text, when nothing but punctuation, markup,
       labels and filler words comes before it: "0.35 because ...",
       "**Prediction:** 0.35", "I predict 0.35 ...", "About 35% ...".
    2. Otherwise (the answer opens with prose) the first number introduced by
       a label - "prediction", "predict(ed)", "estimate(d)", "answer", "guess",
       "fraction", "proportion", "probability", "HMI", followed by at most a
       few filler words such as "is", "about", "approximately", "of", ":" -
       so "The axis starts at 240, so I predict 0.6" reads 0.6.
    3. Otherwise the first number, which must then pass the range check: "For
       the 2 years shown ... 0.4" is refused (2 is outside [0, 1]) rather than
       guessed.
    A list marker at the start of a line ("1. ", "2) ") is not a number, and an
    echo of the scale such as "(0-1)" or "between 0 and 1" is ignored.

Forms read
    Decimals ("0.35", ".25", "0,35" when the integer part is 0 or absent), the
    integers 0 and 1, percentages ("35%", "35 percent" -> 0.35) and fractions
    of whole numbers ("1/3", "1 out of 3", "1 in 3" -> 0.333...).

Refused (value None and a problem), never guessed
    No number; a value outside [0, 1] ("35", which might mean 35%, "-0.1",
    "120%"); a range or alternative in the prediction position ("0.3-0.4",
    "0.3 to 0.4", "between 0.3 and 0.4", "0.3 or 0.4": the midpoint would be a
    guess) unless both sides are the same value ("0.35 or 35%"); a fraction
    over zero. Numbers after the prediction are not compared with it.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import NamedTuple


class ProbabilityParse(NamedTuple):
    """A prediction in [0, 1], or None with the reason it could not be read."""

    value: float | None
    problem: str | None


_NUMBER = r"(?:\d+(?:[.,]\d+)?|[.,]\d+)"

# A fraction, a percentage or a plain number. The look-arounds keep digits that
# are part of words and identifiers ("G1_Q1_2", "3D", "x2", "1.2.3") out.
_TOKEN = re.compile(
    r"(?<![\w.,/])"
    r"(?P<sign>-(?=\d|[.,]\d))?"
    r"(?:"
    r"(?P<num>\d+)\s*(?:/|\bout\s+of\b|\bin\b)\s*(?P<den>\d+)(?![\w.,]?\d)"
    rf"|(?P<pct>{_NUMBER})\s*(?:%|\bper\s?cent\b|\bpct\b)"
    rf"|(?P<plain>{_NUMBER})(?![\w%]|[.,]\d)"
    r")",
    re.IGNORECASE,
)

_LABEL_WORDS = (
    r"predict(?:ion|ed|s)?|estimat(?:e|ed|ion)|answer|guess|fraction|proportion|probability|hmi"
)
_FILLER_WORDS = (
    r"is|of|would|will|be|about|around|approximately|approx|roughly|nearly|close|to|at|an|a|"
    r"that|my|i|final|value|score|here|it|s"
)
_LABEL = re.compile(
    rf"\b(?:{_LABEL_WORDS})\b(?:[\s:=*_~\u2248'\"-]|\b(?:{_FILLER_WORDS})\b\.?)*"
    r"(?=-?(?:\d|[.,]\d))",
    re.IGNORECASE,
)
_PREAMBLE = re.compile(
    rf"(?:[^\w]|_|\b(?:{_LABEL_WORDS}|{_FILLER_WORDS})\b)*",
    re.IGNORECASE,
)

_LIST_MARKER = re.compile(r"(?m)^[ \t>*#-]*\(?[1-9]\d?[.)]\s+(?=\S)")
_SCALE_ECHO = re.compile(
    r"\(\s*0(?:\.0)?\s*(?:-|\u2013|to)\s*1(?:\.0)?\s*\)"
    r"|\bbetween\s+0(?:\.0)?\s+and\s+1(?:\.0)?(?![\d.])",
    re.IGNORECASE,
)
_CONNECTOR = re.compile(r"\s*(?:-|\u2013|\u2014|\bto\b|\bor\b|\band\b|/)\s*", re.IGNORECASE)


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\u2212", "-").replace("\u2044", "/").replace("\u2215", "/")
    # Blank out the echo with spaces so match positions still line up.
    return _SCALE_ECHO.sub(lambda m: " " * len(m.group(0)), text)


def _decimal(text: str) -> float | None:
    if "," in text:
        # Only "0,35" is an unambiguous decimal comma; "1,234" is a thousands
        # group and "3,5" may be a list.
        if not re.fullmatch(r"0?,\d+", text):
            return None
        text = text.replace(",", ".")
    return float(text)


def _token_value(match: re.Match) -> tuple[float | None, str | None]:
    written = match.group(0).strip()
    if match.group("num") is not None:
        den = int(match.group("den"))
        if den == 0:
            return None, f"the fraction {written} divides by zero"
        value = int(match.group("num")) / den
    else:
        base = _decimal(match.group("pct") or match.group("plain"))
        if base is None:
            return None, f"{written!r} is not a decimal number (write e.g. 0.35 or 35%)"
        value = base / 100 if match.group("pct") is not None else base
    return (-value if match.group("sign") else value), None


def _tokens(text: str):
    markers = [m.span() for m in _LIST_MARKER.finditer(text)]
    for match in _TOKEN.finditer(text):
        if not any(a <= match.start() < b for a, b in markers):
            yield match


def _labelled(text: str) -> re.Match | None:
    for label in _LABEL.finditer(text):
        match = _TOKEN.match(text, label.end())
        if match is not None:
            return match
    return None


def _prediction_token(text: str) -> re.Match | None:
    first = next(_tokens(text), None)
    if first is None:
        return None
    preamble = text[: first.start()]
    if _PREAMBLE.fullmatch(preamble):
        return first
    return _labelled(text) or first


def _alternative(text: str, match: re.Match, value: float) -> str | None:
    """The text of a range or alternative right after the prediction, if any."""
    connector = _CONNECTOR.match(text, match.end())
    if connector is None:
        return None
    other = _TOKEN.match(text, connector.end())
    if other is None:
        return None
    other_value, _ = _token_value(other)
    if other_value is not None and math.isclose(other_value, value, abs_tol=1e-12):
        return None
    return text[match.start() : other.end()].strip()


def extract_probability(text) -> ProbabilityParse:
    """The MIND prediction in ``text`` by the rule in the module docstring.

    A float or int is taken as the prediction itself (still checked against
    [0, 1]); ``None``, NaN or blank text is "no answer given".
    """
    if text is None:
        return ProbabilityParse(None, "no answer given")
    if isinstance(text, bool):
        return ProbabilityParse(None, "no number found")
    if isinstance(text, int | float):
        value = float(text)
        if math.isnan(value):
            return ProbabilityParse(None, "no answer given")
        return _in_range(value, repr(text))
    cleaned = _clean(str(text))
    if not cleaned.strip():
        return ProbabilityParse(None, "no answer given")
    match = _prediction_token(cleaned)
    if match is None:
        return ProbabilityParse(None, "no number found")
    value, problem = _token_value(match)
    if problem:
        return ProbabilityParse(None, problem)
    alternative = _alternative(cleaned, match, value)
    if alternative:
        return ProbabilityParse(
            None, f"{alternative!r} is a range or a choice, not a single prediction"
        )
    return _in_range(value, match.group(0).strip())


def _in_range(value: float, written: str) -> ProbabilityParse:
    if not math.isfinite(value) or not 0 <= value <= 1:
        hint = " (write e.g. 0.35 or 35%)" if 1 < value <= 100 else ""
        return ProbabilityParse(None, f"the prediction {written} is outside [0, 1]{hint}")
    return ProbabilityParse(value, None)
