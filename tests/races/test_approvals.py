"""Four-eyes under double clicks and colleagues deciding at once: one write upstream, one audit
event of its success, and a request whose final state matches what the upstream holds."""

import pytest
from django.urls import reverse

from core.models import AuditEvent
from mirror.sync import sync_payment_accounts
from payments.models import ApprovalRequest, ApprovalStatus
from tests.payments.account_fixtures import make_account, make_customer
from tests.race import at_once

pytestmark = pytest.mark.django_db(transaction=True)


def _rules_upstream(sandbox, customer_id: str, name: str) -> list[dict]:
    rules = sandbox.call("GET", "/automation-rules", params={"customerId": customer_id})["automationRules"]
    return [rule for rule in rules if rule["name"] == name]


@pytest.fixture
def rule_request(racing, make_staff):
    """An admin's request to create a CRON rule, waiting for a second admin."""
    customer_id = make_customer(racing.sandbox)
    service = make_account(racing.sandbox, customer_id, "service_wallet")["paymentAccountId"]
    bank = make_account(racing.sandbox, customer_id, "bank")["paymentAccountId"]
    sync_payment_accounts()
    maker = racing.member(make_staff("admin", "maker"))
    name = "Sweep USDC to the bank"
    answer = maker.post(
        reverse("payments-create-automation-rule"),
        {
            "name": name,
            "customer_id": customer_id,
            "source_account_id": service,
            "source_payment_method": "BASE",
            "source_currency": "USDC",
            "destination_account_id": bank,
            "destination_payment_method": "ACH",
            "destination_currency": "USD",
            "amount": "50.00",
            "developer_fee": "",
            "trigger_type": "CRON",
            "cron_schedule": "0 9 * * 1-5",
            "threshold_amount": "",
        },
    )
    assert answer.status_code == 302, answer.text[:2000]
    approval = ApprovalRequest.objects.get()
    return {"approval": approval, "customer_id": customer_id, "name": name}


@pytest.mark.parametrize(("clicks", "gap"), [(2, 0.05), (8, 0.0)], ids=["double-click", "eight-at-once"])
def test_approving_a_rule_at_once_creates_it_once(racing, make_staff, rule_request, clicks, gap):
    checker = racing.member(make_staff("admin", "checker"))
    url = reverse("payments-approve-approval-request", args=[rule_request["approval"].pk])
    answers = at_once(*[lambda: checker.post(url)] * clicks, gap=gap)

    assert all(answer.status_code in (302, 303) for answer in answers), [a.status_code for a in answers]
    rules = _rules_upstream(racing.sandbox, rule_request["customer_id"], rule_request["name"])
    assert len(rules) == 1
    assert AuditEvent.objects.filter(action="automation_rule.create", outcome="success").count() == 1
    approval = ApprovalRequest.objects.get(pk=rule_request["approval"].pk)
    assert (approval.status, approval.rule_upstream_id) == (ApprovalStatus.EXECUTED, rules[0]["id"])
