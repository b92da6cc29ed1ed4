"""URLs of the accounts part in the role matrix (see tests/access.py).

The create/update POSTs send a form the back-office refuses before calling the API (no
customer), so the matrix needs no upstream: allowed roles get the form back (200).
"""

import uuid

from tests.access import ALL, Access

ADMIN = frozenset({"admin"})


def _account():
    from payments.models import PaymentAccount

    account = PaymentAccount.objects.create(
        account_id=str(uuid.uuid4()),
        customer_upstream_id=str(uuid.uuid4()),
        account_type="EXTERNAL_CRYPTO_WALLET",
        status="ACTIVE",
        details={"currency": {"label": "USDC"}, "address": {"address": "0x" + "ab" * 20, "chain": "BASE"}},
    )
    return {"pk": account.pk}


def _pending_account():
    """No upstream id: the balance fragment answers without calling the API."""
    from payments.models import PaymentAccount

    account = PaymentAccount.objects.create(
        form_link=f"http://testserver/sandbox/forms/bank-accounts/{uuid.uuid4().hex}",
        customer_upstream_id=str(uuid.uuid4()),
        account_type="EXTERNAL_BANK_ACCOUNT",
        status="PENDING",
    )
    return {"pk": account.pk}


def _rule():
    from payments.models import AutomationRule

    rule = AutomationRule.objects.create(
        rule_id=str(uuid.uuid4()),
        customer_upstream_id=str(uuid.uuid4()),
        name="Sweep",
        trigger={"cronSchedule": "0 9 * * *"},
    )
    return {"pk": rule.pk}


ACCESS = {
    "payments-list-payment-accounts": Access(ALL),
    "payments-view-payment-account": Access(ALL, kwargs=_account),
    "payments-view-payment-account-balances": Access(ALL, kwargs=_pending_account),
    "payments-new-payment-account": Access(ADMIN),
    "payments-create-payment-account": Access(
        ADMIN, method="post", data=lambda: {"account_type": "SERVICE_CRYPTO_WALLET", "chain": "BASE"}, allowed=200
    ),
    # The API is not reachable in the matrix: the refresh fails and says so, then redirects.
    "payments-refresh-payment-account": Access(ADMIN, method="post", kwargs=_pending_account),
    "payments-list-automation-rules": Access(ALL),
    "payments-new-automation-rule": Access(ADMIN),
    "payments-create-automation-rule": Access(ADMIN, method="post", data=lambda: {"name": "x"}, allowed=200),
    "payments-edit-automation-rule": Access(ADMIN, kwargs=_rule),
    "payments-update-automation-rule": Access(
        ADMIN, method="post", kwargs=_rule, data=lambda: {"name": ""}, allowed=200
    ),
    "payments-calculate-exchange-rate": Access(ALL),
}
