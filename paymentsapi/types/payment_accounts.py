"""Payment accounts (bank accounts, wallets, service accounts) and their balances."""

from datetime import datetime
from decimal import Decimal

from ._base import ApiModel, OpenEnum
from .shared import Currency


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
