"""Transactions as the mirror keeps them, and their status history."""

from django.db import models

from upstream.mirrored import MirroredModel, StatusChange

from .accounts import MONEY, PaymentAccountStatus


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
