"""Real sandbox records for the reliability tests, made lazily: each view gets only what it
needs, through the sandbox's API (set-up) or the back-office's own views (quotes, rules,
transactions), while the upstream is healthy."""

import functools

from django.test import Client
from django.urls import reverse

from mirror.sync import refresh_customer, sync_payment_accounts
from tests.conftest import authenticated_now
from tests.payments.transactions_helpers import quote_post_data, rule_post_data, sandbox_customer


class World:
    def __init__(self, faulty, make_staff):
        self.faulty, self.sandbox = faulty, faulty.sandbox
        self.admin = Client()
        self.admin.force_login(make_staff("admin", "world-admin"))
        authenticated_now(self.admin)
        # The second person of four-eyes: approves what world-admin asks for.
        self.checker = Client()
        self.checker.force_login(make_staff("admin", "world-checker"))
        authenticated_now(self.checker)

    def _healthy(self):
        assert self.faulty.mode is None, "records are made while the upstream answers"

    @functools.cached_property
    def active(self) -> dict:
        """An ACTIVE individual with an ACH bank account and a BASE USDC wallet, mirrored."""
        self._healthy()
        return sandbox_customer(self.sandbox)

    @functools.cached_property
    def service_wallet(self) -> str:
        self._healthy()
        body = {"paymentAccountType": "SERVICE_CRYPTO_WALLET", "serviceCryptoWallet": {"chain": "BASE"}}
        account = self.sandbox.call("POST", "/payment-accounts", {**body, "customerId": self.active["customer_id"]})
        assert sync_payment_accounts().outcome == "succeeded"
        return account["paymentAccountId"]

    def _new_customer(self, body: dict):
        self._healthy()
        created = self.sandbox.call("POST", "/customers", body)
        return refresh_customer(customer_id=created["customerId"])

    @functools.cached_property
    def individual(self):
        """A CREATED individual (the API takes KYC changes), mirrored."""
        return self._new_customer(
            {"customerType": "INDIVIDUAL", "email": "kim@example.com", "firstName": "Kim", "lastName": "Lee"}
        )

    @functools.cached_property
    def business(self):
        return self._new_customer({"customerType": "BUSINESS", "email": "ops@acme.test", "businessName": "Acme Ltd"})

    def rule_form(self, **fields) -> dict:
        ends = {"source": self.service_wallet, "destination": self.active["bank"]["paymentAccountId"]}
        return {**rule_post_data(customer_id=self.active["customer_id"], **ends), **fields}

    @functools.cached_property
    def rule(self):
        from payments.models import AutomationRule

        self._healthy()
        response = self.admin.post(reverse("payments-create-automation-rule"), self.rule_form())
        assert response.status_code == 302, response.content.decode()[:2000]
        self.checker.post(response["Location"].rstrip("/") + "/approve")
        return AutomationRule.objects.get()

    @functools.cached_property
    def quote(self):
        from payments.models import Quote

        self._healthy()
        response = self.admin.post(reverse("payments-create-quote"), quote_post_data(self.active))
        assert response.status_code == 302, response.content.decode()[:2000]
        return Quote.objects.get()

    @functools.cached_property
    def transaction(self):
        from payments.models import Transaction

        self._healthy()
        response = self.admin.post(reverse("payments-execute-quote", args=[self.quote.quote_id]), {})
        assert response.status_code == 302
        tx = Transaction.objects.get()
        assert tx.status == "AWAITING_TRANSFER", tx.status
        return tx

    @functools.cached_property
    def large_execute(self):
        """A request to execute a 20,000.00 USD quote, asked by world-admin, waiting for a checker."""
        from payments.models import ApprovalRequest, Quote

        self._healthy()
        response = self.admin.post(reverse("payments-create-quote"), quote_post_data(self.active, amount="20000.00"))
        assert response.status_code == 302, response.content.decode()[:2000]
        quote = Quote.objects.get(quote_id=response["Location"].rstrip("/").split("/")[-1])
        self.admin.post(reverse("payments-execute-quote", args=[quote.quote_id]), {})
        return ApprovalRequest.objects.get(quote=quote)
