"""client.quotes: create."""

from collections.abc import Mapping
from typing import Any

from .._base_client import parse_model
from ..types import DeveloperFee, Quote, QuoteDestination, QuoteSource
from ._resource import Resource


class Quotes(Resource):
    def create(
        self,
        *,
        customer_id: str,
        source: QuoteSource | Mapping[str, Any],
        destination: QuoteDestination | Mapping[str, Any],
        developer_fee: DeveloperFee | Mapping[str, Any] | None = None,
        guarantee_quote: bool | None = None,
    ) -> Quote:
        body = {
            "customerId": customer_id,
            "source": source,
            "destination": destination,
            "developerFee": developer_fee,
            "guaranteeQuote": guarantee_quote,
        }
        return parse_model(Quote, self._request("POST", "/quotes", body=body))
