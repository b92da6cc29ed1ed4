"""Form pieces every app uses: the one-time submission mark, API errors on fields
(ApiErrorsMixin), the suggesting text input, the date filters' helpers, and the renderer.

The forms' renderer: Django's, except that a select, checkboxes and radio buttons, and an
input are written in Python.

Django renders a select through its widget templates: an include per option and another for
the option's attributes, which made most of the time of the pages with long selects
(docs/benchmarks.md, "Where the figures in the code went"). Here `select.html` with Django's own option template is written from the same widget
context, with the same attributes, escaping and selected state (tests/core/test_rendering.py
compares the two for every form with a select). An input (text, date, number, e-mail, a
checkbox...) is three templates deep in Django (text.html, input.html, attrs.html), a few
hundred microseconds a field on a filter form or an editor of twenty fields; `input_html`
writes the same bytes. Every other template renders as Django's.
"""

import datetime as dt
import functools
import uuid

import django_filters
from django import forms
from django.forms.renderers import DjangoTemplates
from django.forms.utils import flatatt
from django.utils import timezone
from django.utils.choices import BaseChoiceIterator, normalize_choices
from django.utils.html import conditional_escape, escape, format_html, format_html_join
from django.utils.safestring import SafeString
from django_filters.constants import EMPTY_VALUES

# The one-time mark of a form that makes something (upstream.claims): however often one filled-in
# form is sent, it makes one thing, and a resend answers with what the first made.
SUBMISSION_FIELD = "submission"
SUBMISSION_LOST = "This form had lost its one-time mark (an old page?): check it and send it again."


def posted_submission(request) -> str | None:
    """The mark the form was sent with, or None when it is missing or malformed."""
    try:
        return str(uuid.UUID(request.POST.get(SUBMISSION_FIELD, "")))
    except ValueError:
        return None


def submission_mark(request) -> str:
    """The mark the page's form carries: the one it was sent with when shown again (so that a
    resend after an error still counts as one), else a new one."""
    posted = posted_submission(request) if request is not None and request.method == "POST" else None
    return posted or str(uuid.uuid4())


def wire_name(name: str) -> str:
    """A field's name as the Payments API writes it: "source_payment_method" -> "sourcePaymentMethod"."""
    first, *words = name.split("_")
    return first + "".join(word.capitalize() for word in words)


class ApiErrorsMixin:
    """Puts the details of a VALIDATION_ERROR (`exc.field_errors`) on the fields they name: the
    form's own, its rows', or those of the forms it is made of.

    A field named as the request's top-level field it fills (`customer_id` for "customerId")
    takes that field's errors; `api_fields` maps any other error path
    ("externalCryptoWallet.address.address") to a field of this form. `api_parts()` names the other forms holding parts of the request: a path ("kycData")
    -> the form of the object there, or -> the forms of a list's rows in the request's order
    ("kycData.documents.1.type" goes onto the second row's field for "type"). The longest path
    that places an error wins; an error no field takes goes to the top, naming its path.
    """

    api_fields: dict[str, str] = {}

    def api_parts(self) -> dict[str, "ApiErrorsMixin | list[ApiErrorsMixin]"]:
        return {}

    def api_field(self, path: tuple) -> tuple[forms.Form, str] | None:
        """The form and the name of the field an error at `path` belongs to, or None."""
        fields = getattr(self, "fields", ())
        name = self.api_fields.get(".".join(map(str, path)))
        if name is None and len(path) == 1:
            name = next((field for field in fields if wire_name(field) == path[0]), None)
        if name is not None and name in fields:
            return self, name
        parts = self.api_parts()
        for cut in range(len(path) - 1, -1, -1):
            part, rest = parts.get(".".join(map(str, path[:cut]))), path[cut:]
            if isinstance(part, list):  # rows: the next step of the path is the row's index
                index = rest[0]
                part = part[index] if isinstance(index, int) and 0 <= index < len(part) else None
                rest = rest[1:]
            found = part.api_field(rest) if part is not None else None
            if found is not None:
                return found
        return None

    def add_api_errors(self, errors) -> None:
        for error in errors:
            found = self.api_field(tuple(error.path))
            if found is not None:
                form, name = found
                form.add_error(name, error.message)
            else:
                self.add_top_error(f"{error.field}: {error.message}" if error.path else error.message)

    def add_top_error(self, message: str) -> None:
        self.add_error(None, message)


class FixedChoices(BaseChoiceIterator):
    """Choices that never change (the countries, a form's fixed lists), shared by every copy of
    the field: Django copies a field's choices pair by pair into each form it makes (a KYB page
    makes forms with twenty country lists of 250 pairs), and these need no copy."""

    def __init__(self, choices):
        self.pairs = tuple(normalize_choices(list(choices)))

    def __iter__(self):
        return iter(self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    @functools.cached_property
    def _written(self) -> tuple[list[str], dict[str, int]]:
        """Each option as select_html writes it unchosen, and the first option of each value."""
        options, first = [], {}
        for index, (value, label) in enumerate(self.pairs):
            options.append(_option({"value": value, "attrs": {}, "label": label}))
            first.setdefault("" if value is None else str(value), index)
        return options, first

    @functools.cached_property
    def grouped(self) -> bool:
        return any(isinstance(label, (list, tuple)) for _, label in self.pairs)

    def options_html(self, values: list[str]) -> SafeString:
        """The options with the first one of `values` chosen, as Django's Select marks it."""
        options, first = self._written
        chosen = min((first[value] for value in values if value in first), default=None)
        if chosen is not None:
            value, label = self.pairs[chosen]
            marked = _option({"value": value, "attrs": {"selected": True}, "label": label})
            options = [*options[:chosen], marked, *options[chosen + 1 :]]
        # Every value and label went through escape() in _option: the whole is safe.
        return SafeString("".join(options))


class SuggestInput(forms.TextInput):
    """A text input that suggests the values it knows (a <datalist>, staff words beside the
    codes) and still takes one it does not: a code added later, a bookmarked filter.
    `suggestions()` gives (value, word) pairs when the input is written."""

    def __init__(self, suggestions, attrs=None):
        super().__init__(attrs)
        self.suggestions = suggestions

    def render(self, name, value, attrs=None, renderer=None):
        list_id = f"{(attrs or {}).get('id') or name}-suggestions"
        attrs = {**(attrs or {}), "list": list_id, "autocomplete": "off"}
        options = format_html_join("", '<option value="{}">{}</option>', self.suggestions())
        return format_html(
            '{}<datalist id="{}">{}</datalist>', super().render(name, value, attrs, renderer), list_id, options
        )


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
    kept = getattr(widget["optgroups"], "options_html", lambda: None)()
    if kept is not None:
        return _select_tag(widget["name"], widget["attrs"], kept)
    parts = []
    for name, options, _ in widget["optgroups"]:  # ungrouped choices: a group of one each
        if any(option["template_name"] != OPTION for option in options):
            return None
        if name:
            parts += [f'<optgroup label="{conditional_escape(name)}">', *map(_option, options), "</optgroup>"]
        else:
            parts += map(_option, options)
    # Every value and label above went through escape(): the whole is safe.
    return _select_tag(widget["name"], widget["attrs"], SafeString("".join(parts)))


def _select_tag(name: str, attrs: dict, options: SafeString) -> SafeString:
    return format_html('<select name="{}"{}>{}</select>', name, flatatt(attrs), options)


class FixedSelect(forms.Select):
    """The select of a field of FixedChoices, its options written once per list: Django makes a
    dict per option of every select it draws (a country list is 250 of them, a KYB page has
    seventeen); here the options are made only for Django's own templates (FixedOptgroups), and
    FormRenderer writes the kept options with the chosen one marked (the same HTML,
    tests/core/test_rendering.py)."""

    def get_context(self, name, value, attrs):
        context = forms.Widget.get_context(self, name, value, attrs)  # ChoiceWidget's, but for:
        context["widget"]["optgroups"] = FixedOptgroups(self, name, context["widget"]["value"], attrs)
        if self.allow_multiple_selected:
            context["widget"]["attrs"]["multiple"] = True
        return context


class FixedOptgroups:
    """A FixedSelect's optgroups, made by Django's Select only when a template iterates them."""

    def __init__(self, widget: FixedSelect, name: str, values: list[str], attrs):
        self.widget, self.name, self.values, self.attrs = widget, name, values, attrs

    def __iter__(self):
        return iter(self.widget.optgroups(self.name, self.values, self.attrs))

    def options_html(self) -> SafeString | None:
        choices = self.widget.choices
        if not isinstance(choices, FixedChoices) or choices.grouped or self.widget.allow_multiple_selected:
            return None
        if self.widget.option_template_name != OPTION:
            return None
        return choices.options_html(self.values)


MULTIPLE = {"django/forms/widgets/checkbox_select.html", "django/forms/widgets/radio.html"}
INPUT_OPTION = {"django/forms/widgets/checkbox_option.html", "django/forms/widgets/radio_option.html"}


def _input_option(o: dict) -> str:
    value = "" if o["value"] is None else f' value="{conditional_escape(str(o["value"]))}"'
    tag = format_html('<input type="{}" name="{}"', o["type"], o["name"]) + value + flatatt(o["attrs"]) + ">"
    if not o["wrap_label"]:
        return tag
    label_for = format_html(' for="{}"', o["attrs"]["id"]) if o["attrs"].get("id") else ""
    return f"<label{label_for}>{tag} {conditional_escape(o['label'])}</label>"


def multiple_input_html(widget: dict) -> str | None:
    """Checkboxes or radio buttons of a widget context as Django's templates write them; None
    when an option has a template of its own."""
    attrs = widget["attrs"]
    parts = [
        format_html(
            "<div{}{}>",
            format_html(' id="{}"', attrs["id"]) if attrs.get("id") else "",
            format_html(' class="{}"', attrs["class"]) if attrs.get("class") else "",
        )
    ]
    for group, options, _ in widget["optgroups"]:
        if any(option["template_name"] not in INPUT_OPTION for option in options):
            return None
        if group:
            parts.append(format_html("\n  <div><label>{}</label>", group))
        parts += [f"<div>\n    {_input_option(option)}</div>" for option in options]
        if group:
            parts.append("\n  </div>")
    parts.append("\n</div>")
    # Every value and label above went through escape(): the whole is safe.
    return SafeString("".join(parts))


# Every widget template that is Django's input.html and nothing else.
INPUT = {
    f"django/forms/widgets/{name}.html"
    for name in (
        "input", "text", "search", "number", "email", "url", "tel", "password", "hidden", "date", "datetime",
        "time", "color", "checkbox",
    )
}  # fmt: skip


def attrs_html(attrs: dict) -> str:
    """attrs.html: each attribute in its order, a True one bare, a False one left out."""
    return "".join(
        f" {conditional_escape(name)}"
        if value is True
        else f' {conditional_escape(name)}="{conditional_escape(str(value))}"'
        for name, value in attrs.items()
        if value is not False
    )


def input_html(widget: dict) -> str:
    """A widget context as Django's input.html writes it (and the templates that only include it)."""
    value = widget["value"]
    shown = "" if value is None else f' value="{conditional_escape(str(value))}"'
    tag = f'<input type="{conditional_escape(widget["type"])}" name="{conditional_escape(widget["name"])}"'
    # Every value and name above went through conditional_escape(): the whole is safe.
    return SafeString(f"{tag}{shown}{attrs_html(widget['attrs'])}>")


# Kept: Django's renderer misses the budget on the transactions list (docs/benchmarks.md, "Keep or remove").
class FormRenderer(DjangoTemplates):
    def render(self, template_name, context, request=None):
        html = None
        if template_name in INPUT:
            html = input_html(context["widget"])
        elif template_name == SELECT:
            html = select_html(context["widget"])
        elif template_name in MULTIPLE:
            html = multiple_input_html(context["widget"])
        return html if html is not None else super().render(template_name, context, request)


def day_start(day: dt.date) -> dt.datetime:
    """The first instant of `day` in the active time zone (the staff member's), as an aware
    datetime: date filters compare the column with such bounds, which its index can seek,
    instead of casting every row to a date."""
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min), timezone.get_current_timezone())


def day_range(since=None, until=None) -> dict:
    """Lookups on a datetime column for the days `since` to `until` (both included, either
    may be None): >= the start of `since`, < the start of the day after `until`."""
    bounds = {}
    if since is not None:
        bounds["gte"] = day_start(since)
    if until is not None:
        bounds["lt"] = day_start(until + dt.timedelta(days=1))
    return bounds


def date_input():
    return forms.DateInput(attrs={"type": "date"})


class DayFilter(django_filters.DateFilter):
    """A day bounding a datetime column: that day and after, or with `until` that day and
    before, whole days in the staff member's time zone (day_range: a range the column's index
    seeks, rather than a cast of every row to a date)."""

    def __init__(self, *, until: bool = False, **kwargs):
        super().__init__(widget=date_input(), **kwargs)
        self.until = until

    def filter(self, qs, value):
        if value in EMPTY_VALUES:
            return qs
        bounds = day_range(until=value) if self.until else day_range(since=value)
        return qs.filter(**{f"{self.field_name}__{op}": bound for op, bound in bounds.items()})


def textarea_field(label: str, *, max_length: int, rows: int = 3, **kwargs) -> forms.CharField:
    """Free text of a few lines: a reason, a note."""
    return forms.CharField(label=label, max_length=max_length, widget=forms.Textarea(attrs={"rows": rows}), **kwargs)
