"""Writes of the quote → execute → track workspace.

Every function calls the Payments API first, with no database transaction open (a slow API
must not hold row locks), and only then writes the mirror and the audit event in one atomic
block. On an API error the mirror is left as it was and the error goes up to the view.
"""

import uuid
from dataclasses import dataclass

from django.db import transaction

from core.audit import audit_record
from core.mirrored import Source
from core.models import AuditEvent
from core.upstream import get_client
from customers.models import Customer
from paymentsapi import (
    BadRequest,
    PaymentsApiError,
    RateLimited,
    ServerError,
    TransportError,
    UnexpectedResponse,
)
from paymentsapi import types as api

from .models import TERMINAL_TRANSACTION_STATUSES, Quote, Transaction, TransactionStatus
from .services import transactions_upsert

PREVIEW_TIMEOUT = 3.0
CANCELLABLE_STATUSES = frozenset({TransactionStatus.CREATED, TransactionStatus.AWAITING_TRANSFER})


def status_text(status: str) -> str:
    return TransactionStatus(status).label.lower() if status in TransactionStatus.values else status


class NotCancellable(Exception):
    """The mirror already shows a state the API never cancels: no call is made."""


def _audit_failure(*, actor, action: str, target_kind: str, target_id: str, exc: PaymentsApiError, **details):
    audit_record(
        actor=actor,
        action=action,
        target_kind=target_kind,
        target_id=target_id,
        outcome=AuditEvent.Outcome.FAILURE,
        details={"code": exc.code or type(exc).__name__, **details},
    )


def exchange_rate_preview(
    *, source_currency, source_method, destination_method, destination_currency, amount=None
) -> api.ExchangeRate:
    """GET /exchange-rates for the builder's live preview (a read: nothing is stored)."""
    # A person is typing: a short timeout and no retries, so a slow upstream never piles up previews.
    return (
        get_client()
        .with_options(timeout=PREVIEW_TIMEOUT, max_retries=0)
        .exchange_rates.get(
            source_currency=source_currency,
            source_payment_method=source_method,
            destination_payment_method=destination_method,
            destination_currency=destination_currency,
            source_amount=amount,
        )
    )


def quote_create(*, actor, customer: Customer, body: dict, correlation_id: str = "") -> Quote:
    """POST /quotes, then the Quote row with its own idempotency key for the execute to come."""
    try:
        answer = get_client().quotes.create(
            customer_id=body["customerId"],
            source=body["source"],
            destination=body["destination"],
            developer_fee=body.get("developerFee"),
            guarantee_quote=body.get("guaranteeQuote"),
        )
    except PaymentsApiError as exc:
        _audit_failure(
            actor=actor, action="quote.create", target_kind="customer", target_id=customer.customer_id, exc=exc
        )
        raise
    request = {**body, **({"correlationId": correlation_id} if correlation_id else {})}
    with transaction.atomic():
        quote = Quote.objects.create(
            quote_id=answer.quote_id,
            idempotency_key=uuid.uuid4(),
            customer=customer,
            created_by=actor,
            request=request,
            source_amount=body["source"]["sourceAmount"],
            exchange_rate=answer.estimated_exchange_rate,
            destination_amount=answer.destination_amount,
            fees=answer.fees.model_dump(mode="json", by_alias=True, exclude_none=True) if answer.fees else {},
            expires_at=answer.expires_at,
        )
        audit_record(actor=actor, action="quote.create", target_kind="quote", target_id=quote.quote_id)
    return quote


def _bind_correlation_id(*, quote: Quote, correlation_id: str) -> str:
    """The correlation id is part of the execute's body; the first execute fixes it so that
    every retry (and a colleague's execute) sends the same body under the same key."""
    with transaction.atomic():
        locked = Quote.objects.select_for_update().get(pk=quote.pk)
        if "correlationId" not in locked.request:
            locked.request = {**locked.request, "correlationId": correlation_id}
            locked.save(update_fields=["request"])
    quote.request = locked.request
    return locked.request["correlationId"]


def quote_execute(*, actor, quote: Quote, correlation_id: str = "") -> Transaction:
    """POST /transactions with the quote's idempotency key: however many times this runs, for
    one quote, the API makes one transaction and replays it to every later call."""
    existing = Transaction.objects.filter(quote_id=quote.quote_id).first()
    if existing is not None:
        return existing
    bound = _bind_correlation_id(quote=quote, correlation_id=correlation_id)
    try:
        answer = get_client().transactions.create(
            quote_id=quote.quote_id, correlation_id=bound or None, idempotency_key=str(quote.idempotency_key)
        )
    except PaymentsApiError as exc:
        _audit_failure(actor=actor, action="quote.execute", target_kind="quote", target_id=quote.quote_id, exc=exc)
        raise
    with transaction.atomic():
        # Two executes of one quote get the same transaction back; the quote's row lock makes
        # the second wait for the first's insert and then update it instead of inserting twice.
        Quote.objects.select_for_update().values_list("pk", flat=True).get(pk=quote.pk)
        transactions_upsert(items=[answer], seen_by=Source.STAFF)
        audit_record(
            actor=actor,
            action="quote.execute",
            target_kind="transaction",
            target_id=answer.transaction_id,
            details={"quote": quote.quote_id},
        )
    return Transaction.objects.get(transaction_id=answer.transaction_id)


def transaction_refresh(*, actor, tx: Transaction) -> Transaction:
    """Re-read one transaction. A final state never changes upstream: no call for it."""
    if tx.status in TERMINAL_TRANSACTION_STATUSES:
        return tx
    try:
        answer = get_client().transactions.get(transaction_id=tx.transaction_id)
    except PaymentsApiError as exc:
        _audit_failure(
            actor=actor, action="transaction.refresh", target_kind="transaction", target_id=tx.transaction_id, exc=exc
        )
        raise
    with transaction.atomic():
        transactions_upsert(items=[answer], seen_by=Source.STAFF)
        audit_record(actor=actor, action="transaction.refresh", target_kind="transaction", target_id=tx.transaction_id)
    tx.refresh_from_db()
    return tx


def transaction_cancel(*, actor, tx: Transaction, reason: str) -> Transaction:
    """DELETE /transactions/{id}, then the record as the API now shows it."""
    if tx.status not in CANCELLABLE_STATUSES:
        raise NotCancellable(f"A {status_text(tx.status)} transaction cannot be cancelled.")
    client = get_client()
    try:
        client.transactions.cancel(transaction_id=tx.transaction_id)
    except PaymentsApiError as exc:
        _audit_failure(
            actor=actor,
            action="transaction.cancel",
            target_kind="transaction",
            target_id=tx.transaction_id,
            exc=exc,
            reason=reason,
        )
        if isinstance(exc, BadRequest):
            # Refused because the transaction moved on upstream (it completed, say, since the
            # page was loaded): the mirror takes the API's state instead of keeping a stale one.
            _catch_up(client, tx)
        raise
    try:
        answer = client.transactions.get(transaction_id=tx.transaction_id)
    except PaymentsApiError:
        # Cancelled upstream; the mirror catches up at the next refresh rather than guess.
        answer = None
    with transaction.atomic():
        if answer is not None:
            transactions_upsert(items=[answer], seen_by=Source.STAFF)
        audit_record(
            actor=actor,
            action="transaction.cancel",
            target_kind="transaction",
            target_id=tx.transaction_id,
            details={"reason": reason},
        )
    tx.refresh_from_db()
    return tx


def _catch_up(client, tx: Transaction) -> None:
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
        except (NotCancellable, PaymentsApiError) as exc:
            message = exc.message if isinstance(exc, PaymentsApiError) else str(exc)
            if isinstance(exc, TransportError | ServerError | RateLimited | UnexpectedResponse):
                message = f"Not cancelled: the Payments API did not answer usefully ({exc.message})."
            outcomes.append(CancelOutcome(tx.transaction_id, False, message, tx.status))
        else:
            outcomes.append(CancelOutcome(tx.transaction_id, True, "Cancelled", tx.status))
    return outcomes
