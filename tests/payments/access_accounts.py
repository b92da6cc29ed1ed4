"""URLs of the accounts part in the role matrix (see tests/access.py).

The create/update POSTs send a form the back-office refuses before calling the API (no
customer), so the matrix needs no upstream: allowed roles get the form back (200).
"""

from tests.access import ALL, Access
from tests.factories import AutomationRuleFactory, PaymentAccountFactory

ADMIN = frozenset({"admin"})


def _account():
    return {"pk": PaymentAccountFactory().pk}


def _pending_account():
    """No upstream id: the balance fragment answers without calling the API."""
    return {"pk": PaymentAccountFactory(pending=True).pk}


def _rule():
    return {"pk": AutomationRuleFactory().pk}


ACCESS = {
    "payments-list-payment-accounts": Access(ALL),
    "payments-export-payment-accounts": Access(ALL),
    "payments-view-payment-account": Access(ALL, kwargs=_account),
    "payments-view-payment-account-balances": Access(ALL, kwargs=_pending_account),
    "payments-create-payment-account": Access(
        ADMIN,
        method="post",
        data=lambda: {"account_type": "SERVICE_CRYPTO_WALLET", "chain": "BASE"},
        allowed=200,
        form=True,
    ),
    # The API is not reachable in the matrix: the refresh fails and says so, then redirects.
    "payments-refresh-payment-account": Access(ADMIN, method="post", kwargs=_pending_account),
    # Asks for a hold (the request's page next); a release of an account not held is refused
    # with a message on the account's page: both redirect.
    "payments-hold-payment-account": Access(ADMIN, method="post", kwargs=_account, data=lambda: {"reason": "A test."}),
    "payments-release-payment-account": Access(
        ADMIN, method="post", kwargs=_account, data=lambda: {"reason": "A test."}
    ),
    "payments-list-automation-rules": Access(ALL),
    "payments-create-automation-rule": Access(ADMIN, method="post", data=lambda: {"name": "x"}, allowed=200, form=True),
    "payments-edit-automation-rule": Access(
        ADMIN, method="post", kwargs=_rule, data=lambda: {"name": ""}, allowed=200, form=True
    ),
    "payments-calculate-exchange-rate": Access(ALL),
}
