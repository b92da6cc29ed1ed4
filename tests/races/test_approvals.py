"""Four-eyes under double clicks and colleagues deciding at once: one write upstream, one audit
event of its success, and a request whose final state matches what the upstream holds."""

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from mirror.sync import sync_payment_accounts
from payments.models import ApprovalRequest, ApprovalStatus, AutomationRule, Quote
from tests.payments.account_fixtures import make_account, make_customer
from tests.payments.transactions_helpers import quote_post_data, rule_post_data, sandbox_customer
from tests.race import at_once

pytestmark = pytest.mark.django_db(transaction=True)


def _rules_upstream(sandbox, customer_id: str, name: str) -> list[dict]:
    rules = sandbox.call("GET", "/automation-rules", params={"customerId": customer_id})["automationRules"]
    return [rule for rule in rules if rule["name"] == name]


def _successes(action: str) -> int:
    return AuditEvent.objects.filter(action=action, outcome="success").count()


@pytest.fixture
def rule_request(racing, make_staff):
    """An admin's request to create a CRON rule, waiting for a second admin."""
    customer_id = make_customer(racing.sandbox)
    service = make_account(racing.sandbox, customer_id, "service_wallet")["paymentAccountId"]
    bank = make_account(racing.sandbox, customer_id, "bank")["paymentAccountId"]
    sync_payment_accounts()
    maker = racing.member(make_staff("admin", "maker"))
    fields = rule_post_data(customer_id=customer_id, source=service, destination=bank)
    name = fields["name"]
    answer = maker.post(reverse("payments-create-automation-rule"), fields)
    assert answer.status_code == 302, answer.text[:2000]
    approval = ApprovalRequest.objects.get()
    return {"approval": approval, "customer_id": customer_id, "name": name, "fields": fields, "maker": maker}


@pytest.mark.parametrize(("clicks", "gap"), [(2, 0.05), (8, 0.0)], ids=["double-click", "eight-at-once"])
def test_approving_a_rule_at_once_creates_it_once(racing, make_staff, rule_request, clicks, gap):
    checker = racing.member(make_staff("admin", "checker"))
    url = reverse("payments-approve-approval-request", args=[rule_request["approval"].pk])
    answers = at_once(*[lambda: checker.post(url)] * clicks, gap=gap)

    assert all(answer.status_code in (302, 303) for answer in answers), [a.status_code for a in answers]
    rules = _rules_upstream(racing.sandbox, rule_request["customer_id"], rule_request["name"])
    assert len(rules) == 1
    assert _successes("automation_rule.create") == 1
    assert _successes("approval.approve") == _successes("approval.execute") == 1
    approval = ApprovalRequest.objects.get(pk=rule_request["approval"].pk)
    assert (approval.status, approval.rule_upstream_id) == (ApprovalStatus.EXECUTED, rules[0]["id"])


def test_approving_a_rule_change_at_once_changes_it_once(racing, make_staff, rule_request):
    checker = racing.member(make_staff("admin", "checker"))
    approve = reverse("payments-approve-approval-request", args=[rule_request["approval"].pk])
    assert checker.post(approve).status_code == 302
    rule = AutomationRule.objects.get()
    fields = {**rule_request["fields"], "name": "Sweep USDC weekly", "cron_schedule": "0 9 * * 1"}
    maker = rule_request["maker"]
    edit = reverse("payments-edit-automation-rule", args=[rule.pk])
    destination = rule.transaction_template["destination"]["destinationPaymentAccountId"]
    assert maker.post(edit, {**fields, "destination_account_id": destination}).status_code == 302
    change = ApprovalRequest.objects.get(kind="change_rule")
    start = len(racing.calls)

    url = reverse("payments-approve-approval-request", args=[change.pk])
    answers = at_once(*[lambda: checker.post(url)] * 4)

    assert all(answer.status_code == 302 for answer in answers)
    assert racing.sent("PUT", f"/automation-rules/{rule.rule_id}", since=start) == 1
    upstream = racing.sandbox.call("GET", f"/automation-rules/{rule.rule_id}")
    assert (upstream["name"], upstream["trigger"]["cronSchedule"]) == ("Sweep USDC weekly", "0 9 * * 1")
    assert _successes("automation_rule.update") == 1
    change.refresh_from_db()
    rule.refresh_from_db()
    assert change.status == ApprovalStatus.EXECUTED and rule.name == "Sweep USDC weekly"


@pytest.fixture
def execute_request(racing, make_staff, settings):
    """An operator's request to execute a quote above the approval threshold."""
    settings.APPROVAL_THRESHOLD_USD = 100
    setup = sandbox_customer(racing.sandbox)
    maker = racing.member(make_staff("operations", "olga"))
    answer = maker.post(reverse("payments-create-quote"), quote_post_data(setup, amount="250.00"))
    assert answer.status_code == 302, answer.text[:2000]
    quote = Quote.objects.get()
    assert maker.post(reverse("payments-execute-quote", args=[quote.quote_id])).status_code == 302
    return ApprovalRequest.objects.get(quote=quote)


def _upstream_transactions():
    from sandbox.models import Transaction as UpstreamTransaction

    return list(UpstreamTransaction.objects.all())


def test_eight_approves_of_an_expired_quote_requote_once_and_execute_once(racing, make_staff, execute_request):
    """The expired quote is quoted again by one request only, whose execute makes the one
    transaction; the request never reads "failed" beside a transaction made."""
    from sandbox.models import Quote as UpstreamQuote

    racing.sandbox.helper("clock/advance", {"seconds": 301})
    Quote.objects.filter(pk=execute_request.quote_id).update(expires_at=timezone.now())
    checker = racing.member(make_staff("operations", "pavel"))
    url = reverse("payments-approve-approval-request", args=[execute_request.pk])

    answers = at_once(*[lambda: checker.post(url)] * 8)

    (made,) = _upstream_transactions()
    assert UpstreamQuote.objects.count() == 2  # the maker's and one new quote
    execute_request.refresh_from_db()
    assert (execute_request.status, execute_request.transaction_id) == (ApprovalStatus.EXECUTED, str(made.id))
    assert execute_request.executed_quote_id == str(made.quote_id)
    assert {answer.headers["location"] for answer in answers} == {
        reverse("payments-view-transaction", args=[str(made.id)])
    }
    assert _successes("quote.execute") == _successes("quote.create") - 1 == 1
    assert not AuditEvent.objects.filter(outcome="failure").exists()


@pytest.mark.parametrize(
    "other",
    ["another checker", "reject", "withdraw"],
)
def test_an_approve_racing_another_decision_leaves_one_decision(racing, make_staff, execute_request, other):
    """Two checkers approving, or a checker's approve against a colleague's reject or the
    maker's withdraw: one decision stands, and the upstream holds a transaction exactly when
    it says executed."""
    checker = racing.member(make_staff("operations", "pavel"))
    pk = execute_request.pk
    approve = lambda: checker.post(reverse("payments-approve-approval-request", args=[pk]))  # noqa: E731
    if other == "another checker":
        rita = racing.member(make_staff("admin", "rita"))
        second = lambda: rita.post(reverse("payments-approve-approval-request", args=[pk]))  # noqa: E731
    elif other == "reject":
        rita = racing.member(make_staff("admin", "rita"))
        second = lambda: rita.post(  # noqa: E731
            reverse("payments-reject-approval-request", args=[pk]), {"reason": "Wrong account."}
        )
    else:
        maker = racing.member(execute_request.maker)
        second = lambda: maker.post(reverse("payments-withdraw-approval-request", args=[pk]))  # noqa: E731

    at_once(approve, second)

    execute_request.refresh_from_db()
    decisions = AuditEvent.objects.filter(
        action__in=["approval.approve", "approval.reject", "approval.withdraw"], outcome="success"
    )
    assert decisions.count() == 1
    made = _upstream_transactions()
    if execute_request.status == ApprovalStatus.EXECUTED:
        assert [str(tx.id) for tx in made] == [execute_request.transaction_id]
        assert _successes("quote.execute") == 1
    else:
        assert execute_request.status in (ApprovalStatus.REJECTED, ApprovalStatus.WITHDRAWN)
        assert made == [] and _successes("quote.execute") == 0


@pytest.mark.parametrize("action", ["reject", "withdraw"])
def test_a_reject_or_withdraw_sent_twice_is_recorded_once(racing, make_staff, execute_request, action):
    if action == "reject":
        member = racing.member(make_staff("admin", "rita"))
        data = {"reason": "Wrong account."}
    else:
        member = racing.member(execute_request.maker)
        data = {}
    url = reverse(f"payments-{action}-approval-request", args=[execute_request.pk])

    answers = at_once(*[lambda: member.post(url, data)] * 2, gap=0.05)

    # Both answer as done (the second finds the first's decision): no error, one record.
    assert [answer.status_code for answer in answers] == [302, 302]
    assert _successes(f"approval.{action}") == 1
    execute_request.refresh_from_db()
    assert execute_request.status == ("rejected" if action == "reject" else "withdrawn")
    assert _upstream_transactions() == []
