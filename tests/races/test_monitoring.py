"""Monitoring's decisions sent twice or at once: one decision, one audit event of success."""

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from monitoring.models import Alert, AlertKind, AlertStatus
from tests.factories import CustomerFactory
from tests.race import at_once

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("how", ["double-click", "two reviewers"])
def test_an_alert_decided_at_once_is_decided_once(racing, make_staff, how):
    rosa = racing.member(make_staff("compliance", "rosa"))
    senders = [rosa, rosa] if how == "double-click" else [rosa, racing.member(make_staff("compliance", "carl"))]
    alert = Alert.objects.create(
        kind=AlertKind.MONITORING, customer=CustomerFactory(), dedupe_key="race:1", sentence="Three transfers"
    )
    url = reverse("monitoring-decide-alert", args=[alert.pk])
    decisions = ["true_match", "false_positive"]

    answers = at_once(
        *[
            lambda member=member, decision=decision: member.post(url, {"decision": decision, "reason": "Seen."})
            for member, decision in zip(senders, decisions, strict=True)
        ],
        gap=0.05 if how == "double-click" else 0.0,
    )

    assert [answer.status_code for answer in answers] == [302, 302]
    alert.refresh_from_db()
    assert alert.status == AlertStatus.DECIDED and alert.decision in decisions
    events = AuditEvent.objects.filter(action="monitoring.alert_decide", outcome="success")
    assert [(e.actor_username, e.target_id) for e in events] == [(alert.decided_by.username, str(alert.pk))]
