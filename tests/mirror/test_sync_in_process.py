"""Management commands reach the mounted sandbox in their own process (upstream.client's
in-process transport) when no server listens: `make run`'s seed and `sync_mirror` on a
machine where nothing serves. Each call is a whole WSGI request in the caller's thread, and
it must leave the caller's database connection as it found it."""

import io

import pytest
from django.core.management import call_command
from django.db import connection

from mirror.models import SyncRun
from sandbox.auth import create_key
from tests.factories import TransactionFactory
from upstream.client import get_client

# Outside a test transaction, as a management command runs: autocommit, CONN_MAX_AGE 0.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def in_process_upstream(settings):
    _, plain = create_key()
    settings.PAYMENTS_API_KEY = plain
    settings.PAYMENTS_API_BASE_URL = "http://testserver/sandbox"
    settings.PAYMENTS_API_IN_PROCESS = True
    return plain


def test_an_in_process_call_keeps_the_callers_connection_open(in_process_upstream):
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    before = connection.connection
    get_client().customers.list(page_size=1)
    assert connection.connection is before, "the in-process request closed the caller's connection"


def test_sync_mirror_transactions_refreshes_every_open_transaction_in_process(in_process_upstream):
    # Unknown to the sandbox: each answers 404, and the refresh goes on to the next one.
    TransactionFactory.create_batch(3)
    out = io.StringIO()

    call_command("sync_mirror", "--transactions", stdout=out, stderr=out)

    run = SyncRun.objects.get(kind="transactions")
    assert run.outcome == "succeeded", out.getvalue()
    assert run.counts["failed"] == 3
