"""The resources of the Payments API, each reached as an attribute of the client."""

from .automation_rules import AutomationRules
from .customers import Customers
from .exchange_rates import ExchangeRates
from .payment_accounts import PaymentAccounts
from .quotes import Quotes
from .transactions import Transactions
from .webhooks import Webhooks

__all__ = [
    "AutomationRules",
    "Customers",
    "ExchangeRates",
    "PaymentAccounts",
    "Quotes",
    "Transactions",
    "Webhooks",
]
