"""The quote builder's calls: exchange rates (a read), the quote, and its execution
into a transaction, exactly once per quote."""

import uuid
from decimal import Decimal, InvalidOperation

from django.conf import settings

from customers.models import Customer
from paymentsapi import types as api
from upstream.client import get_client, lookup_client
from upstream.mirrored import Source
from upstream.write_through import AuditTarget, Once, write_through_api

from ..models import Quote, Transaction
from ..terms import QuoteTerms
from ..upserts import transactions_upsert
from .holds import refuse_held, refuse_held_execute

PREVIEW_TIMEOUT = 3.0


def exchange_rate_get(
    *, source_currency, source_method, destination_method, destination_currency, amount=None, preview=False
) -> api.ExchangeRate:
    """GET /exchange-rates (a read: nothing is stored). For the builder's live `preview`, where
    a person is typing, a short timeout and no retries, so a slow upstream never piles them up."""
    client = get_client().with_options(timeout=PREVIEW_TIMEOUT, max_retries=0) if preview else get_client()
    return client.exchange_rates.get(
        source_currency=source_currency,
        source_payment_method=source_method,
        destination_payment_method=destination_method,
        destination_currency=destination_currency,
        source_amount=amount,
    )


def quote_create(*, actor, customer: Customer, terms: QuoteTerms, correlation_id: str = "") -> Quote:
    """POST /quotes, then the Quote row with its own idempotency key for the execute to come.
    A correlation id given here is the execute's, fixed now."""
    return _quote_post(
        actor=actor, customer=customer, terms=terms, body=terms.api_body(), correlation_id=correlation_id or None
    )


def quote_again(*, actor, quote: Quote) -> Quote:
    """A new quote of the same request: the body `quote` was asked with, word for word."""
    return _quote_post(actor=actor, customer=quote.customer, terms=quote.terms, body=quote.request)


def _quote_post(*, actor, customer: Customer, terms: QuoteTerms, body: dict, correlation_id: str | None = None):
    refuse_held(
        actor=actor, moving=terms, action="quote.create", target_kind="customer", target_id=customer.customer_id
    )

    def store(answer: api.Quote) -> Quote:
        return Quote.objects.create(
            quote_id=answer.quote_id,
            idempotency_key=uuid.uuid4(),
            customer=customer,
            created_by=actor,
            request=body,
            **terms.quote_fields(),
            correlation_id=correlation_id,
            exchange_rate=answer.estimated_exchange_rate,
            destination_amount=answer.destination_amount,
            fees=answer.fees.model_dump(mode="json", by_alias=True, exclude_none=True) if answer.fees else {},
            expires_at=answer.expires_at,
        )

    return write_through_api(
        actor=actor,
        action="quote.create",
        target=AuditTarget("customer", customer.customer_id),
        call=lambda: get_client().quotes.create(
            customer_id=body["customerId"],
            source=body["source"],
            destination=body["destination"],
            developer_fee=body.get("developerFee"),
            guarantee_quote=body.get("guaranteeQuote"),
        ),
        store=store,
        stored=lambda quote: AuditTarget("quote", quote.quote_id),
    )


class ApprovalNeeded(Exception):
    """quote_execute of a quote worth at least APPROVAL_THRESHOLD_USD without an approved
    request: a caller's mistake, never a path (execute_or_request_approval asks a checker for
    such a quote). The guard keeps a large quote from moving money alone whoever calls."""


def quote_usd_value(quote: Quote) -> Decimal | None:
    """What the quote moves, in USD, by its own figures: the source amount when it is USD, else
    the source amount at the rate of its service fee to that fee's USD value. None when the
    quote says nothing to convert with (a zero fee in another currency)."""
    if quote.source_currency == "USD":
        return quote.source_amount
    fee = (quote.fees or {}).get("serviceFee") or {}
    try:
        amount, usd = Decimal(str(fee["feeAmount"])), Decimal(str(fee["feeUSDAmount"]))
    except (KeyError, InvalidOperation):
        return None
    return quote.source_amount * usd / amount if amount > 0 else None


def quote_needs_approval(quote: Quote) -> bool:
    """At or above the threshold, or of unknown value (never let a doubt move money alone)."""
    value = quote_usd_value(quote)
    return value is None or value >= settings.APPROVAL_THRESHOLD_USD


def _bind_correlation_id(*, quote: Quote, correlation_id: str) -> str:
    """The correlation id is part of the execute's body; the first execute fixes it so that
    every retry (and a colleague's execute) sends the same body under the same key."""
    Quote.objects.filter(pk=quote.pk, correlation_id__isnull=True).update(correlation_id=correlation_id)
    quote.refresh_from_db(fields=["correlation_id"])
    return quote.correlation_id


def quote_execute(*, actor, quote: Quote, correlation_id: str = "", approval=None) -> Transaction:
    """POST /transactions with one idempotency key: however many times this runs, for one
    quote, one request sends it (upstream.claims) and the API makes one transaction, which it
    replays to a later call after a lost answer.

    An account of the quote held in the back-office refuses it (AccountHeld), nothing sent.
    Below the approval threshold the key is the quote's own (staff reach this through
    payments.services.approvals.execute_or_request_approval). Above it this runs only for an
    approved request (`approval`), with the request's key, and the audit event names the
    maker and the checker."""
    if approval is None and quote_needs_approval(quote):
        raise ApprovalNeeded(quote.quote_id)
    existing = Transaction.objects.filter(quote_id=quote.quote_id).first()
    if existing is not None:
        return existing
    bound = _bind_correlation_id(quote=quote, correlation_id=correlation_id)
    key = approval.idempotency_key if approval is not None else quote.idempotency_key
    details = {"quote": quote.quote_id}
    if approval is not None:
        details |= {"approval": approval.pk, "maker": approval.maker.get_username(), "checker": actor.get_username()}

    def store(answer: api.Transaction) -> Transaction:
        transactions_upsert(items=[answer], seen_by=Source.STAFF)
        return Transaction.objects.get(transaction_id=answer.transaction_id)

    def create(client) -> api.Transaction:
        return client.transactions.create(
            quote_id=quote.quote_id, correlation_id=bound or None, idempotency_key=str(key)
        )

    # One try, then, if its answer was lost, one look with a longer timeout: the same request
    # under the same key, which the API answers with the transaction it made, if it made one.
    # (Retries of the client's own would spend the web worker's time on the same short timeout.)
    # Executes of one quote at once: one sends, the others answer with its transaction.
    return write_through_api(
        actor=actor,
        action="quote.execute",
        target=AuditTarget("quote", quote.quote_id, details),
        call=lambda: create(get_client().with_options(max_retries=0)),
        store=store,
        stored=lambda tx: AuditTarget("transaction", tx.transaction_id, details),
        reconcile=lambda: create(lookup_client()),
        once=Once(
            f"quote:{quote.quote_id}:execute",
            remember=lambda tx: tx.transaction_id,
            replay=lambda transaction_id: Transaction.objects.get(transaction_id=transaction_id),
            # Under the claim, the accounts' row locks: an execute sees a hold set before it, and
            # a hold being approved sees this execute in flight (payments.services.holds).
            check=lambda: refuse_held_execute(actor=actor, quote=quote, lock=True),
        ),
    )
