"""client.automation_rules: create, list, iter, get, update."""

from collections.abc import Iterator, Mapping
from typing import Any

from .._base_client import parse_model, parse_page
from .._wire import segment
from ..pagination import MAX_PAGE_SIZE, iter_items
from ..types import AutomationRule, Page, TransactionTemplate, Trigger
from ._resource import Resource


class AutomationRules(Resource):
    def create(
        self,
        *,
        name: str,
        customer_id: str,
        transaction_template: TransactionTemplate | Mapping[str, Any],
        trigger: Trigger | Mapping[str, Any],
    ) -> AutomationRule:
        body = _rule(name, customer_id, transaction_template, trigger)
        return parse_model(AutomationRule, self._request("POST", "/automation-rules", body=body))

    def list(
        self,
        *,
        customer_id: str | None = None,
        source_payment_account_id: str | None = None,
        page_token: str | None = None,
        page_size: int | None = None,
    ) -> Page[AutomationRule]:
        params = {
            "customerId": customer_id,
            "sourcePaymentAccountId": source_payment_account_id,
            "pageToken": page_token,
            "pageSize": page_size,
        }
        return parse_page(AutomationRule, self._request("GET", "/automation-rules", params=params), "automationRules")

    def iter(
        self,
        *,
        customer_id: str | None = None,
        source_payment_account_id: str | None = None,
        page_size: int = MAX_PAGE_SIZE,
    ) -> Iterator[AutomationRule]:
        return iter_items(
            lambda token: self.list(
                customer_id=customer_id,
                source_payment_account_id=source_payment_account_id,
                page_token=token,
                page_size=page_size,
            )
        )

    def get(self, *, rule_id: str) -> AutomationRule:
        return parse_model(AutomationRule, self._request("GET", f"/automation-rules/{segment(rule_id)}"))

    def update(
        self,
        *,
        rule_id: str,
        name: str,
        customer_id: str,
        transaction_template: TransactionTemplate | Mapping[str, Any],
        trigger: Trigger | Mapping[str, Any],
    ) -> AutomationRule:
        """PUT replaces the whole rule: give every field, not only the changed ones."""
        body = {"id": rule_id, **_rule(name, customer_id, transaction_template, trigger)}
        return parse_model(AutomationRule, self._request("PUT", f"/automation-rules/{segment(rule_id)}", body=body))


def _rule(name, customer_id, transaction_template, trigger) -> dict[str, Any]:
    """A rule as its create sends it and its update sends it again whole (with its id)."""
    return {"name": name, "customerId": customer_id, "transactionTemplate": transaction_template, "trigger": trigger}
