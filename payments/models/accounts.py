"""Payment accounts (bank accounts, crypto wallets) as the mirror keeps them, with the back-office's own hold."""

from django.conf import settings
from django.db import models

from core import labels
from upstream.mirrored import MirroredModel

from ..terms import currency_label

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
            return currency_label(details["bankAccountCurrency"]) + (
                f" · {labels.label(labels.METHOD, method)}" if method else ""
            )
        if details.get("address"):
            address = details["address"]
            chain = labels.label(labels.METHOD, address.get("chain", "")) if isinstance(address, dict) else ""
            currency = currency_label(details.get("currency"))
            return f"{currency} on {chain}" if currency else chain
        if details.get("currency"):
            targets = ", ".join(currency_label(c) for c in details.get("supportedDestinationCurrencies") or [])
            return currency_label(details["currency"]) + (f" → {targets}" if targets else "")
        return "—"
