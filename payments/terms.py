"""A quote's terms in typed fields, and the one place that writes them in the API's words
(the camelCase body of POST /quotes). Everything else reads the typed fields of Quote.

An automation rule's terms in typed fields too (`RuleTerms`), read once from the API's
camelCase template and trigger that the mirror and an approval request keep as they are."""

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


def currency_label(value) -> str:
    """A currency as staff read it: the API answers an object (its label, or a token's
    contract), as JSON or as the client's typed `Currency`; a request names it by its code."""
    if isinstance(value, dict):
        return value.get("label") or value.get("contractAddress") or ""
    if value is None or isinstance(value, str):
        return value or ""
    return value.label or value.contract_address or ""


def _decimal(value) -> Decimal | None:
    return None if value in (None, "") else Decimal(str(value))


@dataclass(frozen=True)
class RuleTerms:
    """What an automation rule does: from which account and rail, to which, how much, when."""

    source_account_id: str = ""
    source_payment_method: str = ""
    source_currency: str = ""
    destination_account_id: str = ""
    destination_payment_method: str = ""
    destination_currency: str = ""
    amount: Decimal | None = None
    developer_fee: Decimal | None = None
    cron_schedule: str = ""
    threshold_amount: Decimal | None = None

    @classmethod
    def from_api(cls, template: dict | None, trigger: dict | None) -> "RuleTerms":
        """The terms of the API's transactionTemplate and trigger (a rule's, or a request's)."""
        template, trigger = template or {}, trigger or {}
        source, destination = template.get("source") or {}, template.get("destination") or {}
        return cls(
            source_account_id=source.get("sourcePaymentAccountId") or "",
            source_payment_method=source.get("sourcePaymentMethod") or "",
            source_currency=currency_label(source.get("sourceCurrency")),
            destination_account_id=destination.get("destinationPaymentAccountId") or "",
            destination_payment_method=destination.get("destinationPaymentMethod") or "",
            destination_currency=currency_label(destination.get("destinationCurrency")),
            amount=_decimal((template.get("amount") or {}).get("value")),
            developer_fee=_decimal((template.get("developerFee") or {}).get("developerFeeAmount")),
            cron_schedule=trigger.get("cronSchedule") or "",
            threshold_amount=_decimal(trigger.get("thresholdAmount")),
        )
