"""Transactions: source, destination, transfer instructions, and the answer to a cancel."""

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Discriminator, PrivateAttr, Tag

from ._base import ApiModel, OpenEnum
from .shared import Currency, Fees


class TransactionStatus(OpenEnum):
    CREATED = "CREATED"
    AWAITING_TRANSFER = "AWAITING_TRANSFER"
    PROCESSING = "PROCESSING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"
    EXPIRED = "EXPIRED"

    @property
    def is_terminal(self) -> bool:
        return self in TERMINAL_TRANSACTION_STATUSES


TERMINAL_TRANSACTION_STATUSES = frozenset(
    {TransactionStatus.COMPLETED, TransactionStatus.FAILED, TransactionStatus.CANCELLED, TransactionStatus.EXPIRED}
)


class TransactionSource(ApiModel):
    source_currency: Currency | None = None
    source_payment_method: str | None = None
    source_amount: Decimal | None = None
    source_payment_account_id: str | None = None
    source_reference_id: str | None = None


class TransactionDestination(ApiModel):
    destination_payment_account_id: str | None = None
    destination_payment_method: str | None = None
    destination_currency: Currency | None = None
    exchange_rate: Decimal | None = None
    destination_amount: Decimal | None = None
    destination_reference_id: str | None = None


class TransferInstructions(ApiModel):
    """Instructions of a kind the spec does not show; all fields are kept as extras."""

    type: str | None = None


class FiatTransferInstructions(TransferInstructions):
    type: Literal["fiat"] = "fiat"
    transfer_payment_method: str | None = None
    transfer_message: str | None = None
    transfer_bank_name: str | None = None
    transfer_bank_address: str | None = None
    transfer_bank_account_number: str | None = None
    transfer_routing_number: str | None = None
    transfer_bank_beneficiary_name: str | None = None
    transfer_iban: str | None = None
    transfer_bic_swift: str | None = None
    transfer_ifsc_code: str | None = None
    transfer_sort_code: str | None = None
    transfer_bsb_number: str | None = None
    transfer_transit_number: str | None = None
    transfer_bank_code: str | None = None
    transfer_clabe_number: str | None = None
    transfer_routing_code: str | None = None
    transfer_branch_code: str | None = None
    transfer_clearing_code: str | None = None
    transfer_cnaps_code: str | None = None
    transfer_nuban_code: str | None = None
    transfer_pix_code: str | None = None
    transfer_payment_link: str | None = None


class CryptoTransferInstructions(TransferInstructions):
    """Fields not shown by the spec: these are our best reading, and extras are kept."""

    type: Literal["crypto"] = "crypto"
    deposit_address: str | None = None
    chain: str | None = None
    currency: Currency | str | None = None
    amount: Decimal | None = None


def _instructions_kind(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if kind in ("fiat", "crypto") else "other"


AnyTransferInstructions = Annotated[
    Annotated[FiatTransferInstructions, Tag("fiat")]
    | Annotated[CryptoTransferInstructions, Tag("crypto")]
    | Annotated[TransferInstructions, Tag("other")],
    Discriminator(_instructions_kind),
]


class Transaction(ApiModel):
    transaction_id: str
    transaction_status: TransactionStatus
    customer_id: str | None = None
    quote_id: str | None = None
    source: TransactionSource | None = None
    destination: TransactionDestination | None = None
    fees: Fees | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    correlation_id: str | None = None
    transfer_instructions: AnyTransferInstructions | None = None
    # Present only while AWAITING_TRANSFER.
    expires_at: datetime | None = None
    # Not of the body: the create's answer was a replay of an earlier call under its key.
    _replayed: bool = PrivateAttr(default=False)

    @property
    def replayed(self) -> bool:
        return self._replayed


class CancelResult(ApiModel):
    """DELETE /transactions/{id} answers {message}; re-read the transaction for its state."""

    message: str | None = None
