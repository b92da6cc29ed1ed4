"""A payment account's hold in the back-office, at once: two approvals of one hold set it once,
audited once; an execute of a quote from the account racing the approval of its hold either
goes out before the hold is set (and the hold waits for it) or is refused after; never an
execute sent once the hold stands."""

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from payments.models import ApprovalRequest, PaymentAccount, Quote, Transaction
from payments.services.approvals import approval_request_account_hold
from tests.payments.transactions_helpers import quote_post_data, sandbox_customer
from tests.race import at_once

pytestmark = pytest.mark.django_db(transaction=True)

REASON = "Owner on the OFAC SDN list."


@pytest.fixture
def setup(racing):
    return sandbox_customer(racing.sandbox)


@pytest.fixture
def bank(setup) -> PaymentAccount:
    return PaymentAccount.objects.get(account_id=setup["bank"]["paymentAccountId"])


@pytest.fixture
def hold_request(make_staff, bank) -> ApprovalRequest:
    return approval_request_account_hold(actor=make_staff("admin", "maker"), account=bank, reason=REASON)


def _successes(action: str) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=action, outcome="success").order_by("pk"))


@pytest.mark.parametrize("how", ["double-click", "two admins"])
def test_a_hold_approved_at_once_is_set_once(racing, make_staff, bank, hold_request, how):
    ada = racing.member(make_staff("admin", "ada"))
    checkers = [ada, ada] if how == "double-click" else [ada, racing.member(make_staff("admin", "ben"))]
    url = reverse("payments-approve-approval-request", args=[hold_request.pk])
    start = len(racing.calls)

    answers = at_once(*[lambda c=c: c.post(url) for c in checkers], gap=0.05 if how == "double-click" else 0.0)

    assert all(answer.status_code == 302 for answer in answers), [a.status_code for a in answers]
    hold_request.refresh_from_db()
    bank.refresh_from_db()
    assert hold_request.status == "executed"
    assert (bank.is_held, bank.hold_approval, bank.hold_reason) == (True, hold_request, REASON)
    (event,) = _successes("payment_account.hold")
    assert (event.actor_username, event.details["checker"]) == (hold_request.checker.username,) * 2
    assert len(_successes("approval.approve")) == len(_successes("approval.execute")) == 1
    assert racing.calls[start:] == []  # the hold is the back-office's own: nothing upstream


@pytest.mark.parametrize("how", ["double-click", "two admins"])
def test_a_hold_asked_twice_at_once_makes_one_request(racing, make_staff, bank, how):
    ada = racing.member(make_staff("admin", "ada"))
    makers = [ada, ada] if how == "double-click" else [ada, racing.member(make_staff("admin", "ben"))]
    url = reverse("payments-hold-payment-account", args=[bank.pk])
    start = len(racing.calls)

    answers = at_once(*[lambda c=c: c.post(url, {"reason": REASON}) for c in makers])

    assert all(answer.status_code == 302 for answer in answers), [a.status_code for a in answers]
    (made,) = ApprovalRequest.objects.filter(account=bank, kind="account_hold")
    assert made.status == "pending"
    assert len(_successes("approval.request")) == 1
    bank.refresh_from_db()
    assert not bank.is_held  # asked, not approved
    assert racing.calls[start:] == []


@pytest.mark.parametrize("first", ["execute", "approval", "neither"])
def test_an_execute_racing_the_approval_of_its_accounts_hold_goes_out_before_it_or_not_at_all(
    racing, make_staff, setup, bank, hold_request, first
):
    from sandbox.models import Transaction as UpstreamTransaction

    olga = racing.member(make_staff("operations", "olga"))
    ben = racing.member(make_staff("admin", "ben"))
    made = olga.post(reverse("payments-create-quote"), quote_post_data(setup))
    assert made.status_code == 302
    quote = Quote.objects.get()
    execute = lambda: olga.post(reverse("payments-execute-quote", args=[quote.quote_id]))  # noqa: E731
    approve = lambda: ben.post(reverse("payments-approve-approval-request", args=[hold_request.pk]))  # noqa: E731
    sends = [approve, execute] if first == "approval" else [execute, approve]
    start = len(racing.calls)

    answers = at_once(*sends, gap=0.0 if first == "neither" else 0.05)

    executed, approved = (answers[1], answers[0]) if first == "approval" else (answers[0], answers[1])
    assert executed.status_code == approved.status_code == 302
    hold_request.refresh_from_db()
    bank.refresh_from_db()
    sent = racing.sent("POST", "/transactions", since=start)
    assert sent == UpstreamTransaction.objects.count() == Transaction.objects.count()
    holds = _successes("payment_account.hold")
    if sent:
        # The execute went out before the hold: the hold was set after it ended, or waits again.
        tx = Transaction.objects.get()
        assert executed.headers["location"] == reverse("payments-view-transaction", args=[tx.transaction_id])
        (execute_event,) = _successes("quote.execute")
        assert all(hold.pk > execute_event.pk for hold in holds)
        assert (hold_request.status, bank.is_held) in (("executed", True), ("pending", False))
    else:
        # The hold came first: the execute was refused, named, and nothing was sent.
        assert executed.headers["location"] == reverse("payments-view-quote", args=[quote.quote_id])
        assert "is held in the back-office" in olga.get(executed.headers["location"]).text
        assert (hold_request.status, bank.is_held, len(holds)) == ("executed", True, 1)
        assert AuditEvent.objects.filter(action="quote.execute", outcome="denied").count() == 1
    if hold_request.status == "pending":
        # The hold waited for the execute in flight: approved again, it is set now.
        assert ben.post(reverse("payments-approve-approval-request", args=[hold_request.pk])).status_code == 302
        bank.refresh_from_db()
        assert bank.is_held
    assert len(_successes("payment_account.hold")) == 1
