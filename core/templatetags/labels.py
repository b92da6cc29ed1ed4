"""Staff words in templates (core.labels holds the vocabularies each app registers): the word
shown, the code itself in a title attribute."""

from django import template

from core import labels

register = template.Library()


@register.filter
def event_label(value) -> str:
    """ "customer.update" → "Customer changed"; a type the API adds later reads in words too."""
    return labels.label(labels.EVENT, value)


@register.filter
def action_label(value) -> str:
    """ "customer.decide" → "Decided the case" (an audit event's action)."""
    return labels.label(labels.ACTION, value)


@register.filter
def role_label(value) -> str:
    """ "compliance_lead" → "Compliance lead"."""
    return labels.label(labels.ROLE, value)


@register.filter
def target_kind_label(value) -> str:
    """ "payment_account" → "Payment account" (what an audit event names)."""
    return labels.humanize(value)


@register.filter
def word(value, kind) -> str:
    """The staff word of a code of any vocabulary of core.labels: {{ method|word:"method" }}."""
    return labels.label(kind, value)
