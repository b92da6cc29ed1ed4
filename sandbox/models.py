"""State of the Payments API sandbox. Every table is sandbox_*; the back-office never reads them.

Times that the API shows come from the sandbox clock (sandbox.clock.now), never auto_now,
so that advancing the clock moves expiry, reviews and schedules together.
"""

import uuid

from django.db import models

MONEY = {"max_digits": 38, "decimal_places": 18}


class Tier(models.TextChoices):
    STANDARD = "standard"
    BUILDER = "builder"


class ApiKey(models.Model):
    """A bearer key of one organization. Only its SHA-256 is kept; `prefix` finds the row."""

    prefix = models.CharField(max_length=16, unique=True)
    key_hash = models.CharField(max_length=64)
    organization_id = models.UUIDField(default=uuid.uuid4)
    tier = models.CharField(max_length=16, choices=Tier, default=Tier.STANDARD)
    read_only = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.prefix}… ({self.tier}{', read-only' if self.read_only else ''})"


class Clock(models.Model):
    """One row: seconds added to real time by test-helpers/clock/advance."""

    offset_seconds = models.FloatField(default=0)

    def __str__(self):
        return f"clock +{self.offset_seconds}s"


class RateShift(models.Model):
    """A currency's mid-rate moved off the snapshot by test-helpers/exchange-rates/shift, in
    basis points of its units per USD (one row per currency; none: the snapshot as it is)."""

    label = models.CharField(max_length=16, primary_key=True)
    bps = models.IntegerField(default=0)

    def __str__(self):
        return f"{self.label} {self.bps:+d} bps"


class CustomerStatus(models.TextChoices):
    CREATED = "CREATED"
    UNDER_REVIEW = "UNDER_REVIEW"
    NEEDS_ADDITIONAL_INFORMATION = "NEEDS_ADDITIONAL_INFORMATION"
    ACTIVE = "ACTIVE"
    REJECTED = "REJECTED"
    DEACTIVATED = "DEACTIVATED"


class CustomerType(models.TextChoices):
    INDIVIDUAL = "INDIVIDUAL"
    BUSINESS = "BUSINESS"


class Customer(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    organization_id = models.UUIDField()
    customer_type = models.CharField(max_length=16, choices=CustomerType)
    status = models.CharField(max_length=32, choices=CustomerStatus, default=CustomerStatus.CREATED)
    email = models.CharField(max_length=254)
    first_name = models.CharField(max_length=200, blank=True)
    last_name = models.CharField(max_length=200, blank=True)
    business_name = models.CharField(max_length=300, blank=True)
    kyc_data = models.JSONField(null=True, blank=True)
    kyb_data = models.JSONField(null=True, blank=True)
    # The hosted verification form is at {forms_url}/verify/<token>.
    verification_token = models.CharField(max_length=64, unique=True)
    # When the running review reaches its outcome (after the review delay); null when none runs.
    review_due_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["created_at", "id"], name="sbx_customer_keyset"),
            models.Index(fields=["organization_id", "created_at", "id"], name="sbx_customer_org_keyset"),
            models.Index(fields=["status", "review_due_at"], name="sbx_customer_review_due"),
        ]

    def __str__(self):
        return f"{self.name} ({self.status})"

    @property
    def name(self) -> str:
        if self.customer_type == CustomerType.BUSINESS:
            return self.business_name
        return f"{self.first_name} {self.last_name}".strip()


class VerificationIssue(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="issues")
    code = models.CharField(max_length=64)
    message = models.CharField(max_length=500)
    timestamp = models.DateTimeField()

    def __str__(self):
        return self.code


class PaymentAccountType(models.TextChoices):
    SERVICE_CRYPTO_WALLET = "SERVICE_CRYPTO_WALLET"
    EXTERNAL_CRYPTO_WALLET = "EXTERNAL_CRYPTO_WALLET"
    EXTERNAL_BANK_ACCOUNT = "EXTERNAL_BANK_ACCOUNT"
    SERVICE_AUTO_FIAT_ACCOUNT = "SERVICE_AUTO_FIAT_ACCOUNT"
    SERVICE_FIAT_ACCOUNT = "SERVICE_FIAT_ACCOUNT"


# Accounts whose balance the service holds: it debits and credits them. External accounts are
# funded from outside, and only they may belong to a third party.
SERVICE_ACCOUNT_TYPES = {
    PaymentAccountType.SERVICE_CRYPTO_WALLET,
    PaymentAccountType.SERVICE_AUTO_FIAT_ACCOUNT,
    PaymentAccountType.SERVICE_FIAT_ACCOUNT,
}
EXTERNAL_ACCOUNT_TYPES = {PaymentAccountType.EXTERNAL_BANK_ACCOUNT, PaymentAccountType.EXTERNAL_CRYPTO_WALLET}
# The type-specific object of each type in the API's bodies.
ACCOUNT_DETAILS_KEYS = {
    PaymentAccountType.EXTERNAL_BANK_ACCOUNT: "externalBankAccount",
    PaymentAccountType.EXTERNAL_CRYPTO_WALLET: "externalCryptoWallet",
    PaymentAccountType.SERVICE_CRYPTO_WALLET: "serviceCryptoWallet",
    PaymentAccountType.SERVICE_AUTO_FIAT_ACCOUNT: "serviceAutoFiatAccount",
    PaymentAccountType.SERVICE_FIAT_ACCOUNT: "serviceFiatAccount",
}


class PaymentAccountStatus(models.TextChoices):
    PENDING = "PENDING"
    ACTIVE = "ACTIVE"
    DEACTIVATED = "DEACTIVATED"


class PaymentAccount(models.Model):
    """`account_id` is the API's paymentAccountId: null (shown as "") while a bank account
    waits for its hosted form, found then by `form_token`."""

    account_id = models.UUIDField(null=True, blank=True, unique=True)
    form_token = models.CharField(max_length=64, null=True, blank=True, unique=True)
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="payment_accounts")
    organization_id = models.UUIDField()
    account_type = models.CharField(max_length=32, choices=PaymentAccountType)
    status = models.CharField(max_length=16, choices=PaymentAccountStatus)
    nickname = models.CharField(max_length=200, blank=True)
    is_third_party = models.BooleanField(default=False)
    # The type-specific object exactly as the API returns it (externalBankAccount, ...).
    details = models.JSONField(default=dict)
    created_at = models.DateTimeField(null=True, blank=True)
    # Listing order for every account, pending ones included.
    listed_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["listed_at", "id"], name="sbx_account_keyset"),
            models.Index(fields=["customer", "listed_at", "id"], name="sbx_account_customer_keyset"),
        ]

    def __str__(self):
        return f"{self.account_type} {self.account_id or 'pending'}"


class Balance(models.Model):
    """The sandbox ledger: what an account holds per chain (blank for fiat) and currency."""

    account = models.ForeignKey(PaymentAccount, on_delete=models.CASCADE, related_name="balances")
    chain = models.CharField(max_length=16, blank=True)
    currency = models.CharField(max_length=64)
    amount = models.DecimalField(**MONEY, default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["account", "chain", "currency"], name="sbx_balance_unique"),
        ]

    def __str__(self):
        return f"{self.amount} {self.currency}"


class Quote(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    api_key = models.ForeignKey(ApiKey, on_delete=models.PROTECT, related_name="+")
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="quotes")
    source_account = models.ForeignKey(PaymentAccount, on_delete=models.PROTECT, related_name="+")
    source_payment_method = models.CharField(max_length=32)
    source_currency = models.CharField(max_length=64)
    source_amount = models.DecimalField(**MONEY)
    destination_account = models.ForeignKey(PaymentAccount, on_delete=models.PROTECT, related_name="+")
    destination_payment_method = models.CharField(max_length=32)
    destination_currency = models.CharField(max_length=64)
    exchange_rate = models.DecimalField(**MONEY)
    destination_amount = models.DecimalField(**MONEY)
    # The fees structure exactly as the API returns it.
    fees = models.JSONField()
    developer_fee = models.JSONField(null=True, blank=True)
    guarantee = models.BooleanField(default=False)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"quote {self.id}"


class TransactionStatus(models.TextChoices):
    CREATED = "CREATED"
    AWAITING_TRANSFER = "AWAITING_TRANSFER"
    PROCESSING = "PROCESSING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"
    EXPIRED = "EXPIRED"


class Transaction(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="transactions")
    # One transaction per quote, enforced by the database: a used quote can never be reused.
    quote = models.OneToOneField(Quote, on_delete=models.PROTECT, related_name="transaction")
    status = models.CharField(max_length=32, choices=TransactionStatus)
    correlation_id = models.CharField(max_length=200, blank=True)
    transfer_instructions = models.JSONField(null=True, blank=True)
    source_reference_id = models.CharField(max_length=200, blank=True)
    destination_reference_id = models.CharField(max_length=200, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    # When the next automatic step is due (PROCESSING -> COMPLETED or FAILED).
    due_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["status", "expires_at"], name="sbx_tx_expiry"),
            models.Index(fields=["status", "due_at"], name="sbx_tx_due"),
        ]

    def __str__(self):
        return f"transaction {self.id} ({self.status})"


class IdempotencyRecord(models.Model):
    """The first answer to POST /transactions with a key, replayed for a while (services/idempotency.py)."""

    api_key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    body = models.JSONField()
    created_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["api_key", "key"], name="sbx_idempotency_unique")]

    def __str__(self):
        return self.key


class AutomationRule(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="automation_rules")
    name = models.CharField(max_length=200)
    # transactionTemplate and trigger as the request gave them (currencies as strings).
    template = models.JSONField()
    trigger = models.JSONField()
    source_account_id = models.UUIDField(db_index=True)
    created_at = models.DateTimeField()
    # When the cron trigger fires next, and whether the threshold may fire (re-armed below it).
    next_run_at = models.DateTimeField(null=True, blank=True)
    threshold_armed = models.BooleanField(default=True)

    def __str__(self):
        return self.name


class WebhookEndpoint(models.Model):
    """An integrator's endpoint; its secret signs every delivery (Standard Webhooks)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    organization_id = models.UUIDField()
    url = models.URLField(max_length=2000)
    # Event kinds the endpoint asked for; sandbox extension kinds are sent only when listed.
    events = models.JSONField(default=list)
    secret = models.CharField(max_length=100)
    created_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["organization_id", "created_at", "id"], name="sbx_webhook_keyset")]

    def __str__(self):
        return self.url


# Kinds the spec names: sent to endpoints that list them or list nothing.
SPEC_EVENT_KINDS = ("customer.update",)
# Sandbox extensions: sent only to endpoints that list them.
EXTENSION_EVENT_KINDS = ("transaction.update", "payment_account.update")
EVENT_KINDS = SPEC_EVENT_KINDS + EXTENSION_EVENT_KINDS


class Event(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    organization_id = models.UUIDField()
    event_type = models.CharField(max_length=64)
    data = models.JSONField()
    created_at = models.DateTimeField()

    def __str__(self):
        return f"{self.event_type} {self.id}"


class DeliveryStatus(models.TextChoices):
    PENDING = "PENDING"
    SUCCEEDED = "SUCCEEDED"
    RETRYING = "RETRYING"
    FAILED = "FAILED"


class Delivery(models.Model):
    """One event to one endpoint: attempted until a 2xx, with backoff on the sandbox clock."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=16, choices=DeliveryStatus, default=DeliveryStatus.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="sbx_delivery_due"),
            models.Index(fields=["endpoint", "created_at", "id"], name="sbx_delivery_keyset"),
        ]

    def __str__(self):
        return f"{self.event_id} -> {self.endpoint_id} ({self.status})"
