"""Two executes of one quote at once give one transaction.

On PostgreSQL (CI sets DATABASE_URL) two threads, each with its own connection, its own
logged-in client and its own circuit breaker (as two server processes would have), meet at a
barrier in the transport right before POST /transactions reaches the sandbox, so both
requests are in flight together. SQLite has no real concurrent writers: there the two executes run one after
the other with the same idempotency key, which checks the replay, not the race.
"""

import threading

import pytest
from django.db import connection, connections
from django.test import Client
from django.urls import reverse

from payments.models import Quote, Transaction
from paymentsapi import make_breaker
from tests.conftest import authenticated_now
from tests.payments.transactions_helpers import quote_post_data, sandbox_customer

ON_POSTGRESQL = connection.vendor == "postgresql"


@pytest.fixture(autouse=True)
def _reviews_wait(settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10 * 366 * 24 * 3600


class BreakerPerThread:
    """One breaker for each thread. A pybreaker breaker holds its lock for the whole call, so
    threads sharing one never have two requests in flight: two processes do."""

    reset_timeout = 30

    def __init__(self):
        self._local = threading.local()

    def call(self, func, *args, **kwargs):
        if not hasattr(self._local, "breaker"):
            self._local.breaker = make_breaker()
        return self._local.breaker.call(func, *args, **kwargs)


def _quote(upstream, user) -> Quote:
    setup = sandbox_customer(upstream)
    client = Client()
    client.force_login(user)
    authenticated_now(client, user)
    client.post(reverse("payments-create-quote"), quote_post_data(setup))
    return Quote.objects.get()


@pytest.mark.skipif(not ON_POSTGRESQL, reason="threads need PostgreSQL; see the SQLite test below")
@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_executes_make_one_transaction_on_postgresql(upstream, faulty_upstream, make_staff):
    alice, bob = make_staff("operations", "alice"), make_staff("admin", "bob")
    quote = _quote(upstream, alice)
    barrier = threading.Barrier(2, timeout=10)

    def at_once(request):
        if (request.method, request.url.path) == ("POST", "/sandbox/transactions"):
            barrier.wait()
        return faulty_upstream.to_sandbox(request)

    faulty_upstream.answer(at_once)
    faulty_upstream.client.breaker = BreakerPerThread()
    answers, errors = [], []

    def execute(user):
        try:
            client = Client()
            client.force_login(user)
            authenticated_now(client, user)
            answers.append(client.post(reverse("payments-execute-quote", args=[quote.quote_id]), {}))
        except Exception as exc:  # reported below: a thread's failure must fail the test
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=execute, args=(user,)) for user in (alice, bob)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert Transaction.objects.count() == 1
    tx = Transaction.objects.get()
    assert [a.status_code for a in answers] == [302, 302]
    assert {a["Location"] for a in answers} == {reverse("payments-view-transaction", args=[tx.transaction_id])}
    assert tx.status_changes.count() == 1


@pytest.mark.django_db
def test_two_executes_one_after_the_other_with_the_same_key_make_one_transaction(upstream, make_staff):
    """Runs on every database; on SQLite it is the only form of this check (sequential)."""
    alice, bob = make_staff("operations", "alice"), make_staff("admin", "bob")
    quote = _quote(upstream, alice)
    locations = []
    for user in (alice, bob):
        client = Client()
        client.force_login(user)
        authenticated_now(client, user)
        # Skip the local shortcut (an executed quote redirects without a call): the API's
        # replay under the quote's key is what must hold.
        Transaction.objects.filter(quote_id=quote.quote_id).delete()
        locations.append(client.post(reverse("payments-execute-quote", args=[quote.quote_id]), {})["Location"])
    assert Transaction.objects.count() == 1
    assert locations[0] == locations[1]
