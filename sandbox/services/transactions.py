"""Transactions: created from a quote, moved through their states, and the ledger they move.

States (docs/decisions/sandbox-payments.md): CREATED -> AWAITING_TRANSFER -> PROCESSING -> COMPLETED
or FAILED; AWAITING_TRANSFER -> EXPIRED at expiresAt; CREATED or AWAITING_TRANSFER -> CANCELLED.
Ledger: a SERVICE_* source is debited when the transaction enters PROCESSING (refunded if it FAILS);
the destination is credited with destinationAmount on COMPLETED. External accounts are funded from
outside, so the sandbox takes nothing from them.

Time (docs/decisions/sandbox-payments.md, "Time: expiry, processing, failures, rule firing"):
AWAITING_TRANSFER expires at `expires_at`; PROCESSING ends at `due_at` (SANDBOX_PROCESSING_DELAY_SECONDS
after it began) in COMPLETED, or FAILED when the source amount's cents are .13. Whichever comes
first applies a due step: the task queued after commit, the periodic `transactions_advance_due`,
or a read (`transaction_for_key`). Each claims the row with a conditional UPDATE, so a step is
applied once. Every status change emits `transaction.update`.
"""

import datetime as dt
import uuid

from django.conf import settings
from django.core import signing
from django.db import IntegrityError, transaction

from .. import clock, signals
from ..errors import bad_request, not_found
from ..models import SERVICE_ACCOUNT_TYPES, ApiKey, CustomerStatus, Transaction, TransactionStatus
from ..rates import Currency, amount_str, rate_str
from .instructions import reference_id, transfer_instructions
from .ledger import balance_credit, balance_debit, balance_get
from .quotes import quote_currencies, quote_for_key
from .records import record_for_key
from .webhooks import emit

TRANSFER_WINDOW = dt.timedelta(minutes=30)
DEFAULT_PROCESSING_DELAY_SECONDS = 10
# The failure rule: a source amount whose cents are .13 (100.13 USD, 20.130000 USDC) ends FAILED.
FAILING_CENTS = 13
# How many due transactions one sweep settles, so that a backlog never holds one long transaction.
SWEEP_BATCH = 500
DEPOSIT_SIGNING_SALT = "sandbox.forms.deposit"
NEXT_STATUSES = {
    TransactionStatus.CREATED: [TransactionStatus.AWAITING_TRANSFER],
    TransactionStatus.AWAITING_TRANSFER: [TransactionStatus.PROCESSING, TransactionStatus.EXPIRED],
    TransactionStatus.PROCESSING: [TransactionStatus.COMPLETED, TransactionStatus.FAILED],
}
CANCELLABLE = {TransactionStatus.CREATED, TransactionStatus.AWAITING_TRANSFER}


# --- create -------------------------------------------------------------------------------------


@transaction.atomic
def transaction_create(*, api_key: ApiKey, quote_id, correlation_id: str = "") -> Transaction:
    """One transaction from one valid quote. The quote row is locked, and the one-to-one column is
    the last word: of two simultaneous requests for one quote, one wins and the other is told so."""
    quote = quote_for_key(api_key=api_key, quote_id=quote_id, lock=True)
    now = clock.now()
    if quote.used_at:
        raise bad_request(f"Quote {quote.pk} has already been used; create a new quote")
    if quote.expires_at <= now:
        raise bad_request(f"Quote {quote.pk} expired at {clock.iso(quote.expires_at)}; create a new quote")
    customer = quote.customer
    if customer.status != CustomerStatus.ACTIVE:
        raise bad_request(f"Customer {customer.pk} is {customer.status}: transactions need an ACTIVE customer")
    source = quote_currencies(quote)[0]
    tx = Transaction(
        id=uuid.uuid4(),
        customer=customer,
        quote=quote,
        correlation_id=correlation_id,
        created_at=now,
        updated_at=now,
    )
    account = quote.source_account
    if account.account_type in SERVICE_ACCOUNT_TYPES and balance_debit(
        account=account, currency=source, amount=quote.source_amount
    ):
        _begin_processing(tx, source, now)
    else:
        tx.status = TransactionStatus.AWAITING_TRANSFER
        tx.expires_at = now + TRANSFER_WINDOW
    tx.transfer_instructions = transfer_instructions(tx, quote, source)
    try:
        with transaction.atomic():
            tx.save(force_insert=True)
    except IntegrityError:
        raise bad_request(f"Quote {quote.pk} has already been used; create a new quote") from None
    quote.used_at = now
    quote.save(update_fields=["used_at"])
    _emit_update(tx)
    return tx


# --- read, cancel, advance ----------------------------------------------------------------------


def transaction_for_key(*, api_key: ApiKey, transaction_id, lock: bool = False) -> Transaction:
    records = _with_relations()
    if lock:
        records = records.select_for_update(of=("self",))
    tx = record_for_key(records, api_key=api_key, kind="Transaction", record_id=transaction_id)
    return _settle_on_read(tx)


def _settle_on_read(tx: Transaction) -> Transaction:
    """A read shows the transaction with any due step applied, so nothing waits for the periodic
    task. Costs no query unless a step is due."""
    if not _is_due(tx, clock.now()):
        return tx
    transaction_settle(transaction_id=tx.pk)
    tx.refresh_from_db()
    return tx


@transaction.atomic
def transaction_cancel(*, api_key: ApiKey, transaction_id) -> Transaction:
    tx = transaction_for_key(api_key=api_key, transaction_id=transaction_id, lock=True)
    if tx.status not in CANCELLABLE:
        raise bad_request(
            f"Transaction {tx.pk} is {tx.status} and cannot be cancelled; only CREATED or AWAITING_TRANSFER can"
        )
    tx.status, tx.updated_at = TransactionStatus.CANCELLED, clock.now()
    tx.save(update_fields=["status", "updated_at"])
    _emit_update(tx)
    return tx


@transaction.atomic
def transaction_advance(*, api_key: ApiKey, transaction_id, to: str) -> Transaction:
    """Test helper: one step along the state machine, with its ledger movement."""
    tx = transaction_for_key(api_key=api_key, transaction_id=transaction_id, lock=True)
    allowed = NEXT_STATUSES.get(tx.status, [])
    if to not in allowed:
        then = f"it can move to {' or '.join(allowed)}" if allowed else "it is final"
        raise bad_request(f"Transaction {tx.pk} is {tx.status}: it cannot move to {to}; {then}")
    quote = tx.quote
    source, _ = quote_currencies(quote)
    now = clock.now()
    if to == TransactionStatus.AWAITING_TRANSFER:
        tx.expires_at = now + TRANSFER_WINDOW
        tx.transfer_instructions = tx.transfer_instructions or transfer_instructions(tx, quote, source)
    elif to == TransactionStatus.PROCESSING:
        _debit_source(tx, source)
        _begin_processing(tx, source, now)
    elif to in (TransactionStatus.COMPLETED, TransactionStatus.FAILED):
        _end_processing(tx, to)
    tx.status, tx.updated_at = to, now
    tx.save()
    _emit_update(tx)
    return tx


# --- time: processing, completion, expiry -------------------------------------------------------


def processing_delay() -> dt.timedelta:
    return dt.timedelta(seconds=getattr(settings, "SANDBOX_PROCESSING_DELAY_SECONDS", DEFAULT_PROCESSING_DELAY_SECONDS))


def ends_failed(quote) -> bool:
    """The documented failure rule: the source amount's cents are .13."""
    return int(quote.source_amount * 100 % 100) == FAILING_CENTS


def _debit_source(tx: Transaction, source: Currency) -> None:
    """A SERVICE_* source pays from its balance on entering PROCESSING; external ones pay from outside."""
    account = tx.quote.source_account
    if account.account_type in SERVICE_ACCOUNT_TYPES and not balance_debit(
        account=account, currency=source, amount=tx.quote.source_amount
    ):
        held = amount_str(source.quantize(balance_get(account=account, currency=source)))
        raise bad_request(
            f"Payment account {account.account_id} holds {held} {source.label}; "
            f"{amount_str(tx.quote.source_amount)} {source.label} are needed: fund it first"
        )


def _begin_processing(tx: Transaction, source: Currency, now: dt.datetime) -> None:
    """The funds have left the source (already debited): PROCESSING until due_at."""
    delay = processing_delay()
    tx.status = TransactionStatus.PROCESSING
    tx.source_reference_id = reference_id(source, f"source:{tx.pk}")
    tx.due_at = now + delay
    signals.processing_started.send(sender=Transaction, transaction_id=str(tx.pk), countdown=delay.total_seconds())


def _end_processing(tx: Transaction, to: str) -> None:
    """The ledger movement of COMPLETED (credit the destination) or FAILED (refund a SERVICE_* source)."""
    quote = tx.quote
    source, destination = quote_currencies(quote)
    tx.due_at = None
    if to == TransactionStatus.COMPLETED:
        balance_credit(account=quote.destination_account, currency=destination, amount=quote.destination_amount)
        tx.destination_reference_id = reference_id(destination, f"destination:{tx.pk}")
    elif quote.source_account.account_type in SERVICE_ACCOUNT_TYPES:
        balance_credit(account=quote.source_account, currency=source, amount=quote.source_amount)


def _is_due(tx: Transaction, now: dt.datetime) -> bool:
    if tx.status == TransactionStatus.AWAITING_TRANSFER:
        return tx.expires_at is not None and tx.expires_at <= now
    return tx.status == TransactionStatus.PROCESSING and tx.due_at is not None and tx.due_at <= now


@transaction.atomic
def transaction_settle(*, transaction_id) -> Transaction | None:
    """Apply the automatic step that is due: AWAITING_TRANSFER -> EXPIRED at expires_at, PROCESSING
    -> COMPLETED or FAILED at due_at. None when nothing was due or another runner got there first.

    The claim is a conditional UPDATE on the state read here, so of any number of runners (task,
    sweep, read) exactly one applies the step and moves the ledger."""
    tx = _with_relations().filter(pk=transaction_id).first()
    if tx is None or not _is_due(tx, clock.now()):
        return None
    rows = Transaction.objects.filter(pk=tx.pk, status=tx.status)
    if tx.status == TransactionStatus.AWAITING_TRANSFER:
        # updatedAt is the moment it expired, whenever the sandbox noticed.
        if not rows.filter(expires_at=tx.expires_at).update(status=TransactionStatus.EXPIRED, updated_at=tx.expires_at):
            return None
        tx.status, tx.updated_at = TransactionStatus.EXPIRED, tx.expires_at
    else:
        to = TransactionStatus.FAILED if ends_failed(tx.quote) else TransactionStatus.COMPLETED
        if not rows.filter(due_at=tx.due_at).update(status=to, due_at=None, updated_at=tx.due_at):
            return None
        tx.status, tx.updated_at = to, tx.due_at
        _end_processing(tx, to)
        tx.save(update_fields=["destination_reference_id"])
    _emit_update(tx)
    return tx


def transactions_advance_due(*, limit: int = SWEEP_BATCH) -> int:
    """The periodic catch-up: expire what waited past expiresAt, end what processed past due_at.
    Each transaction in its own database transaction; answers how many moved. Safe to run
    concurrently and repeatedly."""
    now = clock.now()
    expired = Transaction.objects.filter(status=TransactionStatus.AWAITING_TRANSFER, expires_at__lte=now).order_by(
        "expires_at", "pk"
    )
    ended = Transaction.objects.filter(status=TransactionStatus.PROCESSING, due_at__lte=now).order_by("due_at", "pk")
    ids = [*expired.values_list("pk", flat=True)[:limit], *ended.values_list("pk", flat=True)[:limit]]
    return sum(1 for pk in ids if transaction_settle(transaction_id=pk))


# --- the hosted deposit page --------------------------------------------------------------------


def deposit_token(tx: Transaction) -> str:
    """The capability in the deposit page's address: the id, signed with SECRET_KEY."""
    return signing.Signer(salt=DEPOSIT_SIGNING_SALT).sign(str(tx.pk))


def transaction_for_deposit_token(*, token: str) -> Transaction | None:
    """The transaction behind a deposit page address (due steps applied); None for a bad token."""
    try:
        transaction_id = uuid.UUID(signing.Signer(salt=DEPOSIT_SIGNING_SALT).unsign(token))
    except (signing.BadSignature, ValueError):
        return None
    tx = _with_relations().filter(pk=transaction_id).first()
    return _settle_on_read(tx) if tx else None


@transaction.atomic
def transaction_deposit(*, transaction_id) -> Transaction:
    """The customer's transfer arrives (the hosted deposit page): AWAITING_TRANSFER -> PROCESSING.

    Money sent to a SERVICE_* source (its own deposit address) lands on its balance and is taken
    at once, so a FAILED refund leaves it there."""
    tx = _with_relations().select_for_update(of=("self",)).filter(pk=transaction_id).first()
    if tx is None:
        raise not_found("Transaction", transaction_id)
    tx = _settle_on_read(tx)
    if tx.status != TransactionStatus.AWAITING_TRANSFER:
        raise bad_request(f"Transaction {tx.pk} is {tx.status}: only AWAITING_TRANSFER takes a deposit")
    quote = tx.quote
    source, _ = quote_currencies(quote)
    if quote.source_account.account_type in SERVICE_ACCOUNT_TYPES:
        balance_credit(account=quote.source_account, currency=source, amount=quote.source_amount)
    _debit_source(tx, source)
    now = clock.now()
    _begin_processing(tx, source, now)
    tx.updated_at = now
    tx.save()
    _emit_update(tx)
    return tx


def _with_relations():
    return Transaction.objects.select_related(
        "customer", "quote", "quote__source_account", "quote__destination_account"
    )


def _emit_update(tx: Transaction) -> None:
    """transaction.update (a sandbox extension kind): the transaction as GET /transactions/{id} shows it."""
    emit(organization_id=tx.customer.organization_id, event_type="transaction.update", data=transaction_body(tx))


# --- output -------------------------------------------------------------------------------------


def transaction_body(tx: Transaction) -> dict:
    quote = tx.quote
    source, destination = quote_currencies(quote)
    src = {
        "sourceCurrency": source.as_object(),
        "sourcePaymentMethod": quote.source_payment_method,
        "sourceAmount": amount_str(source.quantize(quote.source_amount)),
        "sourcePaymentAccountId": str(quote.source_account.account_id),
    }
    if tx.source_reference_id:
        src["sourceReferenceId"] = tx.source_reference_id
    dst = {
        "destinationPaymentAccountId": str(quote.destination_account.account_id),
        "destinationPaymentMethod": quote.destination_payment_method,
        "destinationCurrency": destination.as_object(),
        "exchangeRate": rate_str(quote.exchange_rate),
        "destinationAmount": amount_str(destination.quantize(quote.destination_amount)),
    }
    if tx.destination_reference_id:
        dst["destinationReferenceId"] = tx.destination_reference_id
    body = {
        "transactionId": str(tx.pk),
        "customerId": str(tx.customer_id),
        "quoteId": str(quote.pk),
        "transactionStatus": tx.status,
        "source": src,
        "destination": dst,
        "fees": quote.fees,
        "createdAt": clock.iso(tx.created_at),
        "updatedAt": clock.iso(tx.updated_at),
    }
    if tx.correlation_id:
        body["correlationId"] = tx.correlation_id
    if tx.transfer_instructions:
        body["transferInstructions"] = tx.transfer_instructions
    if tx.status == TransactionStatus.AWAITING_TRANSFER and tx.expires_at:
        body["expiresAt"] = clock.iso(tx.expires_at)
    return body
