"""The sandbox's routes, all in one place: {base_url} is the mount point (/sandbox/ by default)."""

from django.urls import include, path, re_path

from .views import (
    accounts,
    clock,
    customers,
    deposits,
    hosted_forms,
    openapi,
    quotes,
    rates,
    rules,
    transactions,
    webhooks,
)
from .views.index import index, unknown_route

# Sandbox-only test helpers, at {base_url}/test-helpers/ (never under API paths). They act as the
# provider would (a review decision, a deactivation, time passing, money arriving) and need an API
# key of the record's organization, like every other write. Each helper's view lives with its
# resource.
test_helper_patterns = [
    # Customers
    path("customers/<str:customerId>/review", customers.CustomerReviewApi.as_view(), name="sandbox-review-customer"),
    path(
        "customers/<str:customerId>/deactivate",
        customers.CustomerDeactivateApi.as_view(),
        name="sandbox-deactivate-customer",
    ),
    # Clock
    path("clock/advance", clock.ClockAdvanceApi.as_view(), name="sandbox-advance-clock"),
    # Exchange rates
    path("exchange-rates/shift", rates.RateShiftApi.as_view(), name="sandbox-shift-exchange-rate"),
    # Transactions
    path(
        "transactions/<str:transaction_id>/advance",
        transactions.TransactionAdvanceApi.as_view(),
        name="sandbox-advance-transaction",
    ),
    path(
        "transactions/<str:transaction_id>/deposit-link",
        transactions.TransactionDepositLinkApi.as_view(),
        name="sandbox-transaction-deposit-link",
    ),
    # Payment accounts
    path(
        "payment-accounts/<str:payment_account_id>/fund",
        accounts.PaymentAccountFundApi.as_view(),
        name="sandbox-fund-account",
    ),
    # Bank account forms
    path(
        "bank-account-forms/<str:form_token>/complete",
        accounts.BankAccountFormCompleteApi.as_view(),
        name="sandbox-complete-bank-account-form",
    ),
    # Automation rules
    path("automation-rules/run", rules.RulesRunApi.as_view(), name="sandbox-run-automation-rules"),
]

urlpatterns = [
    path("", index, name="sandbox-index"),
    # Customers
    path("customers", customers.CustomerListCreateApi.as_view(), name="sandbox-list-create-customers"),
    path("customers/<str:customerId>", customers.CustomerDetailApi.as_view(), name="sandbox-detail-customer"),
    path("customer/<str:customerId>", customers.CustomerRetrieveApi.as_view(), name="sandbox-get-customer"),
    # Payment accounts
    path("payment-accounts", accounts.PaymentAccountListCreateApi.as_view(), name="sandbox-payment-accounts"),
    path(
        "payment-accounts/<str:payment_account_id>",
        accounts.PaymentAccountGetApi.as_view(),
        name="sandbox-get-payment-account",
    ),
    path(
        "payment-accounts/<str:payment_account_id>/balance",
        accounts.PaymentAccountBalanceApi.as_view(),
        name="sandbox-get-payment-account-balance",
    ),
    # Exchange rates
    path("exchange-rates", rates.ExchangeRateGetApi.as_view(), name="sandbox-get-exchange-rate"),
    # Quotes
    path("quotes", quotes.QuoteCreateApi.as_view(), name="sandbox-create-quote"),
    # Transactions
    path("transactions", transactions.TransactionCreateApi.as_view(), name="sandbox-create-transaction"),
    path(
        "transactions/<str:transaction_id>",
        transactions.TransactionGetCancelApi.as_view(),
        name="sandbox-transaction",
    ),
    # Automation rules
    path("automation-rules", rules.RuleListCreateApi.as_view(), name="sandbox-automation-rules"),
    path("automation-rules/<str:rule_id>", rules.RuleGetUpdateApi.as_view(), name="sandbox-automation-rule"),
    # Webhooks
    path("webhooks", webhooks.WebhookListCreateApi.as_view(), name="sandbox-list-create-webhooks"),
    path("webhooks/<uuid:webhookId>", webhooks.WebhookDetailApi.as_view(), name="sandbox-detail-webhook"),
    path(
        "webhooks/<uuid:webhookId>/deliveries",
        webhooks.WebhookDeliveryListApi.as_view(),
        name="sandbox-list-webhook-deliveries",
    ),
    # The OpenAPI document
    path("openapi.json", openapi.OpenApiDocumentApi.as_view(), name="sandbox-openapi"),
    # Hosted forms: server-rendered pages, not API operations
    path("forms/verify/<str:token>", hosted_forms.verify_customer, name="sandbox-verify-customer"),
    path(
        "forms/verify/<str:token>/submitted",
        hosted_forms.verify_customer_submitted,
        name="sandbox-verify-customer-submitted",
    ),
    path("forms/bank-accounts/<str:token>", hosted_forms.complete_bank_account, name="sandbox-complete-bank-account"),
    # The hosted deposit page
    path("forms/deposits/<str:token>", deposits.deposit_transaction, name="sandbox-deposit"),
    # Test helpers
    path("test-helpers/", include(test_helper_patterns)),
    # Last, as it matches every path: [\s\S], so that a path with a newline in it is an unknown
    # route too, not Django's HTML 404.
    re_path(r"^[\s\S]*$", unknown_route, name="sandbox-unknown"),
]
