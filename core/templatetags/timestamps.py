"""Times in pages, without the date filter's format engine: a list shows 50 rows, each with a
time or two, and `|date` parses its format string character by character on every call.

Times are shown in the current time zone (the staff member's, staff/timezones.py), with the
UTC time on hover:

{{ value|iso }}     2026-11-23T21:41:05.123456+01:00 (a <time datetime=...> attribute)
{{ value|minute }}  <span title="2026-11-23 20:41 UTC">2026-11-23 21:41</span>
{{ value|second }}  <span title="2026-11-23 20:41:05 UTC">2026-11-23 21:41:05</span>
"""

import datetime as dt

from django import template
from django.utils.safestring import SafeString

register = template.Library()


def _with_utc_title(value, fmt: str) -> str:
    if not value:
        return ""
    shown = value.strftime(fmt)
    if not isinstance(value, dt.datetime) or value.tzinfo is None:
        return shown
    # Digits, dashes and colons only: nothing to escape.
    return SafeString(f'<span title="{value.astimezone(dt.UTC).strftime(fmt)} UTC">{shown}</span>')


@register.filter(expects_localtime=True)
def iso(value) -> str:
    return value.isoformat() if value else ""


@register.filter(expects_localtime=True)
def minute(value) -> str:
    return _with_utc_title(value, "%Y-%m-%d %H:%M")


@register.filter(expects_localtime=True)
def second(value) -> str:
    return _with_utc_title(value, "%Y-%m-%d %H:%M:%S")
