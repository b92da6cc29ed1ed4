"""Four-eyes: what a request asks, and where it stands."""

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone
from django.utils.functional import cached_property

from ..terms import RuleTerms
from .accounts import MONEY, PaymentAccount
from .quotes import Quote
from .rules import AutomationRule


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
