"""Rows of the mirror and of the back-office's own bookkeeping, made directly for a test.

Each factory gives a row as a sync would have left it: upstream ids are fresh UUIDs, money is
Decimal, statuses come from the models' choices, and times from timezone.now() when the row
is built (looked up then, so that a test that sets Django's clock sets the defaults too).
Records that must also exist upstream are made through the sandbox over HTTP instead (the
`upstream` fixture, tests/payments/account_fixtures.py, tests/payments/transactions_helpers.py).
"""

import datetime as dt
import uuid
from decimal import Decimal

import factory
from django.utils import timezone
from django.utils.text import slugify
from factory.django import DjangoModelFactory

from audit.models import AuditEvent
from customers.models import Customer, CustomerStatus, CustomerStatusChange, CustomerType, VerificationIssue
from mirror.models import SyncRun, WebhookEvent, WebhookSecret
from payments.models import (
    ApprovalKind,
    ApprovalRequest,
    ApprovalStatus,
    AutomationRule,
    PaymentAccount,
    PaymentAccountStatus,
    Quote,
    Transaction,
    TransactionStatus,
)
from payments.terms import QuoteTerms
from upstream.mirrored import Source


def _now() -> dt.datetime:
    return timezone.now()


def _customer_upstream_id(row) -> str:
    # The mirror may hold a record before its customer: then only the upstream id is known.
    return row.customer.customer_id if row.customer else row.unsynced_customer_id


# JSON values are made afresh for each row: a dict declared once would be shared by all of them.


def _wallet_details() -> dict:
    return {"currency": {"label": "USDC", "chain": "BASE"}, "address": {"address": "0x" + "ab" * 20, "chain": "BASE"}}


def _bank_details() -> dict:
    return {
        "bankAccountType": "CHECKING",
        "bankName": "First Test Bank",
        "bankAccountCurrency": {"label": "USD"},
        "bankAccountPaymentMethod": "ACH",
    }


def _fees(row) -> dict:
    """The fees object as the API returns it: a service fee in the source currency, which is
    taken to be USD (the fee's USD amount is the fee itself)."""
    fee = str(row.service_fee)
    return {"feeCurrency": {"label": row.source_currency}, "serviceFee": {"feeAmount": fee, "feeUSDAmount": fee}}


# --- Customers --------------------------------------------------------------------------------


class CustomerFactory(DjangoModelFactory):
    """An individual asked for more information (a case of the hosted form), two hours in that
    state, synced a moment ago (a refresh is not sent again so soon).

    Traits: `active` (may move money), `business` (a company, for the KYB editor)."""

    class Meta:
        model = Customer

    class Params:
        active = factory.Trait(status=CustomerStatus.ACTIVE)
        business = factory.Trait(customer_type=CustomerType.BUSINESS, name=factory.Faker("company"))

    customer_id = factory.Faker("uuid4")
    organization_id = factory.Faker("uuid4")
    customer_type = CustomerType.INDIVIDUAL
    status = CustomerStatus.NEEDS_ADDITIONAL_INFORMATION
    name = factory.Faker("name")
    # From the name: a search by a prefix of name or e-mail then finds only the rows a test named.
    email = factory.LazyAttribute(lambda o: f"{slugify(o.name).replace('-', '.') or 'customer'}@example.com")
    verification_link = factory.LazyAttribute(lambda o: f"https://forms.example.com/verify/{o.customer_id}")
    status_since = factory.LazyFunction(lambda: _now() - dt.timedelta(hours=2))
    upstream_updated_at = factory.SelfAttribute("status_since")
    synced_at = factory.LazyFunction(_now)


class VerificationIssueFactory(DjangoModelFactory):
    class Meta:
        model = VerificationIssue

    customer = factory.SubFactory(CustomerFactory)
    customer_status = factory.SelfAttribute("customer.status")
    code = "DOCUMENT_MISSING_BACK"
    message = "The back of the identity document is missing."
    timestamp = factory.LazyFunction(_now)


class CustomerStatusChangeFactory(DjangoModelFactory):
    """A customer approved an hour ago, after a review (UNDER_REVIEW → ACTIVE), seen by a sync."""

    class Meta:
        model = CustomerStatusChange

    customer = factory.SubFactory(CustomerFactory, active=True)
    old_status = CustomerStatus.UNDER_REVIEW
    new_status = CustomerStatus.ACTIVE
    changed_at = factory.LazyFunction(lambda: _now() - dt.timedelta(hours=1))
    seen_by = Source.SYNC


# --- Payments ---------------------------------------------------------------------------------


class PaymentAccountFactory(DjangoModelFactory):
    """An active external USDC wallet on BASE, of a customer the mirror has not synced (pass
    `customer=` to link one).

    Traits: `bank` (an ACH checking account in USD), `pending` (a bank account whose hosted
    form is not completed: no upstream id yet, found by its form link)."""

    class Meta:
        model = PaymentAccount

    class Params:
        unsynced_customer_id = factory.Faker("uuid4")
        bank = factory.Trait(
            account_type="EXTERNAL_BANK_ACCOUNT",
            nickname="Checking",
            details=factory.LazyFunction(_bank_details),
        )
        pending = factory.Trait(
            account_id=None,
            form_link=factory.LazyFunction(lambda: f"http://testserver/sandbox/forms/bank-accounts/{uuid.uuid4().hex}"),
            account_type="EXTERNAL_BANK_ACCOUNT",
            status=PaymentAccountStatus.PENDING,
            nickname="",
            details=factory.LazyFunction(dict),
            created_upstream_at=None,
        )

    account_id = factory.Faker("uuid4")
    customer = None
    customer_upstream_id = factory.LazyAttribute(_customer_upstream_id)
    account_type = "EXTERNAL_CRYPTO_WALLET"
    status = PaymentAccountStatus.ACTIVE
    nickname = "Base wallet"
    details = factory.LazyFunction(_wallet_details)
    created_upstream_at = factory.LazyFunction(_now)
    upstream_updated_at = factory.SelfAttribute("created_upstream_at")
    synced_at = factory.LazyFunction(_now)


class AutomationRuleFactory(DjangoModelFactory):
    """A weekday sweep of 50 USDC from a BASE wallet to an ACH bank account in USD, of a
    customer the mirror has not synced (pass `customer=` to link one)."""

    class Meta:
        model = AutomationRule

    class Params:
        unsynced_customer_id = factory.Faker("uuid4")
        destination_account_id = factory.Faker("uuid4")

    rule_id = factory.Faker("uuid4")
    customer = None
    customer_upstream_id = factory.LazyAttribute(_customer_upstream_id)
    name = "Sweep USDC to the bank"
    source_account_id = factory.Faker("uuid4")
    # As the mirror keeps it: currencies are objects.
    transaction_template = factory.LazyAttribute(
        lambda o: {
            "source": {
                "sourcePaymentAccountId": o.source_account_id,
                "sourcePaymentMethod": "BASE",
                "sourceCurrency": {"label": "USDC"},
            },
            "destination": {
                "destinationPaymentAccountId": o.destination_account_id,
                "destinationPaymentMethod": "ACH",
                "destinationCurrency": {"label": "USD"},
            },
            "amount": {"type": "FLAT", "value": "50.00"},
        }
    )
    trigger = factory.LazyFunction(lambda: {"cronSchedule": "0 9 * * 1-5"})
    created_upstream_at = factory.LazyFunction(_now)
    upstream_updated_at = factory.SelfAttribute("created_upstream_at")
    synced_at = factory.LazyFunction(_now)


class QuoteFactory(DjangoModelFactory):
    """A quote for a 100.00 USD ACH → BASE USDC onramp of an active customer, valid for five
    more minutes; a 0.35 USD service fee at a rate of 1."""

    class Meta:
        model = Quote

    class Params:
        service_fee = Decimal("0.35")

    quote_id = factory.Faker("uuid4")
    idempotency_key = factory.LazyFunction(uuid.uuid4)
    customer = factory.SubFactory(CustomerFactory, active=True)
    source_account_id = factory.Faker("uuid4")
    source_payment_method = "ACH"
    source_currency = "USD"
    destination_account_id = factory.Faker("uuid4")
    destination_payment_method = "BASE"
    destination_currency = "USDC"
    # The body as the builder sends it (payments.terms).
    request = factory.LazyAttribute(
        lambda o: QuoteTerms(
            customer_id=o.customer.customer_id,
            source_account_id=o.source_account_id,
            source_payment_method=o.source_payment_method,
            source_currency=o.source_currency,
            source_amount=o.source_amount,
            destination_account_id=o.destination_account_id,
            destination_payment_method=o.destination_payment_method,
            destination_currency=o.destination_currency,
        ).api_body()
    )
    source_amount = Decimal("100.00")
    exchange_rate = Decimal("1")
    destination_amount = factory.LazyAttribute(lambda o: o.source_amount * o.exchange_rate - o.service_fee)
    fees = factory.LazyAttribute(_fees)
    expires_at = factory.LazyFunction(lambda: _now() + dt.timedelta(minutes=5))


class StaffUserFactory(DjangoModelFactory):
    """A staff user with no role (the maker of a request a test sets up directly)."""

    class Meta:
        model = "auth.User"
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"staff-{n}")


class ApprovalRequestFactory(DjangoModelFactory):
    """A pending request to execute a 20,000.00 USD quote, made by another staff member,
    waiting for a checker for 24 more hours."""

    class Meta:
        model = ApprovalRequest

    kind = ApprovalKind.EXECUTE_QUOTE
    status = ApprovalStatus.PENDING
    quote = factory.SubFactory(QuoteFactory, source_amount=Decimal("20000.00"))
    summary = factory.LazyAttribute(lambda o: f"Execute {o.quote.source_amount} USD → USDC")
    payload = factory.LazyAttribute(lambda o: {"quoteId": o.quote.quote_id, "correlationId": ""})
    maker = factory.SubFactory(StaffUserFactory)
    idempotency_key = factory.LazyFunction(uuid.uuid4)
    approved_destination_amount = factory.LazyAttribute(lambda o: o.quote.destination_amount)
    expires_at = factory.LazyFunction(lambda: _now() + dt.timedelta(hours=24))


class TransactionFactory(DjangoModelFactory):
    """A 100.00 USD ACH → BASE USDC onramp awaiting the customer's transfer, which it awaits
    for 30 minutes from entering that state. No customer row unless `customer=` is given (the
    mirror may hold a transaction before its customer)."""

    class Meta:
        model = Transaction

    class Params:
        unsynced_customer_id = factory.Faker("uuid4")
        service_fee = Decimal("0.35")

    transaction_id = factory.Faker("uuid4")
    quote_id = factory.Faker("uuid4")
    customer = None
    customer_upstream_id = factory.LazyAttribute(_customer_upstream_id)
    status = TransactionStatus.AWAITING_TRANSFER
    status_since = factory.LazyFunction(_now)
    source_account_id = factory.Faker("uuid4")
    source_payment_method = "ACH"
    source_currency = "USD"
    source_amount = Decimal("100.00")
    destination_account_id = factory.Faker("uuid4")
    destination_payment_method = "BASE"
    destination_currency = "USDC"
    destination_amount = factory.LazyAttribute(lambda o: o.source_amount * o.exchange_rate - o.service_fee)
    exchange_rate = Decimal("1")
    fees = factory.LazyAttribute(_fees)
    expires_at = factory.LazyAttribute(
        lambda o: o.status_since + dt.timedelta(minutes=30) if o.status == TransactionStatus.AWAITING_TRANSFER else None
    )
    created_upstream_at = factory.SelfAttribute("status_since")
    upstream_updated_at = factory.SelfAttribute("status_since")
    synced_at = factory.LazyFunction(_now)


# --- The mirror's own work --------------------------------------------------------------------

# Where an event of each kind the mirror follows names its record.
_EVENT_RECORD_KEYS = {
    "customer.update": "customerId",
    "transaction.update": "transactionId",
    "payment_account.update": "paymentAccountId",
}


class WebhookEventFactory(DjangoModelFactory):
    """A customer.update event as the receiver stores it, not yet processed. Its data names
    the record the event is about (`record_id`: a fresh id unless given)."""

    class Meta:
        model = WebhookEvent

    class Params:
        record_id = factory.Faker("uuid4")

    event_id = factory.Faker("uuid4")
    event_type = "customer.update"
    occurred_at = factory.LazyFunction(_now)
    # The whole event, as signed and delivered.
    payload = factory.LazyAttribute(
        lambda o: {
            "eventId": o.event_id,
            "eventType": o.event_type,
            "createdAt": o.occurred_at.isoformat(),
            "data": {_EVENT_RECORD_KEYS[o.event_type]: o.record_id} if o.event_type in _EVENT_RECORD_KEYS else {},
        }
    )
    state = WebhookEvent.State.RECEIVED


class WebhookSecretFactory(DjangoModelFactory):
    """The signing secret of an endpoint registered with the Payments API."""

    class Meta:
        model = WebhookSecret

    webhook_id = factory.Sequence(lambda n: f"wh_{n}")
    url = "http://testserver/webhooks/payments"
    secret = factory.Faker("sha256")


class SyncRunFactory(DjangoModelFactory):
    """A customers sync that succeeded just now (given outcome RUNNING: no finish time yet).

    Trait: `failed` (the API did not answer)."""

    class Meta:
        model = SyncRun

    class Params:
        failed = factory.Trait(
            outcome=SyncRun.Outcome.FAILED,
            counts=factory.LazyFunction(dict),
            error="The Payments API did not answer",
        )

    kind = "customers"
    outcome = SyncRun.Outcome.SUCCEEDED
    finished_at = factory.LazyAttribute(lambda o: None if o.outcome == SyncRun.Outcome.RUNNING else _now())
    counts = factory.LazyFunction(lambda: {"created": 0, "updated": 0, "unchanged": 3, "missing": 0, "failed": 0})


# --- Bookkeeping ------------------------------------------------------------------------------


class AuditEventFactory(DjangoModelFactory):
    """A staff member's successful update of a customer (the actor is kept by name only)."""

    class Meta:
        model = AuditEvent

    actor = None
    actor_username = factory.Sequence(lambda n: f"staff-{n}")
    action = "customer.update"
    target_kind = "customer"
    target_id = factory.Faker("uuid4")
    outcome = AuditEvent.Outcome.SUCCESS
    request_id = factory.LazyFunction(lambda: uuid.uuid4().hex)
