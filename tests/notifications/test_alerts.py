"""A monitoring alert, once the monitoring app exists, tells compliance: what the alert says,
with a link to it. Until then no receiver is connected."""

from types import SimpleNamespace

import pytest
from django.db.models.signals import post_save

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


def test_without_the_monitoring_app_only_the_audit_receiver_is_connected():
    from django.apps import apps

    assert not apps.is_installed("monitoring")
    uids = {entry[0][0] for entry in post_save.receivers}
    assert "notifications.audit_event" in uids
    assert "notifications.alert" not in uids
