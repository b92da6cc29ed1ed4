"""Each staff member sees times in their own zone: kept per user, reported by the browser
once, changeable; the UTC time stays in the title."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from audit.models import AuditEvent
from staff.models import StaffPreference
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db

URL = reverse("staff-set-time-zone")


def test_a_user_with_berlin_sees_local_times_and_the_utc_title(client, make_staff):
    user = make_staff("compliance")
    StaffPreference.objects.create(user=user, time_zone="Europe/Berlin")
    customer = CustomerFactory(status_since=dt.datetime(2026, 1, 15, 9, 5, tzinfo=dt.UTC))
    client.force_login(user)

    html = client.get(reverse("customers-view-customer", args=[customer.customer_id])).content.decode()

    assert '<span title="2026-01-15 09:05 UTC">2026-01-15 10:05</span>' in html
    assert 'datetime="2026-01-15T10:05:00+01:00"' in html
    assert ">Time zone: Europe/Berlin</a>" in html  # the zone is named in the member's menu


def test_without_a_zone_times_are_utc_and_the_browser_is_asked(client, make_staff):
    customer = CustomerFactory(status_since=dt.datetime(2026, 1, 15, 9, 5, tzinfo=dt.UTC))
    client.force_login(make_staff("compliance"))

    html = client.get(reverse("customers-view-customer", args=[customer.customer_id])).content.decode()

    assert '<span title="2026-01-15 09:05 UTC">2026-01-15 09:05</span>' in html
    assert f'data-detect-time-zone="{URL}"' in html


def test_the_browser_zone_is_kept_once_and_never_over_a_choice(client, make_staff):
    user = make_staff("operations")
    client.force_login(user)

    assert client.post(URL, {"time_zone": "America/Sao_Paulo", "detected": "1"}).status_code == 204
    assert StaffPreference.objects.get(user=user).time_zone == "America/Sao_Paulo"
    assert client.post(URL, {"time_zone": "Asia/Tokyo", "detected": "1"}).status_code == 204
    assert StaffPreference.objects.get(user=user).time_zone == "America/Sao_Paulo"
    assert "data-detect-time-zone" not in client.get(URL).content.decode()


def test_the_user_changes_the_zone_and_it_follows_them_to_the_next_login(client, make_staff):
    user = make_staff("auditor")
    client.force_login(user)

    response = client.post(URL, {"time_zone": "Europe/Berlin"})

    assert response.status_code == 302
    assert StaffPreference.objects.get(user=user).time_zone == "Europe/Berlin"
    event = AuditEvent.objects.get(action="user.set_time_zone")
    assert event.actor == user and event.details["time_zone"] == "Europe/Berlin"
    client.logout()
    client.force_login(user)
    assert ">Time zone: Europe/Berlin</a>" in client.get(URL).content.decode()


def test_an_unknown_zone_is_refused_and_nothing_kept(client, make_staff):
    user = make_staff("auditor")
    client.force_login(user)

    response = client.post(URL, {"time_zone": "Mars/Olympus"})

    assert response.status_code == 400
    assert "Choose a time zone" in response.content.decode()
    assert not StaffPreference.objects.filter(user=user).exists()


def test_the_zone_costs_no_query_per_page(client, make_staff):
    user = make_staff("auditor")
    StaffPreference.objects.create(user=user, time_zone="Europe/Berlin")
    client.force_login(user)  # the login copies the zone into the session
    with CaptureQueriesContext(connection) as queries:
        response = client.get(URL)
    assert ">Time zone: Europe/Berlin</a>" in response.content.decode()
    assert not [q for q in queries.captured_queries if "staffpreference" in q["sql"]]
