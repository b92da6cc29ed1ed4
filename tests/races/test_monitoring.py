"""Monitoring sent twice or at once: an alert decided once; the open alert counts the review
queue reads, exact whatever raises and decides at once; a rule submitted once, approved once
through its approval request, and paused while its new version is approved, each step audited once."""

import threading

import pytest
from django.db import connections
from django.urls import reverse

from audit.models import AuditEvent
from monitoring.models import Alert, AlertKind, AlertStatus, MonitoringRule, RuleKind, RuleStatus
from monitoring.services import alert_decide, raise_alerts, rule_approve, rule_create, rule_new_version, rule_submit
from payments.models import ApprovalRequest
from tests.factories import CustomerFactory
from tests.monitoring.helpers import admin
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


# --- The rule lifecycle: one approval request, one approval, one pause -----------------------------


def _successes(action: str) -> int:
    return AuditEvent.objects.filter(action=action, outcome="success").count()


def _submitted_rule(maker_user, *, live_first: bool = False):
    """A large-transfer rule drafted by `maker_user` and submitted; with `live_first`, a live
    rule (approved by someone else) whose second version is submitted."""
    rule = rule_create(user=maker_user, name="Big", kind=RuleKind.LARGE_TRANSFER, params={"min_usd": "100"})
    if live_first:
        rule_submit(user=maker_user, rule=rule)
        rule_approve(user=admin(), rule=rule)
        rule_new_version(user=maker_user, rule=rule, params={"min_usd": "1000"})
    approval = rule_submit(user=maker_user, rule=rule)
    return MonitoringRule.objects.get(pk=rule.pk), approval


@pytest.mark.parametrize("how", ["double-click", "two admins"])
def test_a_rule_approved_at_once_goes_live_once(racing, make_staff, how):
    rule, approval = _submitted_rule(make_staff("admin", "maker"))
    ada = racing.member(make_staff("admin", "ada"))
    checkers = [ada, ada] if how == "double-click" else [ada, racing.member(make_staff("admin", "ben"))]
    url = reverse("payments-approve-approval-request", args=[approval.pk])

    answers = at_once(*[lambda c=c: c.post(url) for c in checkers], gap=0.05 if how == "double-click" else 0.0)

    assert all(answer.status_code == 302 for answer in answers), [a.status_code for a in answers]
    approval.refresh_from_db()
    rule.refresh_from_db()
    assert approval.status == "executed"
    assert (rule.status, rule.live_version.approved_by) == (RuleStatus.LIVE, approval.checker)
    assert _successes("approval.approve") == _successes("approval.execute") == 1
    assert _successes("monitoring.rule_approve") == 1


def test_a_rule_submitted_twice_at_once_asks_once(racing, make_staff):
    maker_user = make_staff("admin", "maker")
    rule = rule_create(user=maker_user, name="Big", kind=RuleKind.LARGE_TRANSFER, params={"min_usd": "100"})
    maker = racing.member(maker_user)
    url = reverse("monitoring-submit-rule", args=[rule.pk])

    answers = at_once(lambda: maker.post(url), lambda: maker.post(url), gap=0.05)

    assert [answer.status_code for answer in answers] == [302, 302]
    assert ApprovalRequest.objects.count() == 1
    assert _successes("monitoring.rule_submit") == _successes("approval.request") == 1
    rule.refresh_from_db()
    assert rule.status == RuleStatus.WAITING and rule.current_version.approval == ApprovalRequest.objects.get()


def test_a_pause_racing_the_approval_of_a_new_version_keeps_both(racing, make_staff):
    """One admin pauses the live rule while another approves its new version: whichever comes
    first, the rule ends paused at the new version, each step done and audited once."""
    maker_user = make_staff("admin", "maker")
    rule, approval = _submitted_rule(maker_user, live_first=True)
    pauser = racing.member(maker_user)
    checker = racing.member(make_staff("admin", "ada"))

    answers = at_once(
        lambda: pauser.post(reverse("monitoring-pause-rule", args=[rule.pk])),
        lambda: checker.post(reverse("payments-approve-approval-request", args=[approval.pk])),
    )

    assert [answer.status_code for answer in answers] == [302, 302]
    rule.refresh_from_db()
    assert (rule.status, rule.live_version.number) == (RuleStatus.PAUSED, 2)
    assert _successes("monitoring.rule_pause") == 1
    # Two approvals: the first version's (set-up) and this one.
    assert _successes("monitoring.rule_approve") == 2


def test_two_evaluate_due_runs_at_once_evaluate_each_change_once():
    """Beat may start a run while another is under way (or two workers take one each): one run
    evaluates the marked transactions, the other leaves it the work, and each raises its alert
    once with no mark left behind."""
    from django.utils import timezone

    from monitoring.tasks import evaluate_due_transactions
    from payments.models import Transaction
    from tests.monitoring.helpers import customer, live_rule, tx

    live_rule(RuleKind.LARGE_TRANSFER, min_usd="20")
    marked = [tx(customer(), 30 + i) for i in range(12)]
    Transaction.objects.filter(pk__in=[t.pk for t in marked]).update(evaluation_due_at=timezone.now())
    evaluated = []

    _together(*[lambda _i: evaluated.append(evaluate_due_transactions())] * 2, rounds=1)

    assert sorted(evaluated) == [0, 12]
    assert Alert.objects.filter(kind=AlertKind.MONITORING).count() == 12
    assert not Transaction.objects.filter(evaluation_due_at__isnull=False).exists()


def test_changes_landing_while_the_rules_run_are_all_evaluated():
    """A webhook's upsert marks a transaction again while a run evaluates: its mark survives the
    run's clearing, and the next run evaluates that change; nothing is left due at the end."""
    import datetime as dt

    from monitoring.tasks import evaluate_due_transactions
    from payments.models import Transaction
    from payments.upserts import transactions_upsert
    from paymentsapi import types as api
    from tests.monitoring.helpers import customer, live_rule
    from upstream.mirrored import Source

    # Only each transaction's last copy (41-44 USD, rounds 16-19) reaches the rule's 41 USD: an
    # alert per transaction proves its last change was evaluated, not cleared unseen.
    live_rule(RuleKind.LARGE_TRANSFER, min_usd="41")
    someone = customer()
    start = dt.datetime.now(dt.UTC)

    def change(i: int) -> None:
        updated = (start + dt.timedelta(seconds=i)).isoformat()
        item = api.Transaction.model_validate(
            {
                "transactionId": f"tx-race-{i % 4}",
                "customerId": someone.customer_id,
                "transactionStatus": "AWAITING_TRANSFER",
                "source": {
                    "sourceCurrency": {"label": "USD"},
                    "sourcePaymentMethod": "ACH",
                    "sourceAmount": f"{25 + i}.00",
                },
                "destination": {"destinationCurrency": {"label": "USDC"}, "destinationPaymentMethod": "BASE"},
                "createdAt": start.isoformat(),
                "updatedAt": updated,
            }
        )
        transactions_upsert(items=[item], seen_by=Source.WEBHOOK)

    _together(change, lambda _i: evaluate_due_transactions(), rounds=20)
    evaluate_due_transactions()

    assert not Transaction.objects.filter(evaluation_due_at__isnull=False).exists()
    assert Transaction.objects.filter(transaction_id__startswith="tx-race-").count() == 4
    assert Alert.objects.filter(kind=AlertKind.MONITORING).count() == 4
