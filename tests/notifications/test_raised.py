"""Each kind raised once, for the right people, never for the actor: the staff actions (their
audit events, handed to the worker after commit) and the periodic check's conditions."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from customers import services_cases
from customers.models import CaseDecision, CustomerStatus
from mirror.models import WebhookEvent
from notifications import conditions
from notifications.models import Notification, OpenCondition
from notifications.tasks import notify_audit_event
from payments.models import ApprovalRequest, TransactionStatus
from payments.services.approvals import approval_request_account_hold
from tests.conftest import signed_in
from tests.factories import (
    CustomerFactory,
    PaymentAccountFactory,
    SyncRunFactory,
    TransactionFactory,
    WebhookEventFactory,
)
from tests.payments.transactions_helpers import quote_post_data, sandbox_customer

pytestmark = pytest.mark.django_db


def told(kind: str) -> list[tuple[str, str]]:
    """(recipient, sentence) of every notification of `kind`, by recipient."""
    rows = Notification.objects.filter(kind=kind).order_by("recipient__username")
    return [(n.recipient.username, n.sentence) for n in rows.select_related("recipient")]


def recipients(kind: str) -> list[str]:
    return [name for name, _ in told(kind)]


@pytest.fixture(autouse=True)
def _reviews_wait(settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10 * 366 * 24 * 3600


def test_a_large_execute_tells_those_who_may_approve_it_but_not_its_maker(
    upstream, make_staff, django_capture_on_commit_callbacks
):
    setup = sandbox_customer(upstream)
    olga = make_staff("operations", "olga")
    make_staff("operations", "pavel")
    make_staff("admin", "ada-admin")
    make_staff("compliance", "carl")  # may not move money: not told
    make_staff("auditor", "aude")
    maker = signed_in(olga)
    response = maker.post(reverse("payments-create-quote"), quote_post_data(setup, amount="20000.00"))
    quote_id = response["Location"].rstrip("/").split("/")[-1]
    with django_capture_on_commit_callbacks(execute=True):
        maker.post(reverse("payments-execute-quote", args=[quote_id]), {"correlation_id": ""})
    approval = ApprovalRequest.objects.get()

    assert recipients("approval_waiting") == ["ada-admin", "pavel"]
    notification = Notification.objects.get(recipient__username="pavel")
    assert notification.sentence.startswith("olga asks for your approval: Execute 20000 USD")
    assert notification.link == reverse("payments-view-approval-request", args=[approval.pk])

    # The same event handled again (a worker's retry) tells nobody twice.
    event = AuditEvent.objects.get(action="approval.request")
    assert notify_audit_event(event.pk) == 0
    assert Notification.objects.filter(kind="approval_waiting").count() == 2


def test_a_request_decided_before_the_worker_came_tells_nobody(make_staff):
    from tests.factories import ApprovalRequestFactory

    make_staff("operations", "pavel")
    approval = ApprovalRequestFactory(status="withdrawn")
    event = AuditEvent.objects.create(
        action="approval.request", target_kind="approval_request", target_id=str(approval.pk)
    )
    assert notify_audit_event(event.pk) == 0
    assert not Notification.objects.exists()


def test_a_case_assigned_tells_the_assignee_and_a_claim_tells_nobody(make_staff, django_capture_on_commit_callbacks):
    lead = make_staff("compliance_lead", "lena")
    carl = make_staff("compliance", "carl")
    customer = CustomerFactory(name="Grace Hopper")
    with django_capture_on_commit_callbacks(execute=True):
        services_cases.customer_assign(actor=lead, customer=customer, assignee=carl)
    assert told("case_assigned") == [("carl", "lena assigned you the case of Grace Hopper")]
    assert Notification.objects.get().link == reverse("customers-view-customer", args=[customer.customer_id])

    other = CustomerFactory()
    with django_capture_on_commit_callbacks(execute=True):
        services_cases.customer_assign(actor=carl, customer=other, assignee=carl)  # claimed: their own action
    assert Notification.objects.count() == 1


def test_a_bulk_assignment_tells_the_assignee_of_each_case(make_staff, django_capture_on_commit_callbacks):
    lead = make_staff("compliance_lead", "lena")
    carl = make_staff("compliance", "carl")
    cases = [CustomerFactory(), CustomerFactory()]
    with django_capture_on_commit_callbacks(execute=True):
        services_cases.customers_bulk_assign(actor=lead, customer_ids=[c.customer_id for c in cases], assignee=carl)
    assert recipients("case_assigned") == ["carl", "carl"]


def test_an_escalation_tells_the_leads_but_not_the_lead_who_escalated(make_staff, django_capture_on_commit_callbacks):
    lena = make_staff("compliance_lead", "lena")
    make_staff("compliance_lead", "leo")
    make_staff("compliance", "carl")
    make_staff("admin", "ada-admin")
    customer = CustomerFactory(name="Helix Analytics", status=CustomerStatus.UNDER_REVIEW)
    with django_capture_on_commit_callbacks(execute=True):
        services_cases.customer_decide(
            actor=lena, customer=customer, kind=CaseDecision.Kind.ESCALATED, reason="Odd documents", seen=0
        )
    assert told("case_escalated") == [("leo", "lena escalated the case of Helix Analytics (level 1)")]


def test_other_decisions_and_refused_escalations_tell_nobody(make_staff, django_capture_on_commit_callbacks):
    carl = make_staff("compliance", "carl")
    make_staff("compliance_lead", "leo")
    customer = CustomerFactory(status=CustomerStatus.UNDER_REVIEW)
    with django_capture_on_commit_callbacks(execute=True):
        services_cases.customer_decide(
            actor=carl, customer=customer, kind=CaseDecision.Kind.APPROVED, reason="Fine", seen=0
        )
        AuditEvent.objects.create(
            actor=carl,
            action="customer.decide",
            target_kind="customer",
            target_id=customer.customer_id,
            outcome=AuditEvent.Outcome.DENIED,
            details={"decision": "escalated", "escalation_level": 1},
        )
    assert not Notification.objects.exists()


def test_nothing_is_told_of_an_action_that_rolled_back(make_staff, django_capture_on_commit_callbacks):
    from django.db import transaction

    lead = make_staff("compliance_lead", "lena")
    carl = make_staff("compliance", "carl")
    customer = CustomerFactory()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        try:
            with transaction.atomic():
                services_cases.customer_assign(actor=lead, customer=customer, assignee=carl)
                raise RuntimeError("the view failed after")
        except RuntimeError:
            pass
    assert callbacks == []
    assert not Notification.objects.exists()


# --- The periodic check --------------------------------------------------------------------------


def test_a_case_past_its_sla_tells_its_assignee_once(make_staff, settings):
    carl = make_staff("compliance", "carl")
    make_staff("compliance", "cora")
    now = timezone.now()
    settings.CUSTOMERS_REVIEW_SLA_HOURS = 24
    CustomerFactory(
        name="Late Case",
        status=CustomerStatus.UNDER_REVIEW,
        status_since=now - dt.timedelta(hours=25),
        assignee=carl,
    )
    CustomerFactory(status=CustomerStatus.UNDER_REVIEW, status_since=now - dt.timedelta(hours=3))  # within SLA
    # Past it long before the look-back: history, not news.
    CustomerFactory(status=CustomerStatus.UNDER_REVIEW, status_since=now - dt.timedelta(days=30))
    assert conditions.cases_past_sla(now) == 1
    assert recipients("case_past_sla") == ["carl"]
    assert "The case of Late Case is past its SLA (24 h)" in told("case_past_sla")[0][1]
    assert conditions.cases_past_sla(now + dt.timedelta(minutes=5)) == 0
    assert Notification.objects.count() == 1


def test_an_unassigned_case_past_its_sla_tells_the_compliance_team(make_staff):
    make_staff("compliance", "carl")
    make_staff("compliance_lead", "lena")
    make_staff("operations", "olga")
    now = timezone.now()
    CustomerFactory(status=CustomerStatus.UNDER_REVIEW, status_since=now - dt.timedelta(hours=25))
    conditions.cases_past_sla(now)
    assert recipients("case_past_sla") == ["carl", "lena"]


def test_a_transfer_stuck_longer_than_the_setting_tells_operations_once(make_staff, settings):
    settings.NOTIFY_STUCK_AFTER_MINUTES = 120
    make_staff("operations", "olga")
    make_staff("compliance", "carl")
    now = timezone.now()
    stuck = TransactionFactory(status=TransactionStatus.PROCESSING, status_since=now - dt.timedelta(hours=3))
    TransactionFactory(status=TransactionStatus.PROCESSING, status_since=now - dt.timedelta(minutes=30))
    TransactionFactory(status=TransactionStatus.COMPLETED, status_since=now - dt.timedelta(hours=5))
    assert conditions.transfers_stuck(now) == 1
    assert recipients("transfer_stuck") == ["olga"]
    notification = Notification.objects.get()
    assert notification.link == reverse("payments-view-transaction", args=[stuck.transaction_id])
    assert stuck.transaction_id in notification.sentence and "processing" in notification.sentence
    assert conditions.transfers_stuck(now + dt.timedelta(minutes=5)) == 0
    assert Notification.objects.count() == 1


def test_a_stale_sync_tells_admins_once_until_it_recovers(make_staff, settings):
    settings.NOTIFY_SYNC_AFTER_MINUTES = 60
    make_staff("admin", "ada-admin")
    make_staff("operations", "olga")
    now = timezone.now()
    for kind in ("customers", "payment-accounts", "automation-rules"):
        SyncRunFactory(kind=kind, finished_at=now - dt.timedelta(minutes=5))
    SyncRunFactory(kind="transactions", finished_at=now - dt.timedelta(hours=3))
    assert conditions.syncs_stale(now) == 1
    assert told("sync_stale") == [("ada-admin", told("sync_stale")[0][1])]
    assert "The transactions sync has not succeeded since" in told("sync_stale")[0][1]
    assert conditions.syncs_stale(now + dt.timedelta(minutes=5)) == 0  # still stale: told already

    SyncRunFactory(kind="transactions", finished_at=now)  # it recovers ...
    assert conditions.syncs_stale(now) == 0
    assert not OpenCondition.objects.exists()
    later = now + dt.timedelta(hours=2)  # ... and stops again
    for kind in ("customers", "payment-accounts", "automation-rules"):
        SyncRunFactory(kind=kind, finished_at=later)
    assert conditions.syncs_stale(later) == 1
    assert Notification.objects.filter(kind="sync_stale").count() == 2


def test_an_inbox_backlog_tells_admins_once(make_staff, settings):
    settings.NOTIFY_INBOX_BACKLOG = 3
    make_staff("admin", "ada-admin")
    events = [WebhookEventFactory() for _ in range(3)]
    now = timezone.now()
    assert conditions.inbox_backlogged(now) == 0  # 3 is not more than 3
    WebhookEventFactory()
    assert conditions.inbox_backlogged(now) == 1
    assert conditions.inbox_backlogged(now) == 0
    assert told("inbox_backlog") == [("ada-admin", "More than 3 webhook events wait in the inbox")]
    WebhookEvent.objects.filter(pk__in=[e.pk for e in events]).update(state=WebhookEvent.State.PROCESSED)
    assert conditions.inbox_backlogged(now) == 0
    assert not OpenCondition.objects.exists()


def test_the_breaker_open_tells_admins_once(make_staff):
    from upstream.client import get_client

    make_staff("admin", "ada-admin")
    make_staff("operations", "olga")
    breaker = get_client().breaker
    now = timezone.now()
    assert conditions.breaker_opened(now) == 0
    breaker.open()
    try:
        assert conditions.breaker_opened(now) == 1
        assert conditions.breaker_opened(now) == 0
    finally:
        breaker.close()
    assert recipients("breaker_open") == ["ada-admin"]
    assert conditions.breaker_opened(now) == 0
    assert not OpenCondition.objects.exists()


def test_the_beat_task_runs_every_check(make_staff, settings):
    from notifications.tasks import check_conditions

    assert set(check_conditions()) == {
        "cases_past_sla",
        "transfers_stuck",
        "syncs_stale",
        "inbox_backlogged",
        "breaker_opened",
    }


def test_a_submitted_monitoring_rule_tells_the_other_admins(make_staff, django_capture_on_commit_callbacks):
    from monitoring.models import RuleKind
    from monitoring.services import rule_create, rule_submit

    maker = make_staff("admin", "mona")
    make_staff("admin", "ada-admin")
    make_staff("operations", "olga")  # may not approve monitoring rules: not told
    make_staff("compliance", "carl")
    rule = rule_create(user=maker, name="Big", kind=RuleKind.LARGE_TRANSFER, params={"min_usd": "100"})
    with django_capture_on_commit_callbacks(execute=True):
        approval = rule_submit(user=maker, rule=rule)

    assert recipients("approval_waiting") == ["ada-admin"]
    notification = Notification.objects.get(kind="approval_waiting")
    assert notification.sentence.startswith("mona asks for your approval: Make monitoring rule “Big” live")
    assert notification.link == reverse("payments-view-approval-request", args=[approval.pk])


def test_a_hold_asked_for_tells_the_other_admins(make_staff, django_capture_on_commit_callbacks):
    maker = make_staff("admin", "mona")
    make_staff("admin", "ada-admin")
    make_staff("operations", "olga")  # may not approve a hold: not told
    account = PaymentAccountFactory(nickname="Payee")
    with django_capture_on_commit_callbacks(execute=True):
        approval = approval_request_account_hold(actor=maker, account=account, reason="A true match.")

    assert recipients("approval_waiting") == ["ada-admin"]
    notification = Notification.objects.get(kind="approval_waiting")
    assert notification.sentence.startswith("mona asks for your approval: Hold Payee")
    assert notification.link == reverse("payments-view-approval-request", args=[approval.pk])
