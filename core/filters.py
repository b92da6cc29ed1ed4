import datetime as dt

import django_filters
from django import forms
from django.utils import timezone

from . import labels
from .forms import SuggestInput
from .models import AuditEvent


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


def _date_input():
    return forms.DateInput(attrs={"type": "date"})


class AuditEventFilter(django_filters.FilterSet):
    actor = django_filters.CharFilter(field_name="actor_username", label="Actor")
    action = django_filters.CharFilter(
        field_name="action", label="Action", widget=SuggestInput(lambda: sorted(labels.words(labels.ACTION).items()))
    )
    target_kind = django_filters.CharFilter(field_name="target_kind", label="Target kind")
    target_id = django_filters.CharFilter(field_name="target_id", label="Target id")
    # Whole days in the staff member's time zone, as a range on created_at (the keyset index
    # seeks it) rather than a cast of every row to a date.
    since = django_filters.DateFilter(
        field_name="created_at", method="filter_since", label="From", widget=_date_input()
    )
    until = django_filters.DateFilter(
        field_name="created_at", method="filter_until", label="Until", widget=_date_input()
    )

    class Meta:
        model = AuditEvent
        fields = []

    def filter_since(self, queryset, name, value):
        return queryset.filter(**{f"{name}__{op}": bound for op, bound in day_range(since=value).items()})

    def filter_until(self, queryset, name, value):
        return queryset.filter(**{f"{name}__{op}": bound for op, bound in day_range(until=value).items()})
