"""URLs of the transactions part in the role matrix (see tests/access.py).

The actions are arranged so that an allowed role succeeds without reaching the API (the
matrix runs with no upstream): an executed quote redirects to its transaction, a final
transaction is neither refreshed nor cancelled upstream, and a bulk cancel of a final one
reports the refusal row by row."""

from tests.access import READERS, Access
from tests.factories import QuoteFactory, TransactionFactory

MOVERS = frozenset({"operations", "admin"})


def _quote():
    return {"quote_id": QuoteFactory().quote_id}


def _executed_quote():
    quote = QuoteFactory()
    TransactionFactory(quote_id=quote.quote_id, customer=quote.customer)
    return {"quote_id": quote.quote_id}


def _transaction():
    return {"transaction_id": TransactionFactory().transaction_id}


def _final_transaction():
    return {"transaction_id": TransactionFactory(status="COMPLETED").transaction_id}


def _bulk():
    return {"transactions": [TransactionFactory(status="COMPLETED").transaction_id], "reason": "stale"}


ACCESS = {
    "payments-preview-quote": Access(MOVERS),
    "payments-create-quote": Access(MOVERS, method="post", form=True),
    "payments-view-quote": Access(READERS, kwargs=_quote),
    "payments-execute-quote": Access(MOVERS, method="post", kwargs=_executed_quote, form=True),
    "payments-list-transactions": Access(READERS),
    "payments-export-transactions": Access(READERS),
    "payments-list-stuck-transactions": Access(READERS),
    "payments-view-transaction": Access(READERS, kwargs=_transaction),
    "payments-view-transaction-live": Access(READERS, kwargs=_transaction),
    "payments-list-stuck-transactions-live": Access(READERS),
    "payments-refresh-transaction": Access(MOVERS, method="post", kwargs=_final_transaction),
    "payments-cancel-transaction": Access(
        MOVERS, method="post", kwargs=_final_transaction, data=lambda: {"reason": "customer asked"}, form=True
    ),
    "payments-bulk-cancel-transactions": Access(MOVERS, method="post", data=_bulk, allowed=200),
}
