from django import template

from customers import choices
from customers.models import status_label

register = template.Library()


@register.filter
def duration(value) -> str:
    """A timedelta as "2 d 3 h", "3 h 20 min" or "12 min"."""
    if value is None:
        return ""
    seconds = int(abs(value.total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min"


@register.filter
def issue_label(code) -> str:
    """ "SANCTIONED_COUNTRY" → "Sanctioned country" (customers.choices holds the words)."""
    return choices.issue_label(code)


@register.filter
def customer_status_label(value) -> str:
    """ "NEEDS_ADDITIONAL_INFORMATION" → "Needs additional information"."""
    return status_label(value)
