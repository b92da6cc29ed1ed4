"""{% submission_field %}: the one-time mark of a form that makes something (core.forms)."""

from django import template
from django.utils.html import format_html

from ..forms import SUBMISSION_FIELD, submission_mark

register = template.Library()


@register.simple_tag(takes_context=True)
def submission_field(context) -> str:
    return format_html(
        '<input type="hidden" name="{}" value="{}">',
        SUBMISSION_FIELD,
        submission_mark(getattr(context, "request", None)),
    )


@register.simple_tag(takes_context=True)
def submission_value(context) -> str:
    """The mark alone, for htmx's hx-vals."""
    return submission_mark(getattr(context, "request", None))
