"""The client of the Payments API: the resources as attributes of one object.

    client = PaymentsApiClient(api_key=..., base_url=...)
    customer = client.customers.get(customer_id=..., include_payment_methods=True)
    for account in client.payment_accounts.iter(customer_id=customer.customer_id): ...

Transport, retries, the circuit breaker, redaction and parsing are the base's (_base_client.py);
each resource (resources/) builds its requests and names its typed results (types/).
"""

from typing import Generic, TypeVar

from ._base_client import BaseClient
from .resources import (
    AutomationRules,
    Customers,
    ExchangeRates,
    PaymentAccounts,
    Quotes,
    Transactions,
    Webhooks,
)
from .resources._resource import Resource

R = TypeVar("R", bound=Resource)


class _ResourceOf(Generic[R]):
    """A resource made for the client it is read from, not an attribute set once: a copy made
    by with_options() gets resources bound to it."""

    def __init__(self, resource: type[R]) -> None:
        self._resource = resource

    def __get__(self, client: BaseClient, owner: type | None = None) -> R:
        return self._resource(client)


class PaymentsApiClient(BaseClient):
    customers = _ResourceOf(Customers)
    payment_accounts = _ResourceOf(PaymentAccounts)
    exchange_rates = _ResourceOf(ExchangeRates)
    quotes = _ResourceOf(Quotes)
    transactions = _ResourceOf(Transactions)
    automation_rules = _ResourceOf(AutomationRules)
    webhooks = _ResourceOf(Webhooks)
