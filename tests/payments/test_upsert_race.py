"""Two workers meeting the same new transaction at once (its webhook and a refresh)."""

import threading

import pytest
from django.db import connection, connections

from payments.models import Transaction, TransactionStatusChange
from payments.upserts import transactions_upsert
from paymentsapi import types as api
from upstream.mirrored import Source


def item(status="AWAITING_TRANSFER"):
    return api.Transaction.model_validate(
        {
            "transactionId": "tx-race",
            "transactionStatus": status,
            "customerId": "c-1",
            "createdAt": "2026-11-22T10:00:00Z",
            "updatedAt": "2026-11-22T10:00:00Z",
        }
    )


@pytest.mark.django_db
def test_upserting_a_new_transaction_twice_makes_one_row_and_one_history_entry():
    assert transactions_upsert(items=[item()], seen_by=Source.WEBHOOK).created == 1
    assert transactions_upsert(items=[item()], seen_by=Source.SYNC).unchanged == 1
    assert Transaction.objects.count() == 1
    assert TransactionStatusChange.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_threads_upserting_the_same_new_transaction_both_succeed():
    if connection.vendor != "postgresql":
        pytest.skip("threads writing at once need PostgreSQL; the sequential test above covers SQLite")
    barrier, errors = threading.Barrier(2), []

    def work():
        try:
            barrier.wait()
            transactions_upsert(items=[item()], seen_by=Source.WEBHOOK)
        except Exception as exc:  # the assertion below reports it
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert Transaction.objects.filter(transaction_id="tx-race").count() == 1
    assert TransactionStatusChange.objects.count() == 1
