"""Display of money held as Decimal with 18 places in the mirror."""

from decimal import Decimal, InvalidOperation

from django import template

from payments.models import PaymentAccountStatus, TransactionStatus

register = template.Library()
# Transactions' and payment accounts' statuses share their words (ACTIVE is "Active" on both).
_STATUS_LABELS = {**dict(PaymentAccountStatus.choices), **dict(TransactionStatus.choices)}


@register.filter
def amount(value, places: int = 2) -> str:
    """100.000000000000000000 → "100.00", 0.917240000 → "0.91724": no float, no exponent."""
    if value in (None, ""):
        return ""
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    text = format(number.normalize(), "f")
    whole, _, fraction = text.partition(".")
    return f"{whole}.{fraction.ljust(int(places), '0')}" if int(places) or fraction else whole


@register.filter
def rate(value) -> str:
    return amount(value, 0)


@register.filter
def status_label(value) -> str:
    """ "AWAITING_TRANSFER" → "Awaiting transfer"; a status the API adds later shows as it is."""
    return _STATUS_LABELS.get(value) or str(value or "").replace("_", " ").capitalize()


# The staff word for each payment method (rail) the API names; a new one reads in words too.
METHOD_LABELS = {
    "ACH": "ACH",
    "ACH_SAME_DAY": "Same-day ACH",
    "WIRE": "Wire",
    "SWIFT": "SWIFT",
    "SEPA": "SEPA",
    "POLYGON": "Polygon",
    "ETHEREUM": "Ethereum",
    "SOLANA": "Solana",
    "BASE": "Base",
}


@register.filter
def method_label(value) -> str:
    """ "ACH_SAME_DAY" → "Same-day ACH"."""
    value = str(value or "")
    return METHOD_LABELS.get(value) or value.replace("_", " ").capitalize()
