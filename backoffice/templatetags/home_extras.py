"""The home page's way of saying how old a figure is."""

import datetime as dt

from django import template
from django.utils import timezone

from customers.templatetags.customers_extras import duration

register = template.Library()


@register.filter
def age(value: dt.datetime | dt.timedelta | None) -> str:
    """ "just now", "4 min ago", "2 h 5 min ago" for a moment (or the time since it)."""
    if value is None:
        return ""
    since = value if isinstance(value, dt.timedelta) else timezone.now() - value
    if since < dt.timedelta(minutes=1):
        return "just now"
    return f"{duration(since)} ago"
