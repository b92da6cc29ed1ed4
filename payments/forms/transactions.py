"""Forms of the quote → execute → track workspace."""

from django import forms
from django.conf import settings
from django.urls import reverse

from core import labels
from core.forms import ApiErrorsMixin, textarea_field

from ..models import Quote, Transaction
from ..selectors import STUCK_RULE_LABELS, StuckRule, account_options
from ..templatetags.tx_display import amount
from ..terms import QuoteTerms
from .fields import AmountField

MAX_BULK_CANCEL = 100


def account_label(account) -> str:
    owner = " · third party" if account.is_third_party else ""
    held = " · held in the back-office" if account.is_held else ""
    return f"{account.display_name}{owner}{held}"


class QuoteForm(ApiErrorsMixin, forms.Form):
    """The quote builder. The choices follow the accounts: the selected source account fixes
    its methods and currencies, and the destinations are those of the other kind (fiat ↔
    crypto), so the form cannot offer a combination the API refuses."""

    # The API's paths of a VALIDATION_ERROR, onto the builder's fields (core.forms.ApiErrorsMixin).
    api_fields = {
        "source.sourceAmount": "amount",
        "source.sourceCurrency": "source_currency",
        "source.sourcePaymentMethod": "source_method",
        "source.sourcePaymentAccountId": "source_account",
        "destination.destinationPaymentAccountId": "destination_account",
        "destination.destinationPaymentMethod": "destination_method",
        "destination.destinationCurrency": "destination_currency",
        "developerFee.developerFeeAmount": "developer_fee",
        "developerFee": "developer_fee",
        "guaranteeQuote": "guarantee",
    }

    source_account = forms.ChoiceField(label="Source account")
    source_method = forms.ChoiceField(label="Source payment method")
    source_currency = forms.ChoiceField(label="Source currency")
    destination_account = forms.ChoiceField(label="Destination account")
    destination_method = forms.ChoiceField(label="Destination payment method")
    destination_currency = forms.ChoiceField(label="Destination currency")
    amount = AmountField(label="Source amount")
    developer_fee = AmountField(label="Developer fee (USD, optional)", positive=False, places=2, required=False)
    guarantee = forms.BooleanField(label="Guarantee the destination amount", required=False)
    correlation_id = forms.CharField(label="Correlation id (optional)", required=False, max_length=200)

    def __init__(self, *args, customer, sources, destinations, **kwargs):
        super().__init__(*args, **kwargs)
        self.customer = customer
        values = self.data if self.is_bound else self.initial
        self.sources = {a.account_id: a for a in sources}
        source = self.sources.get(values.get("source_account")) or next(iter(self.sources.values()), None)
        source_options = account_options(source) if source else None
        self.destinations = {
            a.account_id: a
            for a in destinations
            if source_options is None
            or (account_options(a).is_crypto != source_options.is_crypto and a.account_id != source.account_id)
        }
        destination = self.destinations.get(values.get("destination_account")) or next(
            iter(self.destinations.values()), None
        )
        destination_options = account_options(destination) if destination else None
        self.fields["source_account"].choices = [(a.account_id, account_label(a)) for a in self.sources.values()]
        self.fields["destination_account"].choices = [
            (a.account_id, account_label(a)) for a in self.destinations.values()
        ]
        for prefix, options in (("source", source_options), ("destination", destination_options)):
            self.fields[f"{prefix}_method"].choices = [
                (m, labels.label(labels.METHOD, m)) for m in (options.methods if options else [])
            ]
            self.fields[f"{prefix}_currency"].choices = [(c, c) for c in (options.currencies if options else [])]
        if not self.is_bound:
            # An unbound form shows the accounts actually used to compute the choices.
            self.initial.setdefault("source_account", source.account_id if source else None)
            if destination and self.initial.get("destination_account") not in self.destinations:
                self.initial["destination_account"] = destination.account_id
        # Changing an account recomputes the choices: the builder's form comes back (htmx).
        refresh = {
            "hx-get": reverse("payments-create-quote"),
            "hx-trigger": "change",
            "hx-target": "#quote-form",
            "hx-swap": "outerHTML",
            "hx-include": "#quote-form",
        }
        for name in ("source_account", "destination_account"):
            self.fields[name].widget.attrs.update(refresh)
        self.direction = ""
        if source_options is not None:
            self.direction = "Offramp (crypto → fiat)" if source_options.is_crypto else "Onramp (fiat → crypto)"

    def terms(self) -> QuoteTerms:
        """What the quote is asked for, from the cleaned fields."""
        data = self.cleaned_data
        return QuoteTerms(
            customer_id=self.customer.customer_id,
            source_account_id=data["source_account"],
            source_payment_method=data["source_method"],
            source_currency=data["source_currency"],
            source_amount=data["amount"],
            destination_account_id=data["destination_account"],
            destination_payment_method=data["destination_method"],
            destination_currency=data["destination_currency"],
            developer_fee=data.get("developer_fee"),
            guaranteed=bool(data.get("guarantee")),
        )


# API error paths (VALIDATION_ERROR details) → the builder's fields.


def quote_inputs(quote: Quote) -> dict:
    """The builder's fields from a stored quote: "new quote with the same inputs"."""
    inputs = {
        "customer": quote.customer.customer_id,
        "source_account": quote.source_account_id,
        "source_method": quote.source_payment_method,
        "source_currency": quote.source_currency,
        "destination_account": quote.destination_account_id,
        "destination_method": quote.destination_payment_method,
        "destination_currency": quote.destination_currency,
        "amount": amount(quote.source_amount),
    }
    if quote.developer_fee is not None:
        inputs["developer_fee"] = amount(quote.developer_fee)
    if quote.guaranteed:
        inputs["guarantee"] = "on"
    if quote.correlation_id:
        inputs["correlation_id"] = quote.correlation_id
    return inputs


class PreviewForm(forms.Form):
    """The fields GET /exchange-rates needs; incomplete input simply gives no preview."""

    source_method = forms.CharField()
    source_currency = forms.CharField()
    destination_method = forms.CharField()
    destination_currency = forms.CharField()
    amount = AmountField(positive=False, required=False)
    developer_fee = AmountField(positive=False, places=2, required=False)


class ExecuteForm(forms.Form):
    correlation_id = forms.CharField(
        label="Correlation id (optional)",
        required=False,
        max_length=200,
        help_text="Kept with the quote on the first execute: a retry sends the same one.",
    )


class CancelForm(forms.Form):
    reason = textarea_field("Reason (kept in the audit log)", max_length=500)


class BulkCancelForm(forms.Form):
    transactions = forms.ModelMultipleChoiceField(
        queryset=Transaction.objects.all(),
        to_field_name="transaction_id",
        label="Transactions",
        error_messages={
            "required": "select at least one transaction",
            "invalid_choice": "%(value)s is not a transaction of the back-office (reload the list)",
            "invalid_pk_value": "%(pk)s is not a transaction id",
        },
    )
    reason = textarea_field("Reason (kept in the audit log)", max_length=500)

    def clean_transactions(self):
        chosen = self.cleaned_data["transactions"]
        if len(chosen) > MAX_BULK_CANCEL:
            raise forms.ValidationError(f"Cancel at most {MAX_BULK_CANCEL} transactions at once.")
        return chosen


class StuckForm(forms.Form):
    rule = forms.ChoiceField(label="Rule", choices=list(STUCK_RULE_LABELS.items()), required=False)
    processing_hours = forms.IntegerField(label="Processing longer than (hours)", min_value=1, required=False)
    created_minutes = forms.IntegerField(label="Created longer than (minutes)", min_value=1, required=False)

    def rule_values(self) -> dict:
        data = self.cleaned_data if self.is_valid() else {}
        return {
            "rule": data.get("rule") or StuckRule.AWAITING_EXPIRED,
            "processing_hours": data.get("processing_hours") or settings.STUCK_PROCESSING_HOURS,
            "created_minutes": data.get("created_minutes") or settings.STUCK_CREATED_MINUTES,
        }
