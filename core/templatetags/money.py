"""{{ amount|money:currency }}: the one way pages show money (core/money.py)."""

from django import template

from core.money import format_money

register = template.Library()


@register.filter
def money(amount, currency="USD") -> str:
    return format_money(amount, currency)
