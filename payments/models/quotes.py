"""Quotes asked through the back-office, with the terms they were asked on."""

from django.conf import settings
from django.db import models

from ..terms import QUOTE_TERM_FIELDS, QuoteTerms
from .accounts import MONEY


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
