"""client.exchange_rates: get."""

from decimal import Decimal

from .._base_client import parse_model
from ..types import ExchangeRate
from ._resource import Resource


class ExchangeRates(Resource):
    def get(
        self,
        *,
        source_currency: str,
        source_payment_method: str,
        destination_payment_method: str,
        destination_currency: str,
        source_amount: Decimal | None = None,
    ) -> ExchangeRate:
        """With `source_amount`, the answer also carries fees and the destination amount."""
        params = {
            "sourceCurrency": source_currency,
            "sourcePaymentMethod": source_payment_method,
            "sourceAmount": source_amount,
            "destinationPaymentMethod": destination_payment_method,
            "destinationCurrency": destination_currency,
        }
        return parse_model(ExchangeRate, self._request("GET", "/exchange-rates", params=params))
