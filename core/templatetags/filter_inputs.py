"""`{% filter_input field %}`: a list page's filter field, a plain select written in Python.

Django renders a select through its widget templates, an include per option and another for
each option's attributes: the transactions filters (status, rail, currency: 60 options) took
270 template includes a page, more than the 50 rows. A `forms.Select` (exactly; subclasses keep
their own templates) with flat choices is written here with the same attributes, escaping and
selected state; every other widget renders as Django renders it.
"""

from django import forms, template
from django.forms.utils import flatatt
from django.utils.html import format_html, format_html_join

register = template.Library()


def _flat(choices) -> list | None:
    listed = list(choices)
    return None if any(isinstance(label, (list, tuple)) for _, label in listed) else listed


@register.simple_tag
def filter_input(bound):
    widget = bound.field.widget
    choices = _flat(bound.field.choices) if type(widget) is forms.Select else None
    if choices is None:
        return bound.as_widget()
    attrs = bound.build_widget_attrs({}, widget)
    if bound.auto_id and "id" not in widget.attrs:
        attrs["id"] = bound.auto_id
    if bound.errors:
        attrs["aria-invalid"] = "true"
    final = widget.build_attrs(widget.attrs, {**attrs, "name": bound.html_name})
    chosen = widget.format_value(bound.value())
    options = format_html_join(
        "",
        '<option value="{}"{}>{}</option>',
        ((value, " selected" if str(value) in chosen else "", label) for value, label in choices),
    )
    return format_html("<select{}>{}</select>", flatatt(final), options)
