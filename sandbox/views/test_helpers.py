"""Sandbox-only test helpers, mounted at {base_url}/test-helpers/ (never under API paths).

They act as the provider would (a review decision, a deactivation, time passing, money
arriving) and need an API key of the record's organization, like every other write. Each
helper's view lives with its resource; this module only routes them.
"""

from django.urls import path

from .accounts import BankAccountFormCompleteApi, PaymentAccountFundApi
from .clock import ClockAdvanceApi
from .customers import CustomerDeactivateApi, CustomerReviewApi
from .rates import RateShiftApi
from .rules import RulesRunApi
from .transactions import TransactionAdvanceApi, TransactionDepositLinkApi

urlpatterns = [
    # Customers
    path("customers/<str:customerId>/review", CustomerReviewApi.as_view(), name="sandbox-review-customer"),
    path("customers/<str:customerId>/deactivate", CustomerDeactivateApi.as_view(), name="sandbox-deactivate-customer"),
    # Clock
    path("clock/advance", ClockAdvanceApi.as_view(), name="sandbox-advance-clock"),
    # Exchange rates
    path("exchange-rates/shift", RateShiftApi.as_view(), name="sandbox-shift-exchange-rate"),
    # Transactions, payment accounts, bank account forms, automation rules
    path(
        "transactions/<str:transaction_id>/advance", TransactionAdvanceApi.as_view(), name="sandbox-advance-transaction"
    ),
    path(
        "transactions/<str:transaction_id>/deposit-link",
        TransactionDepositLinkApi.as_view(),
        name="sandbox-transaction-deposit-link",
    ),
    path(
        "payment-accounts/<str:payment_account_id>/fund", PaymentAccountFundApi.as_view(), name="sandbox-fund-account"
    ),
    path(
        "bank-account-forms/<str:form_token>/complete",
        BankAccountFormCompleteApi.as_view(),
        name="sandbox-complete-bank-account-form",
    ),
    path("automation-rules/run", RulesRunApi.as_view(), name="sandbox-run-automation-rules"),
]
