"""A quote's terms in typed fields, and the one place that writes them in the API's words
(the camelCase body of POST /quotes). Everything else reads the typed fields of Quote."""

from dataclasses import asdict, dataclass, fields
from decimal import Decimal


def amount_text(amount: Decimal) -> str:
    """An amount as the API's decimal string: "0.000000001", never "1E-9"."""
    return format(amount, "f")


@dataclass(frozen=True)
class QuoteTerms:
    """What a quote is asked for: from which account and rail, to which, how much."""

    customer_id: str
    source_account_id: str
    source_payment_method: str
    source_currency: str
    source_amount: Decimal
    destination_account_id: str
    destination_payment_method: str
    destination_currency: str
    developer_fee: Decimal | None = None
    guaranteed: bool = False

    def api_body(self) -> dict:
        """The POST /quotes body, JSON-ready; money as decimal strings."""
        body = {
            "customerId": self.customer_id,
            "source": {
                "sourceCurrency": self.source_currency,
                "sourcePaymentMethod": self.source_payment_method,
                "sourceAmount": amount_text(self.source_amount),
                "sourcePaymentAccountId": self.source_account_id,
            },
            "destination": {
                "destinationPaymentAccountId": self.destination_account_id,
                "destinationPaymentMethod": self.destination_payment_method,
                "destinationCurrency": self.destination_currency,
            },
        }
        if self.developer_fee is not None:
            body["developerFee"] = {"developerFeeType": "USD", "developerFeeAmount": amount_text(self.developer_fee)}
        if self.guaranteed:
            body["guaranteeQuote"] = True
        return body

    def quote_fields(self) -> dict:
        """The Quote model's fields of these terms (the customer is the quote's own link)."""
        return {name: value for name, value in asdict(self).items() if name in QUOTE_TERM_FIELDS}


# The terms a Quote keeps in columns of the same names.
QUOTE_TERM_FIELDS = tuple(f.name for f in fields(QuoteTerms) if f.name != "customer_id")
