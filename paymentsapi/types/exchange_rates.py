"""Exchange rates: the rate of a rail or chain pair, with fees when an amount is given."""

from decimal import Decimal

from pydantic import Field

from ._base import ApiModel
from .shared import FeeComponent, Fees


class ExchangeRate(ApiModel):
    exchange_rate: Decimal
    fee_components: list[FeeComponent] = Field(default_factory=list)
    # Present when the query gave a source amount.
    destination_amount: Decimal | None = None
    fees: Fees | None = None
