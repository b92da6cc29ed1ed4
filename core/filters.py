import datetime as dt

from django import forms
from django.utils import timezone


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
