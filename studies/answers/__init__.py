"""Reading and checking answers to FACT questions (CHARTOM, section 4.1).

The same rules score participants and, later, model answers, so they live here
as plain functions with no Django import; which rule a type uses is said by its
module in :mod:`studies.answer_types`, and that registry is where answers are
read, normalised and checked by type.

This package holds what every rule shares (the errors, the messages, the text
clean-up); the rules themselves are in :mod:`.quantities` (free-text numbers:
correct within +/-10% of the key, i.e. in ``[0.9a, 1.1a]`` for a key ``a``),
:mod:`.choices` (multiple choice: correct when it is the keyed option) and
:mod:`.rankings` (correct only when every item is in its keyed place).

Parsing errors come in two kinds: :class:`AnswerFormatError` carries a message
meant for the participant (show it and ask again), :class:`KeyFormatError` one
meant for the researcher who wrote the key.
"""

from __future__ import annotations

import re
import unicodedata

from django.utils.translation import gettext_lazy as _

DEFAULT_TOLERANCE = 0.10

# Shown to participants: translated when raised, in the language of the request.
NUMBER_HELP = _("Please enter a number, like 42 or 3.5.")
SINGLE_NUMBER_HELP = _("Please enter just one number, like 42 or 3.5 (we found {found}).")
SIGN_NUMBER_HELP = _("Please write the sign right before the number, like -5.")
# Only in languages whose decimal mark is a comma ("1,500" in German: 1.5 or 1500?).
AMBIGUOUS_NUMBER_HELP = _(
    "“{found}” could be read two ways. Please write {thousands} if you mean "
    "{thousands}, or {decimal} if you mean a number with decimals."
)
MIXED_NUMBER_HELP_COMMA = _(
    "Please write the number with a comma before the decimals, like {example}, "
    "or without thousands separators."
)
MIXED_NUMBER_HELP_POINT = _(
    "Please write the number with a point before the decimals, like {example}, "
    "or without thousands separators."
)
# Numbers that are not written the plain decimal way: say what to type instead.
DIGITS_NUMBER_HELP = _(
    "Please type the number with the digits 0 to 9, like 42 or 3.5 (we found {found})."
)
FRACTION_NUMBER_HELP = _("Please type a fraction as a decimal number, like {example} for ½.")
SIZE_NUMBER_HELP = _(
    "That number is too large or too small to use. Please type it in digits, like 42 or 3.5."
)
CHOICE_HELP = _("Please choose one of the options.")
RANKING_HELP = _("Please list the items in order, separated by commas or >, e.g. A, B, C.")


class AnswerFormatError(ValueError):
    """An answer could not be read; ``message`` can be shown to the participant."""

    def __init__(self, message: str):
        # A lazy help text becomes words here, in the language active while the answer is read.
        message = str(message)
        super().__init__(message)
        self.message = message


class KeyFormatError(ValueError):
    """An answer key could not be read; ``message`` is meant for the researcher."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


# --------------------------------------------------------------------------- text


def clean_text(text: str) -> str:
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
    text = clean_text(str(text)).casefold()
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
