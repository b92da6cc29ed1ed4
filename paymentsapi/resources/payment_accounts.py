"""client.payment_accounts: create, list, iter, get, get_balance."""

from collections.abc import Iterator, Mapping
from typing import Any

from .._base_client import parse_model, parse_page
from .._wire import segment
from ..pagination import MAX_PAGE_SIZE, iter_items
from ..types import (
    Balance,
    ExternalBankAccount,
    ExternalCryptoWallet,
    Page,
    PaymentAccount,
    PaymentAccountType,
    ServiceAutoFiatAccount,
    ServiceCryptoWallet,
    ServiceFiatAccount,
)
from ._resource import Resource


class PaymentAccounts(Resource):
    def create(
        self,
        *,
        customer_id: str,
        payment_account_type: PaymentAccountType | str,
        nickname: str | None = None,
        organization_id: str | None = None,
        is_third_party: bool | None = None,
        external_bank_account: ExternalBankAccount | Mapping[str, Any] | None = None,
        service_auto_fiat_account: ServiceAutoFiatAccount | Mapping[str, Any] | None = None,
        service_fiat_account: ServiceFiatAccount | Mapping[str, Any] | None = None,
        external_crypto_wallet: ExternalCryptoWallet | Mapping[str, Any] | None = None,
        service_crypto_wallet: ServiceCryptoWallet | Mapping[str, Any] | None = None,
    ) -> PaymentAccount:
        """A bank account without its numbers comes back PENDING with `bank_account_form_link`."""
        body = {
            "customerId": customer_id,
            "paymentAccountType": payment_account_type,
            "nickname": nickname,
            "organizationId": organization_id,
            "isThirdParty": is_third_party,
            "externalBankAccount": external_bank_account,
            "serviceAutoFiatAccount": service_auto_fiat_account,
            "serviceFiatAccount": service_fiat_account,
            "externalCryptoWallet": external_crypto_wallet,
            "serviceCryptoWallet": service_crypto_wallet,
        }
        return parse_model(PaymentAccount, self._request("POST", "/payment-accounts", body=body))

    def list(
        self, *, page_token: str | None = None, page_size: int | None = None, customer_id: str | None = None
    ) -> Page[PaymentAccount]:
        params = {"pageToken": page_token, "pageSize": page_size, "customerId": customer_id}
        return parse_page(PaymentAccount, self._request("GET", "/payment-accounts", params=params), "paymentAccounts")

    def iter(self, *, page_size: int = MAX_PAGE_SIZE, customer_id: str | None = None) -> Iterator[PaymentAccount]:
        return iter_items(lambda token: self.list(page_token=token, page_size=page_size, customer_id=customer_id))

    def get(self, *, payment_account_id: str) -> PaymentAccount:
        return parse_model(PaymentAccount, self._request("GET", f"/payment-accounts/{segment(payment_account_id)}"))

    def get_balance(self, *, payment_account_id: str, chain: str | None = None, currency: str | None = None) -> Balance:
        path = f"/payment-accounts/{segment(payment_account_id)}/balance"
        return parse_model(Balance, self._request("GET", path, params={"chain": chain, "currency": currency}))
