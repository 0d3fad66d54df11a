"""Money reads as the active language writes it (CLDR's patterns, core/money.py)."""

from decimal import Decimal

import pytest
from django.template import Context, Template
from django.utils import translation

from core.money import format_money

NBSP = "\u00a0"


@pytest.mark.parametrize(
    ("language", "amount", "currency", "expected"),
    [
        ("en", Decimal("15"), "USD", "$15.00"),
        ("en", 1234.5, "EUR", "€1,234.50"),
        ("en", "0.5", "CHF", f"CHF{NBSP}0.50"),
        ("de", Decimal("15"), "USD", f"15,00{NBSP}$"),
        ("de", Decimal("1234.5"), "EUR", f"1.234,50{NBSP}€"),
        ("de-at", Decimal("0.505"), "GBP", f"0,51{NBSP}£"),
        ("es", Decimal("15"), "USD", f"15,00{NBSP}US$"),
        ("es", Decimal("1234.5"), "EUR", f"1234,50{NBSP}€"),
        ("es", Decimal("12345.5"), "EUR", f"12.345,50{NBSP}€"),
        ("de", Decimal("-2"), "USD", f"-2,00{NBSP}$"),
        ("fr", Decimal("15"), "USD", "$15.00"),
    ],
)
def test_it_formats_amount_and_currency_per_language(language, amount, currency, expected):
    assert format_money(amount, currency, language) == expected


def test_no_amount_is_a_dash():
    assert format_money(None, "USD", "de") == "—"


@pytest.mark.parametrize(("language", "expected"), [("en", "$15.00"), ("de", f"15,00{NBSP}$")])
def test_the_money_filter_follows_the_active_language(language, expected):
    template = Template("{% load money %}{{ amount|money:'USD' }}")
    with translation.override(language):
        assert template.render(Context({"amount": Decimal("15")})) == expected


def test_annotation_pages_load_the_same_filter():
    from annotation.templatetags.annotation_tags import register
    from core.templatetags.money import money

    assert register.filters["money"] is money
