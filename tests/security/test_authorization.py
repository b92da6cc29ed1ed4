"""Authorization on the server: ids from the browser are checked against the mirror and the
customer in the form before any API call, every write checks the role, and every POST needs
its CSRF token (htmx sends it from `hx-headers` on <body>)."""

import json
import re

import httpx
import pytest
from django.core.wsgi import get_wsgi_application
from django.test import Client
from django.urls import reverse

from customers.models import Customer
from payments.models import AutomationRule, PaymentAccount, Quote
from paymentsapi import PaymentsApiClient
from tests.conftest import ROLES, authenticated_now
from tests.factories import TransactionFactory
from tests.payments.transactions_helpers import sandbox_customer
from tests.security.common import GETS, MATRIX, POSTS, allowed_role, mirror_fingerprint, url_of
from upstream.client import override_client

pytestmark = pytest.mark.django_db


class Recording(httpx.BaseTransport):
    """Forwards to the in-process sandbox and keeps every request the back-office sent."""

    def __init__(self):
        self.inner = httpx.WSGITransport(app=get_wsgi_application())
        self.requests: list[httpx.Request] = []

    def handle_request(self, request):
        request.read()
        self.requests.append(request)
        return self.inner.handle_request(request)

    def mentions(self, text: str) -> list[str]:
        return [f"{r.method} {r.url}" for r in self.requests if text in str(r.url) or text in r.content.decode()]


@pytest.fixture
def sent(upstream):
    """The requests the back-office sends to the API during the test."""
    transport = Recording()
    client = PaymentsApiClient(api_key=upstream.plain_key, base_url="http://testserver/sandbox", transport=transport)
    with override_client(client):
        yield transport


@pytest.fixture
def two_customers(upstream):
    """Customers A and B of the organization, ACTIVE, each with a bank account and a wallet."""
    a = sandbox_customer(upstream, name="Ada")
    b = sandbox_customer(upstream, name="Bob")
    ids = lambda c: {  # noqa: E731
        "customer_id": c["customer_id"],
        "bank": c["bank"]["paymentAccountId"],
        "wallet": c["wallet"]["paymentAccountId"],
    }
    return ids(a), ids(b)


def quote_body(a, **fields):
    return {
        "customer": a["customer_id"],
        "source_account": a["bank"],
        "source_method": "ACH",
        "source_currency": "USD",
        "destination_account": a["wallet"],
        "destination_method": "BASE",
        "destination_currency": "USDC",
        "amount": "100.00",
        **fields,
    }


def rule_body(a, **fields):
    return {
        "name": "Sweep",
        "customer_id": a["customer_id"],
        "source_account_id": a["wallet"],
        "source_payment_method": "BASE",
        "source_currency": "USDC",
        "destination_account_id": a["bank"],
        "destination_payment_method": "ACH",
        "destination_currency": "USD",
        "amount": "50.00",
        "trigger_type": "CRON",
        "cron_schedule": "0 9 * * 1-5",
        **fields,
    }


def errors_of(response) -> dict:
    return {name: [str(e) for e in errs] for name, errs in response.context["form"].errors.items()}


# --- Another customer's ids in hidden fields ------------------------------------------------


def test_a_quote_refuses_another_customers_accounts(client_as, two_customers, sent):
    a, b = two_customers
    client = client_as("operations")
    url = reverse("payments-create-quote")
    for fields, field in (
        ({"destination_account": b["wallet"]}, "destination_account"),
        ({"source_account": b["bank"]}, "source_account"),
        ({"destination_account": "no-such-account"}, "destination_account"),
    ):
        value = next(iter(fields.values()))
        response = client.post(url, quote_body(a, **fields))
        assert response.status_code == 200
        assert errors_of(response)[field] == [f"Select a valid choice. {value} is not one of the available choices."]
    assert sent.requests == []
    assert not Quote.objects.exists()
    # The same quote with A's own accounts does reach the API: the refusal above is the check.
    assert client.post(url, quote_body(a)).status_code == 302
    assert sent.mentions(a["customer_id"]) and not sent.mentions(b["customer_id"])


def test_a_quote_for_an_unknown_or_inactive_customer_is_refused(client_as, two_customers, sent):
    a, _ = two_customers
    Customer.objects.filter(customer_id=a["customer_id"]).update(status="REJECTED")
    client = client_as("operations")
    for customer_id in ("no-such-customer", a["customer_id"], "' OR 1=1 --"):
        response = client.post(reverse("payments-create-quote"), quote_body(a, customer=customer_id), follow=True)
        assert "Choose an active customer first." in response.content.decode()
    assert sent.requests == []


def test_a_rule_refuses_ids_that_are_not_its_customers(client_as, two_customers, sent):
    a, b = two_customers
    client = client_as("admin")
    url = reverse("payments-create-automation-rule")
    cases = [
        ({"source_account_id": b["wallet"]}, "source_account_id", "This account belongs to another customer"),
        ({"destination_account_id": b["bank"]}, "destination_account_id", "This account belongs to another customer"),
        ({"destination_account_id": "acc-nowhere"}, "destination_account_id", "No payment account with this id"),
        ({"customer_id": "cus-nowhere"}, "customer_id", "No customer with this id in the back-office"),
    ]
    for fields, field, message in cases:
        response = client.post(url, rule_body(a, **fields))
        assert response.status_code == 200
        assert errors_of(response)[field][0].startswith(message), fields
    assert sent.requests == []
    assert not AutomationRule.objects.exists()


@pytest.fixture
def second_admin(make_staff) -> Client:
    """The checker who approves what the test's admin asks for (four-eyes)."""
    client = Client()
    client.force_login(make_staff("admin", "second-admin"))
    authenticated_now(client)
    return client


def _approved(checker: Client, response) -> None:
    assert response.status_code == 302, response.content.decode()[:2000]
    checker.post(response["Location"].rstrip("/") + "/approve")


def test_a_third_partys_account_of_the_organization_may_be_a_rules_destination(
    client_as, second_admin, two_customers, sent
):
    a, b = two_customers
    PaymentAccount.objects.filter(account_id=b["bank"]).update(is_third_party=True)
    response = client_as("admin").post(
        reverse("payments-create-automation-rule"), rule_body(a, destination_account_id=b["bank"])
    )
    # Past the back-office's check: the API decides, once approved (and the sandbox's mirror of the flag differs).
    assert "destination_account_id" not in (response.context["form"].errors if response.context else {})
    assert sent.requests == []
    _approved(second_admin, response)
    assert sent.mentions(b["bank"])


def test_editing_a_rule_cannot_move_it_to_another_customer(client_as, second_admin, two_customers, sent):
    a, b = two_customers
    client = client_as("admin")
    _approved(second_admin, client.post(reverse("payments-create-automation-rule"), rule_body(a)))
    rule = AutomationRule.objects.get()
    sent.requests.clear()
    url = reverse("payments-edit-automation-rule", args=[rule.pk])
    response = client.post(url, rule_body(a, customer_id=b["customer_id"], source_account_id=b["wallet"]))
    assert errors_of(response)["source_account_id"][0].startswith("This account belongs to another customer")
    assert sent.requests == []
    # The customer field is disabled: what is posted for it is ignored, the rule's own is sent.
    _approved(second_admin, client.post(url, rule_body(a, customer_id=b["customer_id"], name="Renamed")))
    assert sent.mentions(a["customer_id"]) and not sent.mentions(b["customer_id"])


def test_a_payment_account_for_an_unknown_customer_is_refused(client_as, sent):
    response = client_as("admin").post(
        reverse("payments-create-payment-account"),
        {"account_type": "SERVICE_CRYPTO_WALLET", "customer_id": "cus-of-another-org", "chain": "BASE"},
    )
    assert errors_of(response)["customer_id"] == ["No customer with this id in the back-office; sync customers first."]
    assert sent.requests == []


def test_bulk_cancel_refuses_unknown_transaction_ids(client_as, sent):
    known = TransactionFactory()
    response = client_as("operations").post(
        reverse("payments-bulk-cancel-transactions"),
        {"transactions": [known.transaction_id, "tx-of-someone-else"], "reason": "stale"},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Nothing was cancelled: tx-of-someone-else is not a transaction of the back-office" in html
    assert "select at least one" not in html
    assert sent.requests == []


def test_a_case_is_assigned_only_to_colleagues_who_work_on_customers(client_as, make_staff):
    from tests.factories import CustomerFactory

    customer = CustomerFactory()
    operator = make_staff("operations", username="an-operator")
    client = client_as("compliance")
    for assignee in (operator.pk, 999_999, "x"):
        response = client.post(
            reverse("customers-assign-customer", args=[customer.customer_id]), {"assignee": assignee}, follow=True
        )
        assert "Choose a colleague who works on customers." in response.content.decode()
    customer.refresh_from_db()
    assert customer.assignee_id is None


# Every URL that takes an id: an id the mirror does not have is a 404, and no API call.
UNKNOWN_IDS = {
    "customers-view-customer": {"customer_id": "cus-nowhere"},
    "customers-view-customer-live": {"customer_id": "cus-nowhere"},
    "customers-refresh-customer": {"customer_id": "cus-nowhere"},
    "customers-assign-customer": {"customer_id": "cus-nowhere"},
    "customers-add-note": {"customer_id": "cus-nowhere"},
    "customers-decide-customer": {"customer_id": "cus-nowhere"},
    "customers-record-handout": {"customer_id": "cus-nowhere"},
    "customers-edit-kyc": {"customer_id": "cus-nowhere"},
    "customers-edit-kyb": {"customer_id": "cus-nowhere"},
    "customers-add-row": {"customer_id": "cus-nowhere", "kind": "persons"},
    "customers-remove-row": {"customer_id": "cus-nowhere"},
    "payments-view-payment-account": {"pk": 999_999},
    "payments-view-payment-account-balances": {"pk": 999_999},
    "payments-refresh-payment-account": {"pk": 999_999},
    "payments-hold-payment-account": {"pk": 999_999},
    "payments-release-payment-account": {"pk": 999_999},
    "payments-edit-automation-rule": {"pk": 999_999},
    "payments-view-automation-rule": {"pk": 999_999},
    "payments-view-quote": {"quote_id": "quo-nowhere"},
    "payments-execute-quote": {"quote_id": "quo-nowhere"},
    "payments-view-transaction": {"transaction_id": "tx-nowhere"},
    "payments-view-transaction-live": {"transaction_id": "tx-nowhere"},
    "payments-refresh-transaction": {"transaction_id": "tx-nowhere"},
    "payments-cancel-transaction": {"transaction_id": "tx-nowhere"},
    "payments-view-approval-request": {"pk": 999_999},
    "payments-approve-approval-request": {"pk": 999_999},
    "payments-reject-approval-request": {"pk": 999_999},
    "payments-withdraw-approval-request": {"pk": 999_999},
    "mirror-replay-inbox-event": {"pk": 999_999},
    "staff-view-staff": {"pk": 999_999},
    "staff-change-staff-roles": {"pk": 999_999},
    "staff-deactivate-staff": {"pk": 999_999},
    "staff-reactivate-staff": {"pk": 999_999},
    "staff-reset-staff-mfa": {"pk": 999_999},
    "staff-unlock-staff": {"pk": 999_999},
    "staff-create-staff-password-link": {"pk": 999_999},
    "notifications-open-notification": {"pk": 999_999},
    "notifications-change-destination": {"pk": 999_999},
    "notifications-test-destination": {"pk": 999_999},
    "notifications-retry-delivery": {"pk": 999_999},
    "monitoring-view-alert": {"pk": 999_999},
    "monitoring-decide-alert": {"pk": 999_999},
    "monitoring-hold-alert-account": {"pk": 999_999, "account_pk": 999_999},
    "monitoring-view-rule": {"pk": 999_999},
    "monitoring-edit-rule": {"pk": 999_999},
    "monitoring-submit-rule": {"pk": 999_999},
    "monitoring-withdraw-rule": {"pk": 999_999},
    "monitoring-approve-rule": {"pk": 999_999},
    "monitoring-pause-rule": {"pk": 999_999},
    "monitoring-resume-rule": {"pk": 999_999},
    "monitoring-backtest-rule": {"pk": 999_999},
    "monitoring-view-backtest": {"pk": 999_999},
    "monitoring-view-watchlist": {"pk": 999_999},
    "monitoring-reimport-watchlist": {"pk": 999_999},
}


def test_every_url_with_an_id_is_listed():
    assert {name for name, access in MATRIX.items() if access.kwargs} == set(UNKNOWN_IDS)


@pytest.mark.parametrize("name", sorted(UNKNOWN_IDS))
def test_an_unknown_id_in_the_url_is_a_404_without_an_api_call(client_as, sent, name):
    access = MATRIX[name]
    client = client_as(allowed_role(name))
    data = access.data() if access.data else {}
    response = getattr(client, access.method)(reverse(name, kwargs=UNKNOWN_IDS[name]), data)
    assert response.status_code == 404
    assert "There is no page at this address." in response.content.decode()
    assert sent.requests == []


# --- Every write checks the role ------------------------------------------------------------


def test_the_matrix_lists_every_write():
    """A URL the matrix tests with GET refuses POST (405): no write hides behind a page."""
    client = Client()
    from django.contrib.auth import get_user_model

    from core.access import sync_role_groups  # noqa: F401 - groups exist from migrations

    user = get_user_model().objects.create_superuser("root", password="x")
    client.force_login(user)
    authenticated_now(client, user)
    for name in GETS:
        response = client.post(url_of(name), {})
        assert response.status_code == 405, (name, response.status_code)


@pytest.mark.parametrize("name", POSTS)
def test_every_write_refuses_the_other_roles_before_doing_anything(client_as, sent, name):
    access = MATRIX[name]
    url = url_of(name)
    data = access.data() if access.data else {}
    for role in [r for r in [*ROLES, None] if r not in access.roles]:
        before = mirror_fingerprint()
        response = client_as(role).post(url, data)
        assert response.status_code == 403, (name, role)
        assert "needs the role" in response.content.decode()
        assert mirror_fingerprint() == before
    assert sent.requests == []


# --- CSRF on every POST, htmx included ------------------------------------------------------


def _token_from_body(client) -> str:
    """The token as htmx sends it: from `hx-headers` on <body> (the cookie is HttpOnly)."""
    html = client.get(reverse("home")).content.decode()
    headers = re.search(r"<body hx-headers='([^']+)'", html).group(1)
    return json.loads(headers)["X-CSRFToken"]


@pytest.mark.parametrize("name", POSTS)
def test_every_post_needs_the_csrf_token(make_staff, upstream, name):
    access = MATRIX[name]
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_staff(allowed_role(name)))
    authenticated_now(client)
    url = url_of(name)
    data = access.data() if access.data else {}
    before = mirror_fingerprint()
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}, {"HTTP_HX_REQUEST": "true", "HTTP_X_CSRFTOKEN": "forged"}):
        response = client.post(url, data, **headers)
        assert response.status_code == 403, (name, headers)
        assert "CSRF" in response.content.decode() or "security token" in response.content.decode()
    assert mirror_fingerprint() == before
    token = _token_from_body(client)
    response = client.post(url, data, HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=token)
    assert response.status_code != 403, name
    assert response.status_code == access.expected_when_allowed or response.status_code < 500
