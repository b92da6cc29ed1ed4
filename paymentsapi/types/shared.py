"""Parts that several resources share: currencies, fees, the developer fee, a page of a list."""

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Generic, TypeVar

from pydantic import Field

from ._base import ApiModel, OpenEnum

T = TypeVar("T")


class FeeType(OpenEnum):
    FLAT = "FLAT"


class DeveloperFeeType(OpenEnum):
    USD = "USD"


class Currency(ApiModel):
    """Fiat currencies carry `label` only; crypto adds chain, contract address and decimals."""

    label: str | None = None
    chain: str | None = None
    contract_address: str | None = None
    # The balance response shows it as a string; pydantic reads "6" as 6.
    currency_decimals: int | None = None


class FeeAmount(ApiModel):
    fee_amount: Decimal | None = None
    fee_usd_amount: Decimal | None = Field(default=None, alias="feeUSDAmount")


class Fees(ApiModel):
    """Fees of a quote or transaction; an exchange rate's fees have no developer fee."""

    fee_currency: Currency | None = None
    service_fee: FeeAmount | None = None
    developer_fee: FeeAmount | None = None


class FeeComponent(ApiModel):
    fee_type: FeeType | None = None
    fee_amount: Decimal | None = None
    fee_currency: Currency | None = None


class DeveloperFee(ApiModel):
    """Quote request and automation template: {developerFeeType: "USD", developerFeeAmount}."""

    developer_fee_type: DeveloperFeeType = DeveloperFeeType.USD
    developer_fee_amount: Decimal


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list; `next_page_token` is None on the last page (null, "" or absent)."""

    items: list[T] = field(default_factory=list)
    next_page_token: str | None = None

    @property
    def has_more(self) -> bool:
        return bool(self.next_page_token)
