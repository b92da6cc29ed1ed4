"""A monitoring alert tells compliance: what the alert says, with a link to it."""

from types import SimpleNamespace

import pytest

from notifications.kinds import monitoring_alert
from notifications.models import Notification
from notifications.services import raise_notification

pytestmark = pytest.mark.django_db


def test_an_alert_tells_compliance_and_its_leads_once(make_staff):
    make_staff("compliance", "carl")
    make_staff("compliance_lead", "lena")
    make_staff("operations", "olga")
    alert = SimpleNamespace(
        pk=7,
        sentence="Ada Lovelace moved 60,000 USD in 3 transfers within a day",
        get_absolute_url=lambda: "/alerts/7/",
    )
    for _ in range(2):
        raise_notification(monitoring_alert(alert), key=f"alert:{alert.pk}")
    rows = Notification.objects.order_by("recipient__username")
    assert [n.recipient.username for n in rows] == ["carl", "lena"]
    assert rows[0].sentence == "Monitoring alert: Ada Lovelace moved 60,000 USD in 3 transfers within a day"
    assert rows[0].link == "/alerts/7/"


def test_an_alert_raised_by_monitoring_reaches_compliance_once(make_staff, django_capture_on_commit_callbacks):
    from django.urls import reverse

    from monitoring.models import Alert, AlertKind
    from monitoring.services import raise_alerts
    from tests.factories import CustomerFactory

    make_staff("compliance", "carl")
    make_staff("operations", "olga")
    customer = CustomerFactory()
    sentence = "3 payouts of 9,900-9,990 USD in 20 h, 29,730 USD in all"
    for _ in range(2):  # the same transaction seen by webhook, then by sync
        with django_capture_on_commit_callbacks(execute=True):
            raise_alerts(
                [Alert(kind=AlertKind.MONITORING, customer=customer, dedupe_key="rule:1:tx:9", sentence=sentence)]
            )
    alert = Alert.objects.get()
    (notification,) = Notification.objects.all()
    assert notification.recipient.username == "carl"
    assert notification.sentence == f"Monitoring alert: {sentence}"
    assert notification.link == reverse("monitoring-view-alert", args=[alert.pk])
