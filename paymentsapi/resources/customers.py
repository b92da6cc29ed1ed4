"""client.customers: create, list, iter, get, update."""

from collections.abc import Iterator, Mapping
from typing import Any

from .._base_client import parse_model, parse_page
from .._wire import segment
from ..pagination import MAX_PAGE_SIZE, iter_items
from ..types import Customer, CustomerType, KybData, KycData, Page
from ._resource import Resource


class Customers(Resource):
    def create(
        self,
        *,
        customer_type: CustomerType | str,
        email: str,
        first_name: str | None = None,
        last_name: str | None = None,
        business_name: str | None = None,
        kyc_data: KycData | Mapping[str, Any] | None = None,
        kyb_data: KybData | Mapping[str, Any] | None = None,
    ) -> Customer:
        body = {
            "customerType": customer_type,
            "email": email,
            "firstName": first_name,
            "lastName": last_name,
            "businessName": business_name,
            "kycData": kyc_data,
            "kybData": kyb_data,
        }
        return parse_model(Customer, self._request("POST", "/customers", body=body))

    def list(
        self, *, page_token: str | None = None, page_size: int | None = None, organization_id: str | None = None
    ) -> Page[Customer]:
        params = {"pageToken": page_token, "pageSize": page_size, "organizationId": organization_id}
        return parse_page(Customer, self._request("GET", "/customers", params=params), "customers")

    def iter(self, *, page_size: int = MAX_PAGE_SIZE, organization_id: str | None = None) -> Iterator[Customer]:
        return iter_items(
            lambda token: self.list(page_token=token, page_size=page_size, organization_id=organization_id)
        )

    def get(self, *, customer_id: str, include_payment_methods: bool = False) -> Customer:
        params = {"includePaymentMethods": True} if include_payment_methods else None
        return parse_model(Customer, self._request("GET", f"/customer/{segment(customer_id)}", params=params))

    def update(
        self,
        *,
        customer_id: str,
        kyc_data: KycData | Mapping[str, Any] | None = None,
        kyb_data: KybData | Mapping[str, Any] | None = None,
    ) -> Customer:
        """PATCH: send only the fields to change (the national ID triple goes together)."""
        body = {"kycData": kyc_data, "kybData": kyb_data}
        return parse_model(Customer, self._request("PATCH", f"/customers/{segment(customer_id)}", body=body))
