"""Typed results (and request parts) of the Payments API, as pydantic v2 models.

Conventions of every model:
- attributes are snake_case, the wire is camelCase (`customer.customer_status` <- `customerStatus`);
  models can be built with either name;
- amounts and rates are `Decimal` (the wire carries decimal strings, and the client writes
  Decimals back as strings, never floats); times are aware `datetime`s;
- fields the API adds later are kept (`model.model_extra`), never an error;
- enums are open: a status the spec does not list yet becomes a pseudo-member instead of
  failing the whole response (`CustomerStatus("ON_HOLD").is_known is False`).
"""

from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Discriminator, Field, PlainSerializer, SecretStr, Tag
from pydantic.alias_generators import to_camel

T = TypeVar("T")


class OpenEnum(StrEnum):
    """A str enum that keeps unknown values: `_missing_` makes a pseudo-member for them."""

    @classmethod
    def _missing_(cls, value):
        if not isinstance(value, str):
            return None
        member = str.__new__(cls, value)
        member._name_ = value
        member._value_ = value
        return member

    @property
    def is_known(self) -> bool:
        return self._name_ in type(self).__members__


class CustomerStatus(OpenEnum):
    CREATED = "CREATED"
    UNDER_REVIEW = "UNDER_REVIEW"
    NEEDS_ADDITIONAL_INFORMATION = "NEEDS_ADDITIONAL_INFORMATION"
    ACTIVE = "ACTIVE"
    REJECTED = "REJECTED"
    DEACTIVATED = "DEACTIVATED"


class CustomerType(OpenEnum):
    INDIVIDUAL = "INDIVIDUAL"
    BUSINESS = "BUSINESS"


class PaymentAccountType(OpenEnum):
    SERVICE_CRYPTO_WALLET = "SERVICE_CRYPTO_WALLET"
    EXTERNAL_CRYPTO_WALLET = "EXTERNAL_CRYPTO_WALLET"
    EXTERNAL_BANK_ACCOUNT = "EXTERNAL_BANK_ACCOUNT"
    SERVICE_AUTO_FIAT_ACCOUNT = "SERVICE_AUTO_FIAT_ACCOUNT"
    SERVICE_FIAT_ACCOUNT = "SERVICE_FIAT_ACCOUNT"


class PaymentAccountStatus(OpenEnum):
    PENDING = "PENDING"
    ACTIVE = "ACTIVE"
    DEACTIVATED = "DEACTIVATED"


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


class FeeType(OpenEnum):
    FLAT = "FLAT"


class AmountType(OpenEnum):
    FLAT = "FLAT"


class TriggerType(OpenEnum):
    THRESHOLD_BASED = "THRESHOLD_BASED"


class DeveloperFeeType(OpenEnum):
    USD = "USD"


class JsonNumber(Decimal):
    """A Decimal the client writes as a JSON number, not a string (the few fields the spec types
    as numbers). Refused beyond 15 significant digits, where a JSON number would lose some."""


class ApiModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


# --- Shared parts -------------------------------------------------------------------------


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


# --- Customers ----------------------------------------------------------------------------


class VerificationIssue(ApiModel):
    code: str
    message: str | None = None
    timestamp: datetime | None = None


class Customer(ApiModel):
    customer_id: str
    customer_status: CustomerStatus
    customer_type: CustomerType | None = None
    name: str | None = None
    email: str | None = None
    verification_link: str | None = None
    updated_at: datetime | None = None
    organization_id: str | None = None
    # None when the API did not send it (single read without include_payment_methods).
    available_payment_methods: list[str] | None = None
    verification_issues: list[VerificationIssue] = Field(default_factory=list)


class Address(ApiModel):
    country_code: str | None = None
    street_line1: str | None = Field(default=None, alias="streetLine1")
    street_line2: str | None = Field(default=None, alias="streetLine2")
    city: str | None = None
    state_region_province: str | None = None
    postal_code: str | None = None
    locale: str | None = None


class Document(ApiModel):
    type: str | None = None
    subtype: str | None = None
    country_code: str | None = None
    document_id_number: str | None = None
    issuance_date: date | None = None
    expiration_date: date | None = None
    front_id_image: str | None = None
    back_id_image: str | None = None
    proof_of_address_image: str | None = None
    description: str | None = None


class KycData(ApiModel):
    """Request part: send only what is set (the client drops None fields)."""

    legal_first_name: str | None = None
    legal_middle_name: str | None = None
    legal_last_name: str | None = None
    phone_number: str | None = None
    date_of_birth: date | None = None
    national_id_issuing_country: str | None = None
    national_id_type: str | None = None
    national_id_number: str | None = None
    nationality: str | None = None
    employment_status: str | None = None
    most_recent_occupation: str | None = None
    source_of_funds: str | None = None
    account_purpose: str | None = None
    account_purpose_other: str | None = None
    expected_monthly_payments_usd: str | None = None
    is_intermediary: bool | None = None
    documents: list[Document] | None = None


class BusinessInfo(ApiModel):
    legal_business_name: str | None = None
    dba_name: str | None = None
    business_type: str | None = None
    business_industries: str | None = None
    business_description: str | None = None
    website: str | None = None
    other_links: list[str] | None = None
    formation_date: date | None = None
    registration_country: str | None = None
    is_dao: bool | None = None


class AssociatedPerson(ApiModel):
    legal_first_name: str | None = None
    legal_middle_name: str | None = None
    legal_last_name: str | None = None
    email: str | None = None
    phone_number: str | None = None
    date_of_birth: date | None = None
    address: Address | None = None
    # A fraction (a quarter is 0.25). Unlike amounts, the wire wants a JSON number here.
    ownership_percentage: Annotated[Decimal, PlainSerializer(JsonNumber, return_type=Any)] | None = None
    title: str | None = None
    is_control_person: bool | None = None
    is_signer: bool | None = None
    is_director: bool | None = None
    national_id_issuing_country: str | None = None
    national_id_type: str | None = None
    national_id_number: str | None = None
    nationality: str | None = None
    documents: list[Document] | None = None


class BusinessDocument(ApiModel):
    type: str | None = None
    document_image: str | None = None
    description: str | None = None


class KybData(ApiModel):
    business_info: BusinessInfo | None = None
    business_registration_number: str | None = None
    source_of_funds: str | None = None
    source_of_funds_description: str | None = None
    account_purpose: str | None = None
    account_purpose_other: str | None = None
    expected_monthly_volume_usd: str | None = None
    estimated_annual_revenue_usd: str | None = None
    conducts_money_services: bool | None = None
    conducts_money_services_description: str | None = None
    conducts_money_services_through_service: bool | None = None
    operates_in_prohibited_countries: bool | None = None
    compliance_screening_description: str | None = None
    high_risk_activities: list[str] | None = None
    high_risk_activities_explanation: str | None = None
    associated_persons: list[AssociatedPerson] | None = None
    business_documents: list[BusinessDocument] | None = None


# --- Payment accounts ---------------------------------------------------------------------


class WalletAddress(ApiModel):
    address: str | None = None
    chain: str | None = None


class ExternalBankAccount(ApiModel):
    """Response object; the request adds bankAccountNumber and bankRoutingNumber (ARCHITECTURE.md)."""

    bank_account_type: str | None = None
    bank_account_owner_name: str | None = None
    bank_account_owner_email: str | None = None
    bank_name: str | None = None
    bank_account_currency: Currency | str | None = None
    bank_account_mask: str | None = None
    bank_account_payment_method: str | None = None
    bank_account_number: str | None = None
    bank_routing_number: str | None = None

    def __repr_args__(self):
        # Full account numbers are only ever sent, never shown in a repr or a log line.
        for name, value in super().__repr_args__():
            yield name, ("***" if name in ("bank_account_number", "bank_routing_number") and value else value)


class ServiceAutoFiatAccount(ApiModel):
    currency: Currency | str | None = None
    supported_destination_currencies: list[Currency | str] | None = None


class ServiceFiatAccount(ApiModel):
    """Fields not shown by the spec: the sandbox's reading, and anything else is kept as extras."""

    currency: Currency | str | None = None
    supported_payment_methods: list[str] | None = None


class ExternalCryptoWallet(ApiModel):
    currency: Currency | str | None = None
    address: WalletAddress | None = None


class ServiceCryptoWallet(ApiModel):
    crypto_wallet_type: str | None = None
    address: WalletAddress | None = None
    # Request only (ARCHITECTURE.md): the chain of the new wallet.
    chain: str | None = None


class PaymentAccount(ApiModel):
    # "" for a bank account still waiting for its hosted form.
    payment_account_id: str = ""
    payment_account_type: PaymentAccountType
    payment_account_status: PaymentAccountStatus | None = None
    nickname: str | None = None
    created_at: datetime | None = None
    customer_id: str | None = None
    is_third_party: bool = False
    bank_account_form_link: str | None = None
    external_bank_account: ExternalBankAccount | None = None
    service_auto_fiat_account: ServiceAutoFiatAccount | None = None
    service_fiat_account: ServiceFiatAccount | None = None
    external_crypto_wallet: ExternalCryptoWallet | None = None
    service_crypto_wallet: ServiceCryptoWallet | None = None

    @property
    def is_awaiting_form(self) -> bool:
        return not self.payment_account_id


class Balance(ApiModel):
    payment_account_id: str | None = None
    currency: Currency | None = None
    balance: Decimal
    usd_value: Decimal | None = None


# --- Exchange rates, quotes ---------------------------------------------------------------


class ExchangeRate(ApiModel):
    exchange_rate: Decimal
    fee_components: list[FeeComponent] = Field(default_factory=list)
    # Present when the query gave a source amount.
    destination_amount: Decimal | None = None
    fees: Fees | None = None


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


# --- Transactions -------------------------------------------------------------------------


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


class CancelResult(ApiModel):
    """DELETE /transactions/{id} answers {message}; re-read the transaction for its state."""

    message: str | None = None


# --- Automation rules ---------------------------------------------------------------------


class TemplateSource(ApiModel):
    source_payment_account_id: str
    source_payment_method: str | None = None
    # A plain string in requests, a currency object in responses.
    source_currency: Currency | str | None = None


class TemplateDestination(ApiModel):
    destination_payment_account_id: str
    destination_payment_method: str | None = None
    destination_currency: Currency | str | None = None


class RuleAmount(ApiModel):
    value: Decimal
    type: AmountType | None = None


class TransactionTemplate(ApiModel):
    source: TemplateSource
    destination: TemplateDestination
    amount: RuleAmount
    developer_fee: DeveloperFee | None = None


class Trigger(ApiModel):
    cron_schedule: str | None = None
    threshold_amount: Decimal | None = None
    type: TriggerType | None = None


class AutomationRule(ApiModel):
    id: str
    name: str | None = None
    customer_id: str | None = None
    transaction_template: TransactionTemplate | None = None
    trigger: Trigger | None = None
    created_at: datetime | None = None


# --- Webhooks -----------------------------------------------------------------------------


class WebhookEndpoint(ApiModel):
    webhook_id: str
    url: str | None = None
    events: list[str] = Field(default_factory=list)
    # Only in the create answer. SecretStr keeps it out of reprs and logs: .get_secret_value().
    secret: SecretStr | None = None
    created_at: datetime | None = None


class WebhookDelivery(ApiModel):
    """Fields not shown by the spec nor ARCHITECTURE.md: those the sandbox answers (status PENDING,
    RETRYING, SUCCEEDED or FAILED), all optional, and extras are kept."""

    delivery_id: str | None = None
    webhook_id: str | None = None
    event_id: str | None = None
    event_type: str | None = None
    status: str | None = None
    attempts: int | None = None
    response_status: int | None = None
    last_error: str | None = None
    last_attempt_at: datetime | None = None
    next_attempt_at: datetime | None = None
    created_at: datetime | None = None


# --- Pages --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list; `next_page_token` is None on the last page (null, "" or absent)."""

    items: list[T] = field(default_factory=list)
    next_page_token: str | None = None

    @property
    def has_more(self) -> bool:
        return bool(self.next_page_token)
