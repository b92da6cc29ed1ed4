"""Staff actions on payments, one module per kind of record: accounts, rules, quotes (and their
execution), transactions. Each writes through the API (upstream.write_through); the mirror's own
writes are payments.upserts."""

# What the audit log names in staff words (core.labels, vocabulary ACTION).
ACTION_LABELS = {
    "payment_account.create": "Created a payment account",
    "payment_account.refresh": "Refreshed a payment account",
    "payment_account.hold": "Held a payment account in the back-office",
    "payment_account.release": "Released a held payment account",
    "quote.create": "Made a quote",
    "quote.execute": "Executed a quote",
    "transaction.refresh": "Refreshed a transaction",
    "transaction.cancel": "Cancelled a transaction",
    "automation_rule.create": "Created an automation rule",
    "automation_rule.update": "Changed an automation rule",
    "approval.request": "Asked for an approval",
    "approval.approve": "Approved a request",
    "approval.reject": "Rejected a request",
    "approval.withdraw": "Withdrew a request",
    "approval.return": "Returned a request to its maker",
    "approval.execute": "Carried out an approved request",
    "approval.fail": "An approved request failed",
    "approval.expire": "A request expired",
}
