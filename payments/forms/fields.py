"""What the payments forms share: exact amounts and the positive check."""

from decimal import Decimal

from django import forms

# Amounts as text: a number input's step and locale rules get in the way of exact decimals.
AMOUNT = forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"})


def _positive(value: Decimal):
    if value is not None and value <= 0:
        raise forms.ValidationError("Must be greater than 0.")


def positive(value: Decimal):
    if value is not None and value <= 0:
        raise forms.ValidationError("Must be greater than 0.")
