"""The sandbox clock: real time plus the offset that test-helpers/clock/advance adds, and how
the API writes a time."""

import datetime as dt

from django.db.models import F
from django.utils import timezone

from .models import Clock


def offset() -> dt.timedelta:
    row = Clock.objects.filter(pk=1).values_list("offset_seconds", flat=True).first()
    return dt.timedelta(seconds=row or 0)


def now() -> dt.datetime:
    return timezone.now() + offset()


def advance(seconds: float) -> dt.datetime:
    Clock.objects.get_or_create(pk=1)
    Clock.objects.filter(pk=1).update(offset_seconds=F("offset_seconds") + seconds)
    return now()


def iso(value: dt.datetime) -> str:
    """A time as the API writes it: ISO 8601 in UTC, with Z."""
    return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
