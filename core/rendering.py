"""The forms' renderer: Django's, except that a select is written in Python.

Django renders a select through its widget templates: an include per option and another for
the option's attributes. The customer form's seven country selects (250 options each) took
~80 of its ~95 ms that way, the transactions filters 270 includes a page, more than the 50
rows. Here `select.html` with Django's own option template is written from the same widget
context, with the same attributes, escaping and selected state (tests/core/test_rendering.py
compares the two for every form with a select); every other template renders as Django's.
"""

from django.forms.renderers import DjangoTemplates
from django.forms.utils import flatatt
from django.utils.html import conditional_escape, escape, format_html
from django.utils.safestring import SafeString

SELECT = "django/forms/widgets/select.html"
OPTION = "django/forms/widgets/select_option.html"


def _attrs(attrs: dict) -> str:
    # An option's attributes are nearly always none or `selected`: flatatt for the rest.
    if not attrs:
        return ""
    return " selected" if attrs == {"selected": True} else flatatt(attrs)


def _option(o: dict) -> str:
    value = escape("" if o["value"] is None else str(o["value"]))
    return f'<option value="{value}"{_attrs(o["attrs"])}>{conditional_escape(o["label"])}</option>'


def select_html(widget: dict) -> str | None:
    """The select of a widget context as Django's templates write it; None when an option has
    a template of its own."""
    parts = []
    for name, options, _ in widget["optgroups"]:  # ungrouped choices: a group of one each
        if any(option["template_name"] != OPTION for option in options):
            return None
        if name:
            parts += [f'<optgroup label="{conditional_escape(name)}">', *map(_option, options), "</optgroup>"]
        else:
            parts += map(_option, options)
    # Every value and label above went through escape(): the whole is safe.
    inner = SafeString("".join(parts))
    return format_html('<select name="{}"{}>{}</select>', widget["name"], flatatt(widget["attrs"]), inner)


class FormRenderer(DjangoTemplates):
    def render(self, template_name, context, request=None):
        if template_name == SELECT:
            html = select_html(context["widget"])
            if html is not None:
                return html
        return super().render(template_name, context, request)
