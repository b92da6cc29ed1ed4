"""Monitoring's decisions sent twice or at once: one decision, one audit event of success; and the
open alert counts the review queue reads, exact whatever raises and decides at once."""

import threading

import pytest
from django.db import connections
from django.urls import reverse

from audit.models import AuditEvent
from monitoring.models import Alert, AlertKind, AlertStatus
from monitoring.services import alert_decide, raise_alerts
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


def _together(*works, rounds: int) -> None:
    """Each work `rounds` times in a thread of its own, the threads released together (the
    workers that raise alerts and the reviewers who decide them, each on its own connection)."""
    barrier = threading.Barrier(len(works), timeout=30)
    errors: list[BaseException] = []

    def run(work) -> None:
        try:
            barrier.wait()
            for i in range(rounds):
                work(i)
        except BaseException as exc:  # reported below: a thread's failure must fail the test
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(work,)) for work in works]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors


def test_alerts_raised_and_decided_at_once_keep_the_customers_counts_exact(make_staff):
    """Two workers raise alerts on the same customers while a reviewer decides some: the
    queue's counts on the customer equal its open alerts (each raise or decision counts under
    the customer's row lock, after the one before committed)."""
    customers = [CustomerFactory(), CustomerFactory()]
    reviewer = make_staff("compliance", "rosa")
    first = Alert.objects.create(kind=AlertKind.SCREENING, customer=customers[0], dedupe_key="race:d0", sentence="s")
    to_decide = [first] + [
        Alert.objects.create(kind=AlertKind.SCREENING, customer=customers[i % 2], dedupe_key=f"race:d{i}", sentence="s")
        for i in range(1, 8)
    ]

    def worker(name: str, kind: str):
        def work(i: int) -> None:
            raise_alerts(
                [
                    Alert(kind=kind, customer=c, dedupe_key=f"race:{name}:{i}:{c.pk}", sentence="s")
                    for c in (customers if i % 2 else reversed(customers))
                ]
            )

        return work

    def decide(i: int) -> None:
        alert_decide(user=reviewer, alert=to_decide[i], decision="false_positive", reason="Seen.")

    _together(worker("a", AlertKind.SCREENING), worker("b", AlertKind.MONITORING), decide, rounds=8)

    for customer in customers:
        customer.refresh_from_db()
        open_alerts = Alert.objects.filter(customer=customer, status=AlertStatus.OPEN)
        assert customer.open_screening_alerts == open_alerts.filter(kind=AlertKind.SCREENING).count() == 8
        assert customer.open_monitoring_alerts == open_alerts.filter(kind=AlertKind.MONITORING).count() == 8
