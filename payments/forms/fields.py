"""What the payments forms share: the one reading of an amount a person typed, the customer
picker, and fieldsets.

Every money field of the back-office is an AmountField: the text is read exactly as the
Payments API reads a decimal string (digits and an optional fraction, no sign, no exponent),
within the bounds of the mirror's money columns (numeric(38, 18): 20 digits before the point,
18 after), so that whatever is typed ends as a message on its field, never as an error of
the API's or a server error. Amounts go to the API as plain decimal text (`amount_text`).
"""

import re
from decimal import Decimal

from django import forms
from django.template.loader import render_to_string

from customers.models import Customer

from ..terms import amount_text

MAX_WHOLE_DIGITS = 20
MAX_PLACES = 18
_DECIMAL = re.compile(r"([0-9]+)(?:\.([0-9]*))?|\.([0-9]+)")

# Amounts as text: a number input's step and locale rules get in the way of exact decimals.
AMOUNT = forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"})


def parse_amount(text: str, *, positive: bool = True, places: int = MAX_PLACES) -> Decimal:
    """`text` as a Decimal, or a ValidationError that says what to type instead."""
    match = _DECIMAL.fullmatch(text)
    if match is None:
        raise forms.ValidationError(
            "Type digits and an optional decimal point, such as 10.50 (no sign, exponent or spaces).",
            code="invalid",
        )
    whole = match.group(1) or ""
    fraction = match.group(2) if match.group(1) is not None else match.group(3)
    fraction = fraction or ""
    if len(whole.lstrip("0")) > MAX_WHOLE_DIGITS:
        raise forms.ValidationError(f"Too large: at most {MAX_WHOLE_DIGITS} digits before the point.", code="max")
    if len(fraction.rstrip("0")) > places:
        raise forms.ValidationError(f"At most {places} decimal places.", code="places")
    if len(fraction) > places:
        fraction = fraction.rstrip("0")  # "1.000...0" beyond the places is still 1
    amount = Decimal(f"{whole or '0'}.{fraction}" if fraction else whole or "0")
    if positive and amount <= 0:
        raise forms.ValidationError("Must be greater than 0.", code="min")
    return amount


class AmountField(forms.CharField):
    """A money field: the typed text as a Decimal (None when left blank), read by parse_amount.
    `positive=False` also takes 0; `places` is the most decimal places the field takes."""

    widget = AMOUNT

    def __init__(self, *, positive: bool = True, places: int = MAX_PLACES, **kwargs):
        self.positive, self.places = positive, places
        kwargs.setdefault("max_length", 64)
        super().__init__(**kwargs)

    def to_python(self, value):
        text = super().to_python(value).strip()
        if not text:
            return None
        return parse_amount(text, positive=self.positive, places=self.places)

    def run_validators(self, value):
        # The text's length was checked by parse_amount's bounds; a Decimal has no length.
        return None

    def clean(self, value):
        if isinstance(value, str) and len(value) > 64:
            raise forms.ValidationError("Too long for an amount.", code="max_length")
        return super().clean(value)

    def prepare_value(self, value):
        return amount_text(value) if isinstance(value, Decimal) else value


class CustomerPicker(forms.HiddenInput):
    """A customer chosen by a type-ahead search on name, e-mail or id (the quote builder's
    search, customers.selectors.customers_search); the field's value stays the customer's id.
    The chosen customer shows by name, with a way to choose another. A form that has read the
    customer already (to check it) gives it to the widget: `widget.customer = customer`."""

    customer: Customer | None = None

    def render(self, name, value, attrs=None, renderer=None):
        value = (value or "").strip() if isinstance(value, str) else ""
        if "\x00" in value:  # not an id, and no database column takes it
            value = ""
        if self.customer is not None and self.customer.customer_id == value:
            customer = self.customer
        else:
            customer = (
                Customer.objects.filter(customer_id=value).only("customer_id", "name", "email").first()
                if value
                else None
            )
        attrs = self.build_attrs(self.attrs, attrs)
        return render_to_string(
            "payments/_customer_picker.html",
            {"name": name, "value": value, "customer": customer, "id": attrs.get("id", f"id_{name}")},
        )


class FieldsetsMixin:
    """A form drawn in fieldsets (payments/_fieldsets.html): FIELDSETS maps each legend to the
    names of its fields, in order."""

    FIELDSETS: dict[str, tuple[str, ...]] = {}

    def fieldsets(self) -> list[tuple[str, list]]:
        return [(legend, [self[name] for name in names]) for legend, names in self.FIELDSETS.items()]
