"""The audit log's date filters take whole days in the staff member's zone, as a range on
created_at (no cast of the column to a date), and its target id filter needs no kind."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.filters import AuditEventFilter
from audit.models import AuditEvent
from staff.models import StaffPreference
from tests.factories import AuditEventFactory

pytestmark = pytest.mark.django_db

UTC = dt.UTC


def _event_at(action: str, when: dt.datetime, **fields) -> None:
    AuditEventFactory(action=action, **fields)
    AuditEvent.objects.filter(action=action).update(created_at=when)


def _actions(params: dict, zone: str = "UTC") -> set[str]:
    with timezone.override(zone):
        filterset = AuditEventFilter(params, queryset=AuditEvent.objects.all())
        assert filterset.is_valid()
        return set(filterset.qs.values_list("action", flat=True))


@pytest.fixture
def around_march_10():
    # The last microsecond before, the first instant of, and the last instant of 10 March (UTC).
    _event_at("before", dt.datetime(2026, 3, 9, 23, 59, 59, 999999, tzinfo=UTC))
    _event_at("first", dt.datetime(2026, 3, 10, 0, 0, tzinfo=UTC))
    _event_at("last", dt.datetime(2026, 3, 10, 23, 59, 59, 999999, tzinfo=UTC))
    _event_at("after", dt.datetime(2026, 3, 11, 0, 0, tzinfo=UTC))


def test_one_day_holds_exactly_its_rows_in_utc(around_march_10):
    assert _actions({"since": "2026-03-10", "until": "2026-03-10"}) == {"first", "last"}
    assert _actions({"since": "2026-03-10"}) == {"first", "last", "after"}
    assert _actions({"until": "2026-03-10"}) == {"before", "first", "last"}


def test_the_day_is_the_staff_members_day_in_another_zone(around_march_10):
    # In Tokyo (UTC+9) 10 March runs from 9 March 15:00 UTC to 10 March 15:00 UTC.
    _event_at("tokyo-last", dt.datetime(2026, 3, 10, 14, 59, 59, 999999, tzinfo=UTC))
    _event_at("tokyo-next", dt.datetime(2026, 3, 10, 15, 0, tzinfo=UTC))
    assert _actions({"since": "2026-03-10", "until": "2026-03-10"}, "Asia/Tokyo") == {
        "before",
        "first",
        "tokyo-last",
    }
    # In New York (UTC-4 from 8 March 2026) the 10th starts at 04:00 UTC.
    assert _actions({"since": "2026-03-10", "until": "2026-03-10"}, "America/New_York") == {
        "last",
        "after",
        "tokyo-last",
        "tokyo-next",
    }


def test_the_page_uses_the_zone_kept_for_the_user(client, make_staff):
    user = make_staff("auditor")
    StaffPreference.objects.create(user=user, time_zone="Asia/Tokyo")
    client.force_login(user)
    _event_at("utc-day-only", dt.datetime(2026, 3, 10, 16, 0, tzinfo=UTC))
    _event_at("tokyo-day", dt.datetime(2026, 3, 9, 16, 0, tzinfo=UTC))
    html = client.get(reverse("audit-list-events"), {"since": "2026-03-10", "until": "2026-03-10"}).content.decode()
    assert "tokyo-day" in html and "utc-day-only" not in html


def test_the_date_filters_compare_the_column_not_a_cast():
    with timezone.override("Europe/Berlin"):
        filterset = AuditEventFilter({"since": "2026-03-01", "until": "2026-03-31"}, queryset=AuditEvent.objects.all())
        assert filterset.is_valid()
        sql = str(filterset.qs.query).lower()
    assert "cast" not in sql and "django_datetime_cast_date" not in sql and "::date" not in sql
    assert '"created_at" >=' in sql and '"created_at" <' in sql


def test_target_id_alone_finds_the_target_of_any_kind():
    _event_at("on-customer", dt.datetime(2026, 3, 10, tzinfo=UTC), target_kind="customer", target_id="abc")
    _event_at("on-transaction", dt.datetime(2026, 3, 11, tzinfo=UTC), target_kind="transaction", target_id="abc")
    _event_at("elsewhere", dt.datetime(2026, 3, 12, tzinfo=UTC), target_id="xyz")
    assert _actions({"target_id": "abc"}) == {"on-customer", "on-transaction"}


def test_target_id_has_an_index_that_ends_with_the_keyset_order():
    indexes = {tuple(index.fields) for index in AuditEvent._meta.indexes}
    assert ("target_id", "-created_at", "-id") in indexes
