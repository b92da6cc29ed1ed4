"""The Jinja2 engine, for the partials a page renders many times over: the rows of its lists.

A 50-row table costs the Django template language ~15 ms of processor time per page (every
`{{ row.field }}` is a lookup that tries a dictionary, an attribute and an index in turn);
Jinja2 compiles the same rows to Python and renders them about three times faster. Pages and
everything else stay in the Django template language; a page includes a Jinja2 partial with
`{% jinja_include "…/_rows.jinja" %}` (core/templatetags/jinja.py).

`url(name, *args)` is `{% url %}`. The filters are the project's own (timestamps, tx_display,
customers_extras) and the few of Django's that rows use, with Django's semantics under
Django's names, so a filter means the same in both engines. Filters Django gives local time
(`expects_localtime`) get it here too. Autoescaping is always on.
"""

import functools

from django.template import defaultfilters
from django.urls import reverse
from django.utils.text import add_truncation_text, calculate_truncate_chars_length
from django.utils.timezone import template_localtime
from jinja2 import Environment


def _in_local_time(filter_):
    @functools.wraps(filter_)
    def wrapped(value, *args):
        return filter_(template_localtime(value), *args)

    return wrapped


def truncatechars(value, length):
    """Django's `truncatechars`, without its per-call Truncator for ASCII text: a row truncates
    its ids, and for ASCII text there are no combining characters to skip and nothing for
    Unicode normalisation to change, so the result is a plain slice and the ellipsis."""
    text = str(value)
    if type(length) is not int or length <= 0 or not text.isascii():
        return defaultfilters.truncatechars(value, length)
    if len(text) <= length:
        return text
    return add_truncation_text(text[: calculate_truncate_chars_length(length, None)])


def url(name: str, *args) -> str:
    return reverse(name, args=args)


def environment(**options) -> Environment:
    from core.templatetags import timestamps
    from customers.templatetags import customers_extras
    from payments.templatetags import tx_display

    options.pop("autoescape", None)
    env = Environment(autoescape=True, **options)  # whatever the settings say: rows hold what the API sent
    env.globals["url"] = url
    env.filters.update(
        timesince=defaultfilters.timesince_filter,
        title=defaultfilters.title,
        truncatechars=truncatechars,
        urlencode=defaultfilters.urlencode,
    )
    for library in (timestamps.register, tx_display.register, customers_extras.register):
        for name, filter_ in library.filters.items():
            env.filters[name] = _in_local_time(filter_) if getattr(filter_, "expects_localtime", False) else filter_
    return env
