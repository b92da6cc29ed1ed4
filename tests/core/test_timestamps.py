"""The time filters of lists print what Django's date filter prints, in the current time zone."""

import datetime as dt
import zoneinfo

import pytest
from django.template import Context, Template
from django.utils import timezone

MOMENT = dt.datetime(2026, 3, 29, 1, 30, 15, 123456, tzinfo=dt.UTC)  # 03:30:15 in Paris, summer time since 01:00 UTC


def render(text: str, value) -> str:
    return Template("{% load timestamps %}" + text).render(Context({"v": value}))


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
        assert render(ours, MOMENT) == render(django, MOMENT)


def test_the_current_time_zone_is_used():
    with timezone.override(zoneinfo.ZoneInfo("Europe/Paris")):
        assert render("{{ v|minute }}", MOMENT) == "2026-03-29 03:30"


@pytest.mark.parametrize("empty", [None, ""])
def test_no_time_prints_nothing(empty):
    assert render("{{ v|iso }}|{{ v|minute }}|{{ v|second }}", empty) == "||"
