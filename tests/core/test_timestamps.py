"""The time filters print what Django's date filter prints, in the current time zone, with the
UTC time in a title."""

import datetime as dt
import re
import zoneinfo

import pytest
from django.template import Context, Template
from django.utils import timezone

MOMENT = dt.datetime(2026, 3, 29, 1, 30, 15, 123456, tzinfo=dt.UTC)  # 03:30:15 in Paris, summer time since 01:00 UTC


def render(text: str, value) -> str:
    return Template("{% load timestamps %}" + text).render(Context({"v": value}))


def text_of(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


@pytest.mark.parametrize("zone", ["UTC", "Europe/Paris", "America/Sao_Paulo"])
@pytest.mark.parametrize(
    ("ours", "django"),
    [
        ("{{ v|iso }}", "{{ v|date:'c' }}"),
        ("{{ v|minute }}", '{{ v|date:"Y-m-d H:i" }}'),
        ("{{ v|second }}", '{{ v|date:"Y-m-d H:i:s" }}'),
    ],
)
def test_same_text_as_the_date_filter(zone, ours, django):
    with timezone.override(zoneinfo.ZoneInfo(zone)):
        assert text_of(render(ours, MOMENT)) == render(django, MOMENT)


def test_the_current_time_zone_is_shown_with_utc_on_hover():
    with timezone.override(zoneinfo.ZoneInfo("Europe/Paris")):
        assert render("{{ v|minute }}", MOMENT) == '<span title="2026-03-29 01:30 UTC">2026-03-29 03:30</span>'
        assert render("{{ v|second }}", MOMENT) == '<span title="2026-03-29 01:30:15 UTC">2026-03-29 03:30:15</span>'


def test_a_date_without_time_has_no_title():
    assert render("{{ v|minute }}", dt.date(2026, 3, 29)) == "2026-03-29 00:00"


@pytest.mark.parametrize("empty", [None, ""])
def test_no_time_prints_nothing(empty):
    assert render("{{ v|iso }}|{{ v|minute }}|{{ v|second }}|{{ v|second|default:'never' }}", empty) == "|||never"
