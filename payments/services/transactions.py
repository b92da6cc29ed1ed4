"""Staff actions on transactions: refresh one from the API, cancel one, cancel many.

Every call to the Payments API is made with no database transaction open (a slow API must not
hold row locks); only then are the mirror and the audit event written, together
(upstream.write_through). On an API error the mirror is left as it was and the error goes up.
"""

from dataclasses import dataclass

from core import labels
from paymentsapi import BadRequest, PaymentsApiClient, PaymentsApiError
from paymentsapi import types as api
from upstream.api_errors import api_error_message
from upstream.client import get_client, lookup_client
from upstream.mirrored import Source
from upstream.write_through import AuditTarget, Once, write_through_api

from ..models import TERMINAL_TRANSACTION_STATUSES, Transaction, TransactionStatus
from ..upserts import transactions_upsert

CANCELLABLE_STATUSES = frozenset({TransactionStatus.CREATED, TransactionStatus.AWAITING_TRANSFER})


class NotCancellable(Exception):
    """The mirror already shows a state the API never cancels: no call is made."""


def _store(tx: Transaction, answer: api.Transaction | None) -> Transaction:
    if answer is not None:
        transactions_upsert(items=[answer], seen_by=Source.STAFF)
    tx.refresh_from_db()
    return tx


def transaction_refresh(*, actor, tx: Transaction) -> Transaction:
    """Re-read one transaction. A final state never changes upstream: no call for it."""
    if tx.status in TERMINAL_TRANSACTION_STATUSES:
        return tx
    return write_through_api(
        actor=actor,
        action="transaction.refresh",
        target=AuditTarget("transaction", tx.transaction_id),
        call=lambda: get_client().transactions.get(transaction_id=tx.transaction_id),
        store=lambda answer: _store(tx, answer),
    )


def transaction_cancel(*, actor, tx: Transaction, reason: str) -> Transaction:
    """DELETE /transactions/{id}, then the record as the API now shows it. Cancels of one
    transaction at once (a double click, two operators, a bulk cancel): one request sends it
    and the others answer with its outcome; after a lost answer, the transaction is read back
    before a second DELETE. One the mirror shows cancelled already is answered as it is."""
    if tx.status == TransactionStatus.CANCELLED:
        return tx
    if tx.status not in CANCELLABLE_STATUSES:
        raise NotCancellable(f"A {labels.label(labels.STATUS, tx.status).lower()} transaction cannot be cancelled.")
    client = get_client()

    def cancel_then_read() -> api.Transaction | None:
        client.transactions.cancel(transaction_id=tx.transaction_id)
        try:
            return client.transactions.get(transaction_id=tx.transaction_id)
        except PaymentsApiError:
            # Cancelled upstream; the mirror catches up at the next refresh rather than guess.
            return None

    def cancelled_already() -> api.Transaction | None:
        answer = lookup_client().transactions.get(transaction_id=tx.transaction_id)
        return answer if answer.transaction_status == TransactionStatus.CANCELLED else None

    try:
        return write_through_api(
            actor=actor,
            action="transaction.cancel",
            target=AuditTarget("transaction", tx.transaction_id, {"reason": reason}),
            call=cancel_then_read,
            store=lambda answer: _store(tx, answer),
            reconcile=cancelled_already,
            once=Once(
                f"transaction:{tx.transaction_id}:cancel",
                remember=lambda done: done.transaction_id,
                replay=lambda transaction_id: Transaction.objects.get(transaction_id=transaction_id),
            ),
        )
    except BadRequest:
        # Refused because the transaction moved on upstream (it completed, say, since the
        # page was loaded): the mirror takes the API's state instead of keeping a stale one.
        _catch_up(client, tx)
        raise


def _catch_up(client: PaymentsApiClient, tx: Transaction) -> None:
    """Re-read one transaction into the mirror; if that fails too, the next refresh will."""
    try:
        answer = client.transactions.get(transaction_id=tx.transaction_id)
    except PaymentsApiError:
        return
    transactions_upsert(items=[answer], seen_by=Source.STAFF)
    tx.refresh_from_db()


@dataclass
class CancelOutcome:
    transaction_id: str
    ok: bool
    message: str
    status: str = ""


def transactions_cancel_bulk(*, actor, transactions: list[Transaction], reason: str) -> list[CancelOutcome]:
    """Cancel each in turn; one refusal does not stop the others. One outcome per row."""
    outcomes = []
    for tx in transactions:
        try:
            tx = transaction_cancel(actor=actor, tx=tx, reason=reason)
        except NotCancellable as exc:
            outcomes.append(CancelOutcome(tx.transaction_id, False, str(exc), tx.status))
        except PaymentsApiError as exc:
            message = api_error_message(exc, write=True, repeatable=True)
            outcomes.append(CancelOutcome(tx.transaction_id, False, message, tx.status))
        else:
            outcomes.append(CancelOutcome(tx.transaction_id, True, "Cancelled", tx.status))
    return outcomes
