"""The exchange-rate calculator's form."""

from django import forms

from core.forms import ApiErrorsMixin

from ..rails import PAYMENT_METHOD_CHOICES, rail_currency
from .fields import AmountField, FieldsetsMixin


def _currency_field(label: str) -> forms.CharField:
    """A currency by its label, suggested from the page's list; blank for the rail's own."""
    return forms.CharField(
        label=label,
        max_length=64,
        required=False,
        help_text="Blank: the rail's own currency.",
        widget=forms.TextInput(attrs={"list": "currency-labels"}),
    )


class ExchangeRateForm(FieldsetsMixin, ApiErrorsMixin, forms.Form):
    FIELDSETS = {
        "From": ("source_payment_method", "source_currency", "source_amount"),
        "To": ("destination_payment_method", "destination_currency"),
    }

    source_payment_method = forms.ChoiceField(label="From (rail or chain)", choices=PAYMENT_METHOD_CHOICES)
    source_currency = _currency_field("Source currency")
    destination_payment_method = forms.ChoiceField(label="To (rail or chain)", choices=PAYMENT_METHOD_CHOICES)
    destination_currency = _currency_field("Destination currency")
    source_amount = AmountField(label="Amount (optional)", required=False)

    def clean(self):
        data = super().clean()
        for side in ("source", "destination"):
            method = data.get(f"{side}_payment_method")
            currency = (data.get(f"{side}_currency") or "").strip()
            if method and not currency:
                currency = rail_currency(method) or ""
                if not currency:
                    self.add_error(f"{side}_currency", "Name the token for a chain (USDC, ETH, ...).")
            data[f"{side}_currency"] = currency
        return data
