"""Executing one quote at once (a double click, two operators): one transaction upstream."""

import pytest
from django.urls import reverse

from core.models import AuditEvent
from payments.models import Quote, Transaction
from tests.payments.transactions_helpers import quote_post_data, sandbox_customer
from tests.race import at_once

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(("clicks", "gap"), [(2, 0.05), (4, 0.0)], ids=["double-click", "four-at-once"])
def test_executing_a_quote_at_once_makes_one_transaction(racing, make_staff, clicks, gap):
    from sandbox.models import Transaction as UpstreamTransaction

    setup = sandbox_customer(racing.sandbox)
    alice = racing.member(make_staff("operations", "alice"))
    bob = racing.member(make_staff("operations", "bob"))
    assert alice.post(reverse("payments-create-quote"), quote_post_data(setup)).status_code == 302
    quote = Quote.objects.get()
    url = reverse("payments-execute-quote", args=[quote.quote_id])

    answers = at_once(*[lambda member=member: member.post(url) for member in [alice, bob] * (clicks // 2)], gap=gap)

    tx = Transaction.objects.get()
    assert UpstreamTransaction.objects.count() == 1
    assert str(UpstreamTransaction.objects.get().id) == tx.transaction_id
    assert {answer.headers["location"] for answer in answers} == {
        reverse("payments-view-transaction", args=[tx.transaction_id])
    }
    assert AuditEvent.objects.filter(action="quote.execute", outcome="success").count() == 1
