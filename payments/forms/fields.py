"""What the payments forms share: exact amounts, the positive check, the customer picker."""

from decimal import Decimal

from django import forms
from django.template.loader import render_to_string

from customers.models import Customer

# Amounts as text: a number input's step and locale rules get in the way of exact decimals.
AMOUNT = forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"})


def _positive(value: Decimal):
    if value is not None and value <= 0:
        raise forms.ValidationError("Must be greater than 0.")


def positive(value: Decimal):
    if value is not None and value <= 0:
        raise forms.ValidationError("Must be greater than 0.")


class CustomerPicker(forms.HiddenInput):
    """A customer chosen by a type-ahead search on name, e-mail or id (the quote builder's
    search, payments.selectors.customers_search); the field's value stays the customer's id.
    The chosen customer shows by name, with a way to choose another."""

    def render(self, name, value, attrs=None, renderer=None):
        value = (value or "").strip() if isinstance(value, str) else ""
        customer = (
            Customer.objects.filter(customer_id=value).only("customer_id", "name", "email").first() if value else None
        )
        attrs = self.build_attrs(self.attrs, attrs)
        return render_to_string(
            "payments/_customer_picker.html",
            {"name": name, "value": value, "customer": customer, "id": attrs.get("id", f"id_{name}")},
        )
