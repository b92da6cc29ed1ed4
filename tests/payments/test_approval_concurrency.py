"""Two checkers approving one request at once make one transaction upstream.

As in test_execute_concurrency.py: on PostgreSQL two threads, each with its own connection,
its own logged-in client and its own circuit breaker (as two server processes would have),
meet at a barrier right before their approval claims the request, so both are in flight
together; the one whose conditional UPDATE loses must not call the API. SQLite has no real
concurrent writers: there the two approvals run one after the other.
"""

import threading

import pytest
from django.db import connection, connections
from django.test import Client
from django.urls import reverse

from payments.models import ApprovalRequest, Quote, Transaction
from payments.services import approvals
from tests.conftest import authenticated_now
from tests.payments.test_execute_concurrency import BreakerPerThread
from tests.payments.transactions_helpers import quote_post_data, sandbox_customer

ON_POSTGRESQL = connection.vendor == "postgresql"


@pytest.fixture(autouse=True)
def _reviews_wait(settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10 * 366 * 24 * 3600


def _request(upstream, maker) -> ApprovalRequest:
    setup = sandbox_customer(upstream)
    client = Client()
    client.force_login(maker)
    authenticated_now(client, maker)
    client.post(reverse("payments-create-quote"), quote_post_data(setup, amount="25000.00"))
    quote = Quote.objects.get()
    client.post(reverse("payments-execute-quote", args=[quote.quote_id]), {})
    return ApprovalRequest.objects.get(quote=quote)


def _upstream_transactions() -> int:
    """The transactions the sandbox holds (the API has no list of them to ask)."""
    from sandbox.models import Transaction as SandboxTransaction

    return SandboxTransaction.objects.count()


@pytest.mark.skipif(not ON_POSTGRESQL, reason="threads need PostgreSQL; see the SQLite test below")
@pytest.mark.django_db(transaction=True)
def test_two_checkers_at_once_make_one_transaction_on_postgresql(upstream, faulty_upstream, make_staff, monkeypatch):
    maker = make_staff("operations", "olga")
    checkers = [make_staff("operations", "pavel"), make_staff("admin", "rita")]
    approval = _request(upstream, maker)
    barrier = threading.Barrier(2, timeout=10)
    decide = approvals._decide

    def at_once(**kwargs):
        # Both threads have read the pending request; now both try to claim it.
        if kwargs.get("status") == "approved":
            barrier.wait()
        return decide(**kwargs)

    monkeypatch.setattr(approvals, "_decide", at_once)
    faulty_upstream.client.breaker = BreakerPerThread()
    answers, errors = [], []

    def approve(user):
        try:
            client = Client()
            client.force_login(user)
            authenticated_now(client, user)
            answers.append(client.post(reverse("payments-approve-approval-request", args=[approval.pk])))
        except Exception as exc:  # reported below: a thread's failure must fail the test
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=approve, args=(user,)) for user in checkers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert [a.status_code for a in answers] == [302, 302]
    assert len(faulty_upstream.sent("POST", "/transactions")) == 1
    assert _upstream_transactions() == 1
    approval.refresh_from_db()
    tx = Transaction.objects.get()
    assert (approval.status, approval.transaction_id) == ("executed", tx.transaction_id)
    assert approval.checker.username in {"pavel", "rita"}


@pytest.mark.django_db
def test_two_checkers_one_after_the_other_make_one_transaction(upstream, make_staff):
    """Runs on every database; on SQLite it is the only form of this check (sequential)."""
    maker = make_staff("operations", "olga")
    approval = _request(upstream, maker)
    messages = []
    for user in (make_staff("operations", "pavel"), make_staff("admin", "rita")):
        client = Client()
        client.force_login(user)
        authenticated_now(client, user)
        response = client.post(reverse("payments-approve-approval-request", args=[approval.pk]), follow=True)
        messages.append(response.content.decode())
    assert _upstream_transactions() == 1
    assert Transaction.objects.count() == 1
    assert "This request is no longer waiting: it is done." in messages[1]
    approval.refresh_from_db()
    assert approval.checker.username == "pavel"
