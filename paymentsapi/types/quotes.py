"""Quotes: the request's source and destination, and the priced answer."""

from datetime import datetime
from decimal import Decimal

from ._base import ApiModel
from .shared import Fees


class QuoteSource(ApiModel):
    source_currency: str
    source_payment_method: str
    source_amount: Decimal
    source_payment_account_id: str


class QuoteDestination(ApiModel):
    destination_payment_account_id: str
    destination_payment_method: str
    destination_currency: str


class Quote(ApiModel):
    quote_id: str
    expires_at: datetime
    estimated_exchange_rate: Decimal
    destination_amount: Decimal
    fees: Fees | None = None
