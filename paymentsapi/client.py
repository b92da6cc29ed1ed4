"""The client of the Payments API: the resources as attributes of one object.

    client = PaymentsApiClient(api_key=..., base_url=...)
    customer = client.customers.get(customer_id=..., include_payment_methods=True)
    for account in client.payment_accounts.iter(customer_id=customer.customer_id): ...

Transport, retries, the circuit breaker, redaction and parsing are the base's (_base_client.py);
each resource (resources/) builds its requests and names its typed results (types/).
"""

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


class PaymentsApiClient(BaseClient):
    # Properties, not attributes set once: a copy made by with_options() gets resources bound to it.

    @property
    def customers(self) -> Customers:
        return Customers(self)

    @property
    def payment_accounts(self) -> PaymentAccounts:
        return PaymentAccounts(self)

    @property
    def exchange_rates(self) -> ExchangeRates:
        return ExchangeRates(self)

    @property
    def quotes(self) -> Quotes:
        return Quotes(self)

    @property
    def transactions(self) -> Transactions:
        return Transactions(self)

    @property
    def automation_rules(self) -> AutomationRules:
        return AutomationRules(self)

    @property
    def webhooks(self) -> Webhooks:
        return Webhooks(self)
