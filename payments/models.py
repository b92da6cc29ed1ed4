"""The mirror of payment accounts, quotes, transactions and automation rules."""

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone
from django.utils.functional import cached_property

from core import labels
from upstream.mirrored import MirroredModel, Source, StatusChange

from .terms import QUOTE_TERM_FIELDS, QuoteTerms, RuleTerms

MONEY = {"max_digits": 38, "decimal_places": 18}


class PaymentAccountStatus(models.TextChoices):
    PENDING = "PENDING", "Pending"
    ACTIVE = "ACTIVE", "Active"
    DEACTIVATED = "DEACTIVATED", "Deactivated"


ACCOUNT_TYPE_LABELS = {
    "EXTERNAL_BANK_ACCOUNT": "External bank account",
    "EXTERNAL_CRYPTO_WALLET": "External crypto wallet",
    "SERVICE_CRYPTO_WALLET": "Service crypto wallet",
    "SERVICE_AUTO_FIAT_ACCOUNT": "Service auto-fiat account",
    "SERVICE_FIAT_ACCOUNT": "Service fiat account",
}
# A customer in one of these statuses gets no new payment account (the API refuses them).
NO_NEW_ACCOUNT_STATUSES = ("REJECTED", "DEACTIVATED")


def _label(currency) -> str:
    """A currency object's label; a plain string (as in requests) as it is."""
    return currency.get("label", "") if isinstance(currency, dict) else str(currency or "")


class PaymentAccount(MirroredModel):
    """A pending bank account has no upstream id yet: it is found by its form link until the
    hosted form completes, then the row takes the new id."""

    account_id = models.CharField(max_length=64, unique=True, null=True, blank=True)
    form_link = models.URLField(max_length=1000, unique=True, null=True, blank=True)
    customer = models.ForeignKey(
        "customers.Customer", null=True, blank=True, on_delete=models.SET_NULL, related_name="payment_accounts"
    )
    customer_upstream_id = models.CharField(max_length=64)
    account_type = models.CharField(max_length=40)
    status = models.CharField(max_length=20)
    nickname = models.CharField(max_length=200, blank=True)
    is_third_party = models.BooleanField(default=False)
    # The type-specific object (externalBankAccount, ...) as the API returned it.
    details = models.JSONField(default=dict, blank=True)
    created_upstream_at = models.DateTimeField(null=True, blank=True)
    first_seen_at = models.DateTimeField(auto_now_add=True)
    # The back-office's own hold (payments.services.holds): while held_at is set, no quote or
    # execute from this back-office moves money from or to the account. The API cannot
    # deactivate an account; these fields are the back-office's alone, never written by the
    # upserts (syncs, webhooks), and set or cleared only by an approved hold or release.
    held_at = models.DateTimeField(null=True, blank=True)
    held_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    hold_reason = models.TextField(blank=True)
    # The approved request that set the hold: its maker, and where it was asked from (an alert).
    hold_approval = models.ForeignKey(
        "ApprovalRequest", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        indexes = [
            models.Index(fields=["-first_seen_at", "-id"], name="account_keyset"),
            models.Index(fields=["account_type", "-first_seen_at", "-id"], name="account_type_keyset"),
            models.Index(fields=["status", "-first_seen_at", "-id"], name="account_status_keyset"),
            models.Index(fields=["customer", "-first_seen_at", "-id"], name="account_customer_keyset"),
        ]

    def __str__(self):
        return f"{self.nickname or self.account_type} ({self.account_id or 'pending'})"

    @property
    def is_held(self) -> bool:
        return self.held_at is not None

    @property
    def hold_origin(self) -> dict | None:
        """Where the hold was asked from ({"url", "text", "permission"}: a screening alert), as
        its request recorded it; None when asked from the account's own page."""
        return self.hold_approval.payload.get("origin") if self.hold_approval_id else None

    # Display values for the lists: computed here rather than with an include per row, which
    # cost the 50-row list more than its query.
    @property
    def type_label(self) -> str:
        return ACCOUNT_TYPE_LABELS.get(self.account_type, self.account_type)

    @property
    def last_digits(self) -> str:
        """ "…6789" from a bank account's mask or a wallet's address; "" when there is none."""
        details = self.details if isinstance(self.details, dict) else {}
        mask = str(details.get("bankAccountMask") or "")
        address = details.get("address")
        address = str(address.get("address") or "") if isinstance(address, dict) else ""
        tail = "".join(c for c in mask if c.isalnum())[-4:] or address[-4:]
        return f"…{tail}" if tail else ""

    @property
    def display_name(self) -> str:
        """How every page names the account: "Payroll · External bank account · USD · ACH · …6789"."""
        summary = self.currency_summary
        parts = [self.nickname, self.type_label, "" if summary == "—" else summary, self.last_digits]
        return " · ".join(p for p in parts if p)

    @property
    def currency_summary(self) -> str:
        """ "USD · ACH" for a bank account, "USDC on Base" for a wallet, "EUR → USDC, EURC" for
        an auto-fiat account; "—" when the API gave nothing to show. Rails and chains in staff
        words (payments.rails)."""
        details = self.details if isinstance(self.details, dict) else {}
        if details.get("bankAccountCurrency"):
            method = details.get("bankAccountPaymentMethod")
            return _label(details["bankAccountCurrency"]) + (
                f" · {labels.label(labels.METHOD, method)}" if method else ""
            )
        if details.get("address"):
            address = details["address"]
            chain = labels.label(labels.METHOD, address.get("chain", "")) if isinstance(address, dict) else ""
            currency = _label(details.get("currency"))
            return f"{currency} on {chain}" if currency else chain
        if details.get("currency"):
            targets = ", ".join(_label(c) for c in details.get("supportedDestinationCurrencies") or [])
            return _label(details["currency"]) + (f" → {targets}" if targets else "")
        return "—"


class Quote(models.Model):
    """A quote a staff member asked for. Executing it sends its idempotency key, so that a
    double click or two staff executing it give one transaction."""

    quote_id = models.CharField(max_length=64, unique=True)
    idempotency_key = models.UUIDField(unique=True)
    customer = models.ForeignKey("customers.Customer", on_delete=models.PROTECT, related_name="quotes")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    # The POST /quotes body as it was sent, in the API's words: a quote asked again (an approved
    # execute whose quote expired) sends it word for word. Code reads the typed terms below.
    request = models.JSONField()
    # The terms (payments.terms.QuoteTerms), written when the quote is made.
    source_account_id = models.CharField(max_length=64)
    source_payment_method = models.CharField(max_length=40)
    source_currency = models.CharField(max_length=64)
    source_amount = models.DecimalField(**MONEY)
    destination_account_id = models.CharField(max_length=64)
    destination_payment_method = models.CharField(max_length=40)
    destination_currency = models.CharField(max_length=64)
    developer_fee = models.DecimalField(**MONEY, null=True, blank=True)
    guaranteed = models.BooleanField(default=False)
    # The execute's correlation id: None until the first execute (or the quote's maker) fixes
    # it, so that every retry and a colleague's execute send the same body under the same key.
    correlation_id = models.CharField(max_length=200, null=True, blank=True)
    exchange_rate = models.DecimalField(**MONEY)
    destination_amount = models.DecimalField(**MONEY)
    fees = models.JSONField(default=dict)
    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            # The open quotes, soonest to expire first (payments.views.open_quotes): the ones not
            # expired yet are a range of it, not a read of every quote ever made.
            models.Index(fields=["expires_at", "id"], name="quote_expiry_keyset"),
        ]

    def __str__(self):
        return f"quote {self.quote_id}"

    @property
    def terms(self) -> QuoteTerms:
        return QuoteTerms(customer_id=self.customer.customer_id, **{f: getattr(self, f) for f in QUOTE_TERM_FIELDS})

    @property
    def correlation_bound(self) -> bool:
        return self.correlation_id is not None


class TransactionStatus(models.TextChoices):
    CREATED = "CREATED", "Created"
    AWAITING_TRANSFER = "AWAITING_TRANSFER", "Awaiting transfer"
    PROCESSING = "PROCESSING", "Processing"
    COMPLETED = "COMPLETED", "Completed"
    FAILED = "FAILED", "Failed"
    CANCELLED = "CANCELLED", "Cancelled"
    EXPIRED = "EXPIRED", "Expired"


# Transactions' and payment accounts' statuses share their words (ACTIVE is "Active" on both).
STATUS_LABELS = {**dict(PaymentAccountStatus.choices), **dict(TransactionStatus.choices)}


TERMINAL_TRANSACTION_STATUSES = {"COMPLETED", "FAILED", "CANCELLED", "EXPIRED"}


class Transaction(MirroredModel):
    transaction_id = models.CharField(max_length=64, unique=True)
    quote_id = models.CharField(max_length=64, blank=True)
    # No index of its own: tx_customer_keyset leads with it. A plain one let the planner fetch
    # all of a large customer's rows by it and sort them, where the keyset index stops at a page.
    customer = models.ForeignKey(
        "customers.Customer",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="transactions",
        db_index=False,
    )
    customer_upstream_id = models.CharField(max_length=64)
    status = models.CharField(max_length=40)
    status_since = models.DateTimeField()
    source_account_id = models.CharField(max_length=64, blank=True)
    source_payment_method = models.CharField(max_length=40, blank=True)
    source_currency = models.CharField(max_length=64, blank=True)
    source_amount = models.DecimalField(**MONEY, null=True, blank=True)
    source_reference_id = models.CharField(max_length=200, blank=True)
    destination_account_id = models.CharField(max_length=64, blank=True)
    destination_payment_method = models.CharField(max_length=40, blank=True)
    destination_currency = models.CharField(max_length=64, blank=True)
    destination_amount = models.DecimalField(**MONEY, null=True, blank=True)
    destination_reference_id = models.CharField(max_length=200, blank=True)
    exchange_rate = models.DecimalField(**MONEY, null=True, blank=True)
    fees = models.JSONField(default=dict, blank=True)
    correlation_id = models.CharField(max_length=200, blank=True)
    transfer_instructions = models.JSONField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    created_upstream_at = models.DateTimeField()
    # What it moves in US dollars (payments/usd.py), set by the upsert: monitoring's figure.
    usd_value = models.DecimalField(max_digits=30, decimal_places=2, null=True, blank=True)
    # When an upsert last changed the row and the monitoring rules have not seen it since: set in
    # the upsert's own UPDATE (no statement, no broker message of its own in the webhook drain),
    # cleared by monitoring's worker once it has evaluated that very change.
    evaluation_due_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["-created_upstream_at", "-id"], name="tx_keyset"),
            # The changes monitoring has not evaluated yet: none at rest, a few during a flood.
            models.Index(
                fields=["evaluation_due_at"],
                condition=models.Q(evaluation_due_at__isnull=False),
                name="tx_evaluation_due",
            ),
            # Monitoring: a customer's transactions in time order with what its rules read, from
            # the index alone (PostgreSQL): the live rules' range scans, and the backtests'
            # windows over ranges of customers with neither a sort nor a read of the table.
            models.Index(
                fields=["customer", "created_upstream_at"],
                include=[
                    "usd_value",
                    "status",
                    "source_payment_method",
                    "destination_payment_method",
                    "transaction_id",
                ],
                name="tx_customer_monitoring",
            ),
            models.Index(fields=["status", "-created_upstream_at", "-id"], name="tx_status_keyset"),
            models.Index(fields=["customer", "-created_upstream_at", "-id"], name="tx_customer_keyset"),
            # A customer's open transfers (an alert's page offers to cancel them): the few rows
            # still open, not every transfer of a customer who made many.
            models.Index(
                fields=["customer", "-created_upstream_at", "-id"],
                condition=models.Q(status__in=["CREATED", "AWAITING_TRANSFER"]),
                name="tx_customer_open",
            ),
            # A customer's transactions of one status (the customer page's and the list's filters):
            # a status the customer rarely has is a short range, not a walk of all its rows.
            models.Index(
                fields=["customer", "status", "-created_upstream_at", "-id"], name="tx_customer_status_keyset"
            ),
            # The rail and currency filters: rare or absent values must not walk the keyset index.
            models.Index(fields=["source_payment_method", "-created_upstream_at", "-id"], name="tx_rail_keyset"),
            models.Index(fields=["source_currency", "-created_upstream_at", "-id"], name="tx_currency_keyset"),
            # "Expires within": the few rows in the window, then sorted (no status to lead with).
            models.Index(fields=["expires_at"], name="tx_expiry_window", condition=models.Q(expires_at__isnull=False)),
            models.Index(fields=["correlation_id"], name="tx_correlation"),
            # A quote's page and the open quotes find a quote's transaction by its id.
            models.Index(fields=["quote_id"], name="tx_quote"),
            # The stuck view pages these by keyset: the id breaks ties between equal times.
            models.Index(fields=["status", "expires_at", "id"], name="tx_status_expiry"),
            models.Index(fields=["status", "status_since", "id"], name="tx_status_age"),
            # The stuck view's live version: the newest change of any transaction, one probe.
            models.Index(fields=["upstream_updated_at"], name="tx_upstream_updated"),
        ]

    def __str__(self):
        return f"transaction {self.transaction_id} ({self.status})"


class TransactionStatusChange(StatusChange):
    transaction = models.ForeignKey(Transaction, on_delete=models.CASCADE, related_name="status_changes")

    class Meta:
        indexes = [models.Index(fields=["transaction", "-changed_at"], name="tx_history")]


class AutomationRule(MirroredModel):
    rule_id = models.CharField(max_length=64, unique=True)
    customer = models.ForeignKey(
        "customers.Customer", null=True, blank=True, on_delete=models.SET_NULL, related_name="automation_rules"
    )
    customer_upstream_id = models.CharField(max_length=64)
    name = models.CharField(max_length=200)
    source_account_id = models.CharField(max_length=64, blank=True, db_index=True)
    transaction_template = models.JSONField(default=dict)
    trigger = models.JSONField(default=dict)
    created_upstream_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return self.name

    @cached_property
    def terms(self) -> RuleTerms:
        """What the rule does, in typed fields (the API's camelCase stays in the JSON columns)."""
        return RuleTerms.from_api(self.transaction_template, self.trigger)


class AutomationRuleChange(models.Model):
    """One change of a rule seen by the mirror: its creation, an edit of its name, template or
    trigger, or its disappearance upstream; the values before and after, and who saw it."""

    rule = models.ForeignKey(AutomationRule, on_delete=models.CASCADE, related_name="changes")
    # The fields that changed ("created" and "vanished" name the two ends of a rule's life).
    fields = models.JSONField(default=list)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    seen_by = models.CharField(max_length=16, choices=Source)
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["rule", "-recorded_at"], name="rule_history")]

    def __str__(self):
        return f"{self.rule_id}: {', '.join(self.fields)}"

    @property
    def terms_before(self) -> RuleTerms:
        return RuleTerms.from_api(self.before.get("transaction_template"), self.before.get("trigger"))

    @property
    def terms_after(self) -> RuleTerms:
        return RuleTerms.from_api(self.after.get("transaction_template"), self.after.get("trigger"))


class ApprovalKind(models.TextChoices):
    EXECUTE_QUOTE = "execute_quote", "Execute a quote"
    CREATE_RULE = "create_rule", "Create an automation rule"
    CHANGE_RULE = "change_rule", "Change an automation rule"
    # Kinds an app above payments approves through the same four-eyes: its write is registered
    # with payments.services.approval_writes.register_write, its words are in the payload.
    MONITORING_RULE = "monitoring_rule", "Make a monitoring rule live"
    # The back-office's own hold of a payment account (payments.services.holds): the API has no
    # way to deactivate one. Written by payments' own registered writes.
    ACCOUNT_HOLD = "account_hold", "Hold a payment account"
    ACCOUNT_RELEASE = "account_release", "Release a held payment account"


class ApprovalStatus(models.TextChoices):
    PENDING = "pending", "Waiting for approval"
    # Approved, and the write upstream is under way (or its answer was lost: the checker retries).
    APPROVED = "approved", "Approved"
    EXECUTED = "executed", "Approved and executed"
    REJECTED = "rejected", "Rejected"
    WITHDRAWN = "withdrawn", "Withdrawn"
    EXPIRED = "expired", "Expired"
    RETURNED = "returned", "Returned to the maker"
    FAILED = "failed", "Refused by the Payments API"


class ApprovalRequest(models.Model):
    """What a maker asked for that a checker (another staff member) must approve before it
    reaches the API. The payload holds the inputs with amounts as decimal strings; the
    idempotency key goes with the write made on approval, however many times it is tried."""

    kind = models.CharField(max_length=20, choices=ApprovalKind)
    status = models.CharField(max_length=12, choices=ApprovalStatus, default=ApprovalStatus.PENDING)
    # What it does, in words, written once when asked: the list shows it without more queries.
    summary = models.CharField(max_length=300)
    payload = models.JSONField(encoder=DjangoJSONEncoder)
    maker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    checker = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.TextField(blank=True)
    # The checker's note on approving (the reject's words are its reason).
    note = models.TextField(blank=True)
    idempotency_key = models.UUIDField(unique=True)
    quote = models.ForeignKey(Quote, null=True, blank=True, on_delete=models.PROTECT, related_name="approvals")
    rule = models.ForeignKey(AutomationRule, null=True, blank=True, on_delete=models.SET_NULL, related_name="approvals")
    # The payment account a hold or release is about.
    account = models.ForeignKey(
        PaymentAccount, null=True, blank=True, on_delete=models.SET_NULL, related_name="approvals"
    )
    # The figures the checker approved, and those of the re-quote when the price was checked again.
    approved_destination_amount = models.DecimalField(**MONEY, null=True, blank=True)
    requoted_destination_amount = models.DecimalField(**MONEY, null=True, blank=True)
    # The quote the approved execute uses (the maker's, or the re-quote): fixed before the call,
    # so that a retry sends the same body under the same key.
    executed_quote_id = models.CharField(max_length=64, blank=True)
    transaction_id = models.CharField(max_length=64, blank=True)
    rule_upstream_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["status", "-created_at", "-id"], name="approval_status_keyset"),
            models.Index(fields=["transaction_id"], name="approval_transaction"),
        ]

    def __str__(self):
        return f"approval {self.pk} ({self.kind}, {self.status})"

    @cached_property
    def rule_terms(self) -> RuleTerms | None:
        """The rule asked for, in typed fields (a rule's creation or change; None for a quote)."""
        if self.kind == ApprovalKind.EXECUTE_QUOTE:
            return None
        return RuleTerms.from_api(self.payload.get("template"), self.payload.get("trigger"))

    @property
    def is_open(self) -> bool:
        """Still waiting for a checker: pending and not yet past its expiry (lazy on read)."""
        return self.status == ApprovalStatus.PENDING and self.expires_at > timezone.now()

    @property
    def status_shown(self) -> str:
        """The status as of now: a pending request past its expiry reads as expired."""
        if self.status == ApprovalStatus.PENDING and not self.is_open:
            return ApprovalStatus.EXPIRED
        return self.status

    @property
    def status_label(self) -> str:
        return ApprovalStatus(self.status_shown).label
