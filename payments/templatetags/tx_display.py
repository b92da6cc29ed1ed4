"""Display of money held as Decimal with 18 places in the mirror."""

from decimal import Decimal, InvalidOperation

from django import template
from django.utils.html import format_html

from core import labels

register = template.Library()


@register.filter
def amount(value, places: int = 2) -> str:
    """100.000000000000000000 → "100.00", 0.917240000 → "0.91724": no float, no exponent."""
    if value in (None, ""):
        return ""
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    text = format(number.normalize(), "f")
    whole, _, fraction = text.partition(".")
    return f"{whole}.{fraction.ljust(int(places), '0')}" if int(places) or fraction else whole


@register.filter
def rate(value) -> str:
    return amount(value, 0)


@register.simple_tag
def rate_between(value, source_currency, destination_currency) -> str:
    """ "1 USD = 0.9987 USDC": a rate with the currencies it converts; "—" when there is none."""
    if value in (None, ""):
        return "—"
    return f"1 {source_currency} = {rate(value)} {destination_currency}"


@register.simple_tag
def method_ref(value):
    """A payment method in staff words, its code on hover; "—" when there is none."""
    if not value:
        return "—"
    return format_html('<span title="{}">{}</span>', value, labels.label(labels.METHOD, value))
