"""Executing one quote, or cancelling one transaction, at once (a double click, two operators,
a bulk cancel beside a single one): one call upstream, one audit event of its success, and a
mirror that shows what the upstream holds."""

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from payments.models import Quote, Transaction
from tests.payments.transactions_helpers import quote_post_data, sandbox_customer
from tests.race import at_once

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def operators(racing, make_staff):
    return racing.member(make_staff("operations", "alice")), racing.member(make_staff("operations", "bob"))


@pytest.fixture
def quote(racing, operators) -> Quote:
    setup = sandbox_customer(racing.sandbox)
    assert operators[0].post(reverse("payments-create-quote"), quote_post_data(setup)).status_code == 302
    return Quote.objects.get()


@pytest.mark.parametrize(("clicks", "gap"), [(2, 0.05), (4, 0.0)], ids=["double-click", "four-at-once"])
def test_executing_a_quote_at_once_makes_one_transaction(racing, operators, quote, clicks, gap):
    from sandbox.models import Transaction as UpstreamTransaction

    url = reverse("payments-execute-quote", args=[quote.quote_id])
    start = len(racing.calls)

    answers = at_once(*[lambda member=member: member.post(url) for member in operators * (clicks // 2)], gap=gap)

    tx = Transaction.objects.get()
    assert racing.sent("POST", "/transactions", since=start) == 1
    assert UpstreamTransaction.objects.count() == 1
    assert str(UpstreamTransaction.objects.get().id) == tx.transaction_id
    assert {answer.headers["location"] for answer in answers} == {
        reverse("payments-view-transaction", args=[tx.transaction_id])
    }
    assert AuditEvent.objects.filter(action="quote.execute", outcome="success").count() == 1


@pytest.mark.parametrize("how", ["double-click", "two operators", "bulk and single"])
def test_cancelling_a_transaction_at_once_cancels_it_once(racing, operators, quote, how):
    from sandbox.models import Transaction as UpstreamTransaction

    assert operators[0].post(reverse("payments-execute-quote", args=[quote.quote_id])).status_code == 302
    tx = Transaction.objects.get()
    single = reverse("payments-cancel-transaction", args=[tx.transaction_id])
    alice, bob = operators
    bulk = reverse("payments-bulk-cancel-transactions")
    single_data = {"reason": "Duplicate order."}
    senders = {"double-click": [alice, alice], "two operators": [alice, bob], "bulk and single": [alice, bob]}[how]
    posts = [(single, single_data), (single, single_data)]
    if how == "bulk and single":
        posts[1] = (bulk, {"transactions": [tx.transaction_id], "reason": "Duplicate order."})
    sends = [lambda member=member, post=post: member.post(*post) for member, post in zip(senders, posts, strict=True)]
    gap = 0.05 if how == "double-click" else 0.0
    start = len(racing.calls)

    answers = at_once(*sends, gap=gap)

    assert racing.sent("DELETE", f"/transactions/{tx.transaction_id}", since=start) == 1
    assert UpstreamTransaction.objects.get().status == "CANCELLED"
    tx.refresh_from_db()
    assert tx.status == "CANCELLED"
    cancels = AuditEvent.objects.filter(action="transaction.cancel")
    assert [event.outcome for event in cancels] == ["success"]
    assert all(answer.status_code in (200, 302) for answer in answers)
    # Every answer tells it cancelled: none says "cannot be cancelled" to the one that lost.
    for member, answer in zip(senders, answers, strict=True):
        page = answer if answer.status_code == 200 else member.get(answer.headers["location"])
        assert "cannot be cancelled" not in page.text and "refused" not in page.text
