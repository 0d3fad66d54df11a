"""Amounts of money as the reader's language writes them: "$15.00", "15,00 $", "15,00 US$".

No library in requirements.txt formats currencies per locale (Babel is not a dependency, and
Django's number localisation knows separators but not where the currency symbol goes), so the
few rules the platform's languages need are written out here, taken from CLDR (the data Babel
and ICU use): the symbol for each currency, the pattern (symbol before or after the number),
the separators and the minimum grouping digits. A language or currency not listed falls back
to English and to the ISO code.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import NamedTuple

from django.utils import translation

NBSP = "\u00a0"  # CLDR keeps the number and its symbol on one line


class _Locale(NamedTuple):
    decimal: str
    group: str
    # Spanish leaves four-digit numbers ungrouped ("1234,50 €" but "12.345,50 €").
    min_grouping: int
    symbol_first: bool
    symbols: dict[str, str]


_LOCALES = {
    "en": _Locale(".", ",", 1, True, {"USD": "$", "EUR": "€", "GBP": "£"}),
    "de": _Locale(",", ".", 1, False, {"USD": "$", "EUR": "€", "GBP": "£"}),
    "es": _Locale(",", ".", 2, False, {"USD": "US$", "EUR": "€", "GBP": "GBP"}),
}


def _grouped(digits: str, separator: str, min_grouping: int) -> str:
    if len(digits) < 3 + min_grouping:
        return digits
    head, tail = digits[: len(digits) % 3 or 3], digits[len(digits) % 3 or 3 :]
    return separator.join([head, *(tail[i : i + 3] for i in range(0, len(tail), 3))])


def format_money(amount, currency: str = "USD", language: str | None = None) -> str:
    """``amount`` (rounded to cents) in ``currency`` as ``language`` (default: the active one)
    writes it; a dash for no amount."""
    if amount is None or amount == "":
        return "—"
    try:
        value = Decimal(str(amount)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    except (InvalidOperation, ValueError):
        return str(amount)
    code = (language or translation.get_language() or "en").split("-")[0].lower()
    rules = _LOCALES.get(code, _LOCALES["en"])
    currency = (currency or "USD").upper()
    whole, cents = f"{abs(value):.2f}".split(".")
    number = _grouped(whole, rules.group, rules.min_grouping) + rules.decimal + cents
    symbol = rules.symbols.get(currency, currency)
    sign = "-" if value < 0 else ""
    if rules.symbol_first:
        # An ISO code before the number needs a space ("CHF 15.00"); a sign does not ("$15.00").
        gap = "" if currency in rules.symbols else NBSP
        return f"{sign}{symbol}{gap}{number}"
    return f"{sign}{number}{NBSP}{symbol}"
