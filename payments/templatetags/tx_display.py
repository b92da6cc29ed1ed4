"""Display of money held as Decimal with 18 places in the mirror."""

from decimal import Decimal, InvalidOperation

from django import template
from django.utils.html import format_html

from core import labels
from payments import rails

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


@register.filter
def status_label(value) -> str:
    """ "AWAITING_TRANSFER" → "Awaiting transfer"; a status the API adds later shows as it is."""
    return labels.label(labels.STATUS, value)


@register.filter
def method_label(value) -> str:
    """ "ACH_SAME_DAY" → "Same-day ACH" (payments.rails holds the words)."""
    return rails.method_label(value)


@register.simple_tag
def method_ref(value):
    """A payment method in staff words, its code on hover; "—" when there is none."""
    if not value:
        return "—"
    return format_html('<span title="{}">{}</span>', value, rails.method_label(value))
