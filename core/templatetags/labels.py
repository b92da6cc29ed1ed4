"""Staff words for the API's webhook event types (the type itself goes in a title)."""

from django import template

register = template.Library()

EVENT_LABELS = {
    "customer.update": "Customer changed",
    "transaction.update": "Transaction changed",
}


@register.filter
def event_label(value) -> str:
    """ "customer.update" → "Customer changed"; a type the API adds later reads in words too."""
    value = str(value or "")
    return EVENT_LABELS.get(value) or value.replace(".", " ").replace("_", " ").capitalize()
