"""Times in pages, without the date filter's format engine: a list shows 50 rows, each with a
time or two, and `|date` parses its format string character by character on every call.

{{ value|iso }}     2026-11-23T20:41:05.123456+00:00 (a <time datetime=...> attribute)
{{ value|minute }}  2026-11-23 20:41
{{ value|second }}  2026-11-23 20:41:05
"""

from django import template

register = template.Library()


@register.filter(expects_localtime=True)
def iso(value) -> str:
    return value.isoformat() if value else ""


@register.filter(expects_localtime=True)
def minute(value) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else ""


@register.filter(expects_localtime=True)
def second(value) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if value else ""
