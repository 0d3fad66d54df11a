"""One way to show numbers on every page: {{ value|num }}, {{ p|num:"p" }}, {{ n|num:"int" }}.

The results page and the Models page both use it, so "0.7935", "1.0" degrees of freedom and
"p = 0.0" read the same everywhere: two decimals (three for small values), integers as
integers, p-values below 0.001 as "< 0.001", yes/no for flags, a dash for nothing.
In a sentence a p-value comes with its relation, {{ p|num:"p=" }}: "p = 0.046" or
"p < 0.001" (never "p = < 0.001").
"""

from __future__ import annotations

import math
import numbers

from django import template

register = template.Library()

DASH = "—"


def format_number(value, kind: str = "") -> str:
    """The text of ``value``; ``kind`` is "p" (a p-value), "p=" (a p-value with its relation,
    for running text), "int" or "" (any number)."""
    if kind == "p=":
        text = format_number(value, "p")
        return f"p {text}" if text.startswith("<") else f"p = {text}"
    if value is None or value == "":
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, numbers.Number):
        try:
            value = float(value)
        except (TypeError, ValueError):
            return str(value)
    integral = isinstance(value, numbers.Integral)
    value = float(value)
    if math.isnan(value):
        return DASH
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if kind == "p":
        return "< 0.001" if value < 0.001 else f"{value:.3f}"
    if kind == "int" or integral:
        return str(round(value))
    if 0 < abs(value) < 0.1:
        return f"{value:.3f}"
    return f"{value:.2f}"


@register.filter
def num(value, kind: str = "") -> str:
    return format_number(value, kind)


@register.filter
def zip_kinds(values, kinds) -> list[tuple]:
    """Pairs each cell with its column's kind; a table without kinds shows every cell as text."""
    kinds = list(kinds or [])
    return [(v, kinds[i] if i < len(kinds) else "text") for i, v in enumerate(values)]


@register.filter
def kind_class(kind: str) -> str:
    """Text (and yes/no flags) align left; numbers align right, digits under digits."""
    return "" if kind in ("text", "flag", "") else "num"
