"""The payments pages' addresses, all in one place; old ones answer 308 (core.views.moved)."""

from django.urls import path

from core.views import moved

from .views import accounts, approvals, open_quotes, pickers, quotes, rates, rules, transactions

urlpatterns = [
    # Accounts
    path("accounts/", accounts.list_payment_accounts, name="payments-list-payment-accounts"),
    path("accounts/export.csv", accounts.export_payment_accounts, name="payments-export-payment-accounts"),
    path("accounts/new", accounts.create_payment_account, name="payments-create-payment-account"),
    path("accounts/<int:pk>/", accounts.view_payment_account, name="payments-view-payment-account"),
    path(
        "accounts/<int:pk>/balances",
        accounts.view_payment_account_balances,
        name="payments-view-payment-account-balances",
    ),
    path("accounts/<int:pk>/refresh", accounts.refresh_payment_account, name="payments-refresh-payment-account"),
    path("accounts/<int:pk>/hold", accounts.hold_payment_account, name="payments-hold-payment-account"),
    path("accounts/<int:pk>/release", accounts.release_payment_account, name="payments-release-payment-account"),
    # Addresses of before: one URL per form, no slash after an action.
    moved("accounts/new/", "payments-create-payment-account"),
    moved("accounts/create/", "payments-create-payment-account"),
    moved("accounts/<int:pk>/balances/", "payments-view-payment-account-balances"),
    moved("accounts/<int:pk>/refresh/", "payments-refresh-payment-account"),
    # Rules
    path("rules/", rules.list_automation_rules, name="payments-list-automation-rules"),
    path("rules/<int:pk>/", rules.view_automation_rule, name="payments-view-automation-rule"),
    path("rules/new", rules.create_automation_rule, name="payments-create-automation-rule"),
    path("rules/<int:pk>/edit", rules.edit_automation_rule, name="payments-edit-automation-rule"),
    # Addresses of before: one URL per form, no slash after an action.
    moved("rules/new/", "payments-create-automation-rule"),
    moved("rules/create/", "payments-create-automation-rule"),
    moved("rules/<int:pk>/edit/", "payments-edit-automation-rule"),
    moved("rules/<int:pk>/update/", "payments-edit-automation-rule"),
    # Rates
    path("exchange-rates/", rates.calculate_exchange_rate, name="payments-calculate-exchange-rate"),
    # Quotes
    path("quotes/new", quotes.create_quote, name="payments-create-quote"),
    path("quotes/preview", quotes.preview_quote, name="payments-preview-quote"),
    path("quotes/<str:quote_id>/", quotes.view_quote, name="payments-view-quote"),
    path("quotes/<str:quote_id>/execute", quotes.execute_quote, name="payments-execute-quote"),
    # The address of before: one URL per form.
    moved("quotes/create", "payments-create-quote"),
    # Open quotes
    path("quotes/", open_quotes.list_open_quotes, name="payments-list-open-quotes"),
    # Pickers
    path("customers/search", pickers.search_customers, name="payments-search-customers"),
    # Transactions
    path("transactions/", transactions.list_transactions, name="payments-list-transactions"),
    path("transactions/export.csv", transactions.export_transactions, name="payments-export-transactions"),
    path("transactions/stuck", transactions.list_stuck_transactions, name="payments-list-stuck-transactions"),
    path(
        "transactions/stuck/live",
        transactions.list_stuck_transactions_live,
        name="payments-list-stuck-transactions-live",
    ),
    path("transactions/bulk-cancel", transactions.bulk_cancel_transactions, name="payments-bulk-cancel-transactions"),
    path("transactions/<str:transaction_id>/", transactions.view_transaction, name="payments-view-transaction"),
    path(
        "transactions/<str:transaction_id>/live",
        transactions.view_transaction_live,
        name="payments-view-transaction-live",
    ),
    path(
        "transactions/<str:transaction_id>/refresh",
        transactions.refresh_transaction,
        name="payments-refresh-transaction",
    ),
    path(
        "transactions/<str:transaction_id>/cancel", transactions.cancel_transaction, name="payments-cancel-transaction"
    ),
    # The address of before: one URL per form.
    moved("transactions/<str:transaction_id>/confirm-cancel", "payments-cancel-transaction"),
    # Approvals
    path("approvals/", approvals.list_approval_requests, name="payments-list-approval-requests"),
    path("approvals/<int:pk>/", approvals.view_approval_request, name="payments-view-approval-request"),
    path("approvals/<int:pk>/approve", approvals.approve_approval_request, name="payments-approve-approval-request"),
    path("approvals/<int:pk>/reject", approvals.reject_approval_request, name="payments-reject-approval-request"),
    path("approvals/<int:pk>/withdraw", approvals.withdraw_approval_request, name="payments-withdraw-approval-request"),
]
