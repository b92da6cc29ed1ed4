"""Every write view against an upstream that is down, slow, failing or garbled.

For each POST of the role matrix that calls the Payments API, and each fault mode of
conftest.py: the staff member gets a page (never a 5xx) that says in plain words that the
API failed; the mirror tables are exactly as before; a failure audit event is written where
the view audits; and nothing that could move money or create a record twice was sent twice
(POST /transactions is looked up once after a lost answer, under the quote's own idempotency key).
A "healthy" run of each case proves its body is valid, so that the faults are what failed.
"""

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.apps import apps
from django.urls import reverse

from audit.models import AuditEvent
from mirror.models import WebhookEvent
from tests.factories import WebhookEventFactory
from tests.faulty_api import FAULT_MODES, RETRY_AFTER
from tests.marks import marked
from tests.matrix import MATRIX
from tests.payments.transactions_helpers import quote_post_data
from tests.reliability.world import World

pytestmark = pytest.mark.django_db


# Writes of the matrix that never call the API: local case work only.
NO_API_CALL = {
    "customers-claim-next-case": "assigns the oldest unclaimed case to oneself: mirror only",
    "customers-assign-customer": "case assignment is back-office state, not the API's",
    "customers-add-note": "notes live only in the back-office",
    "customers-decide-customer": "a case decision is the back-office's own record, not the API's",
    "customers-bulk-assign": "case assignment is back-office state, not the API's",
    "customers-record-handout": "records that a hosted link was opened or copied; the link is the mirror's",
    "payments-create-automation-rule": "asks for approval: the rule is written when another admin approves",
    "payments-edit-automation-rule": "asks for approval: the change is written when another admin approves",
    "payments-reject-approval-request": "a request's decision is back-office state",
    "payments-withdraw-approval-request": "a request's decision is back-office state",
    "staff-set-time-zone": "a staff member's own time zone: back-office state",
    "staff-create-staff": "staff are back-office state",
    "staff-change-staff-roles": "staff are back-office state",
    "staff-deactivate-staff": "staff are back-office state",
    "staff-reactivate-staff": "staff are back-office state",
    "staff-reset-staff-mfa": "staff are back-office state",
    "staff-unlock-staff": "staff are back-office state",
    "staff-create-staff-password-link": "staff are back-office state",
    "notifications-read-all": "a member's own notifications: back-office state",
    "notifications-open-notification": "a member's own notifications: back-office state",
    "notifications-preferences": "a member's own choices: back-office state",
    "notifications-list-destinations": "team destinations are back-office state",
    "notifications-change-destination": "team destinations are back-office state",
    "notifications-test-destination": "sends to the team's channel through apprise, never the Payments API",
    "notifications-retry-delivery": "sends to a member or a team's channel, never the Payments API",
    "monitoring-decide-alert": "monitoring is back-office state: rules, lists and alerts",
    "monitoring-hold-alert-account": "asks for a hold: the back-office's own, set when another admin approves",
    "payments-hold-payment-account": "asks for a hold: the back-office's own, set when another admin approves",
    "payments-release-payment-account": "asks for a release: the back-office's own, lifted when another admin approves",
    "monitoring-create-rule": "monitoring is back-office state: rules, lists and alerts",
    "monitoring-edit-rule": "monitoring is back-office state: rules, lists and alerts",
    "monitoring-submit-rule": "monitoring is back-office state: rules, lists and alerts",
    "monitoring-withdraw-rule": "monitoring is back-office state: rules, lists and alerts",
    "monitoring-approve-rule": "monitoring is back-office state: rules, lists and alerts",
    "monitoring-pause-rule": "monitoring is back-office state: rules, lists and alerts",
    "monitoring-resume-rule": "monitoring is back-office state: rules, lists and alerts",
    "monitoring-backtest-rule": "monitoring is back-office state: rules, lists and alerts",
    "monitoring-import-watchlist": "monitoring is back-office state: rules, lists and alerts",
    "monitoring-reimport-watchlist": "monitoring is back-office state: rules, lists and alerts",
}
# Back-office state in the payments app, not the mirror: a failed write may change a request's status.
NOT_MIRROR = {"approvalrequest"}

# Where a page shows a failure: a flash message, a form's alert box, a bulk outcome row.
ERROR_PLACES = [
    re.compile(r'class="msg msg-error">(.*?)</li>', re.S),
    re.compile(r'role="alert">(.*?)</div>', re.S),
    re.compile(r'<span class="badge bad">[^<]*</span>(.*?)</td>', re.S),
]
# Plain words: what happened, in a sentence a staff member understands.
PLAIN_WORDS = re.compile(r"could not be reached|did not answer|cannot read|busy|had an error|refused", re.I)
# What the client knows and staff need not: socket errors, the upstream's own error text, statuses.
INTERNALS = re.compile(r"Errno|Connection refused|timed out|Something broke|nginx|HTTP 500|not JSON")


def shown_errors(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>|\s+", " ", found).strip() for place in ERROR_PLACES for found in place.findall(html)]


@dataclass
class Case:
    role: str
    # (world) -> (url, POST body): makes the records the view needs while the API answers.
    prepare: Callable[[World], tuple[str, dict]]
    # The request this write makes, as (method, part of the path).
    call: tuple[str, str]
    # The audit action of a failure, where the view audits failures.
    audit: str | None
    # Whether the write makes any change locally when it succeeds (a check of the healthy run).
    healthy_status: int = 302


def _create_customer(world):
    body = {"customer_type": "INDIVIDUAL", "email": "new@example.com", "first_name": "New", "last_name": "Person"}
    return reverse("customers-create-customer"), marked(body)


def _refresh_customer(world):
    from customers.models import Customer

    # Not read a moment ago: the refresh is sent.
    Customer.objects.filter(pk=world.individual.pk).update(synced_at=None)
    return reverse("customers-refresh-customer", args=[world.individual.customer_id]), {}


def _edit_kyc(world):
    body = {"legal_first_name": "Kim", "legal_last_name": "Lee", "nationality": "US"}
    return reverse("customers-edit-kyc", args=[world.individual.customer_id]), marked(body)


def _edit_kyb(world):
    body = {
        "persons-TOTAL_FORMS": "0",
        "persons-INITIAL_FORMS": "0",
        "documents-TOTAL_FORMS": "0",
        "documents-INITIAL_FORMS": "0",
        "kyb-legal_business_name": "Acme Ltd",
        "kyb-business_type": "LIMITED_LIABILITY_COMPANY",
        "kyb-registration_country": "GB",
    }
    return reverse("customers-edit-kyb", args=[world.business.customer_id]), marked(body)


def _create_account(world):
    body = {
        "account_type": "SERVICE_CRYPTO_WALLET",
        "customer_id": world.active["customer_id"],
        "nickname": "Ops wallet",
        "chain": "BASE",
    }
    return reverse("payments-create-payment-account"), marked(body)


def _refresh_account(world):
    from payments.models import PaymentAccount

    account = PaymentAccount.objects.get(account_id=world.active["wallet"]["paymentAccountId"])
    return reverse("payments-refresh-payment-account", args=[account.pk]), {}


def _create_quote(world):
    return reverse("payments-create-quote"), quote_post_data(world.active)


def _execute_quote(world):
    return reverse("payments-execute-quote", args=[world.quote.quote_id]), {}


def _approve_execute(world):
    return reverse("payments-approve-approval-request", args=[world.large_execute.pk]), {}


def _refresh_transaction(world):
    return reverse("payments-refresh-transaction", args=[world.transaction.transaction_id]), {}


def _cancel_transaction(world):
    return reverse("payments-cancel-transaction", args=[world.transaction.transaction_id]), {"reason": "asked"}


def _bulk_cancel(world):
    return reverse("payments-bulk-cancel-transactions"), {
        "transactions": [world.transaction.transaction_id],
        "reason": "stale",
    }


def _replay_event(world):
    event = WebhookEventFactory(
        event_id="evt-replayed",
        event_type="customer.update",
        record_id=world.individual.customer_id,
        state=WebhookEvent.State.PROCESSED,
    )
    return reverse("mirror-replay-inbox-event", args=[event.pk]), {}


CASES = {
    "customers-create-customer": Case("compliance", _create_customer, ("POST", "/customers"), "customer.create"),
    "customers-refresh-customer": Case("compliance", _refresh_customer, ("GET", "/customer/"), "customer.refresh"),
    "customers-edit-kyc": Case("compliance", _edit_kyc, ("PATCH", "/customers/"), "customer.update_kyc"),
    "customers-edit-kyb": Case("compliance", _edit_kyb, ("PATCH", "/customers/"), "customer.update_kyb"),
    "payments-create-payment-account": Case(
        "admin", _create_account, ("POST", "/payment-accounts"), "payment_account.create"
    ),
    "payments-refresh-payment-account": Case(
        "admin", _refresh_account, ("GET", "/payment-accounts/"), "payment_account.refresh"
    ),
    "payments-create-quote": Case("operations", _create_quote, ("POST", "/quotes"), "quote.create"),
    "payments-execute-quote": Case("operations", _execute_quote, ("POST", "/transactions"), "quote.execute"),
    "payments-approve-approval-request": Case(
        "operations", _approve_execute, ("POST", "/transactions"), "quote.execute"
    ),
    "payments-refresh-transaction": Case(
        "operations", _refresh_transaction, ("GET", "/transactions/"), "transaction.refresh"
    ),
    "payments-cancel-transaction": Case(
        "operations", _cancel_transaction, ("DELETE", "/transactions/"), "transaction.cancel"
    ),
    "payments-bulk-cancel-transactions": Case(
        "operations", _bulk_cancel, ("DELETE", "/transactions/"), "transaction.cancel", healthy_status=200
    ),
    # The replay's processing fails and says so in the inbox; the event is the record of it.
    "mirror-replay-inbox-event": Case("admin", _replay_event, ("GET", "/customer/"), None),
}


def test_every_write_of_the_role_matrix_is_covered():
    writes = {name for name, access in MATRIX.items() if access.method == "post"}
    assert writes == set(CASES) | set(NO_API_CALL), writes ^ (set(CASES) | set(NO_API_CALL))
    for name, case in CASES.items():
        assert case.role in MATRIX[name].roles, name


def mirror_state(*, execute: bool = False) -> dict[str, tuple[int, str]]:
    """Row count and a hash of every row of every mirror table (customers_*, payments_*).

    `execute`: leave out the quote's bound correlation id. The first execute of a quote fixes
    it before calling the API, on purpose: every retry must send the same body under the
    quote's idempotency key (payments.services.quotes._bind_correlation_id).
    """
    state = {}
    for label in ("customers", "payments"):
        for model in apps.get_app_config(label).get_models():
            if model._meta.model_name in NOT_MIRROR:
                continue
            rows = list(model.objects.order_by("pk").values())
            if execute and model._meta.model_name == "quote":
                for row in rows:
                    row["correlation_id"] = None
            digest = hashlib.sha256(json.dumps(rows, default=str, sort_keys=True).encode()).hexdigest()
            state[model._meta.db_table] = (len(rows), digest)
    return state


@pytest.fixture
def world(faulty_upstream, make_staff):
    return World(faulty_upstream, make_staff)


def _post(client, url, data, django_capture_on_commit_callbacks):
    # The replay starts its task on commit: run it, as the server would after the response.
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, data)
    page = client.get(response["Location"]) if response.status_code == 302 else response
    return response, page.content.decode()


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_write_works_while_the_api_answers(
    name, world, faulty_upstream, client_as, django_capture_on_commit_callbacks
):
    case = CASES[name]
    url, data = case.prepare(world)
    before = mirror_state()
    client = client_as(case.role)
    faulty_upstream.fail(None)
    response, html = _post(client, url, data, django_capture_on_commit_callbacks)
    assert response.status_code == case.healthy_status, html[:3000]
    method, path = case.call
    assert faulty_upstream.sent(method, path), [(r.method, r.url.path) for r in faulty_upstream.requests]
    if name != "mirror-replay-inbox-event":
        assert mirror_state() != before, "a successful write changes the mirror"
    assert not AuditEvent.objects.filter(outcome="failure").exists()


@pytest.mark.parametrize("mode", FAULT_MODES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_failing_api_changes_nothing_and_says_so(
    name, mode, world, faulty_upstream, client_as, django_capture_on_commit_callbacks
):
    case = CASES[name]
    url, data = case.prepare(world)
    client = client_as(case.role)
    executes = name in ("payments-execute-quote", "payments-approve-approval-request")
    before = mirror_state(execute=executes)
    audits_before = set(AuditEvent.objects.values_list("pk", flat=True))

    faulty_upstream.fail(mode)
    response, html = _post(client, url, data, django_capture_on_commit_callbacks)

    # A page for a person, not a server error, and no internals.
    assert response.status_code < 500
    assert response.status_code in (200, 302), response.status_code
    assert "Traceback" not in html and faulty_upstream.sandbox.plain_key not in html
    assert "<h1>500 Internal Server Error" not in html
    if name == "mirror-replay-inbox-event":
        event = WebhookEvent.objects.get(event_id="evt-replayed")
        assert event.state == WebhookEvent.State.FAILED and event.last_error
    else:
        # (The inbox page above shows an event's recorded error on purpose: it is the admins' log.)
        found = INTERNALS.search(html)
        assert not found, html[max(0, found.start() - 300) : found.end() + 100]
        errors = shown_errors(html)
        assert any("Payments API" in error and PLAIN_WORDS.search(error) for error in errors), (
            errors or html[html.find("<main") :][:3000]
        )

    # The mirror is exactly as it was.
    assert mirror_state(execute=executes) == before

    # Audited as a failure where the view audits.
    new_audits = AuditEvent.objects.exclude(pk__in=audits_before)
    if case.audit:
        assert new_audits.filter(action=case.audit, outcome="failure").count() == 1, list(new_audits.values())
    # (An approval is a decision, recorded before the write it allows is tried.)
    assert (
        not new_audits.filter(outcome="success")
        .exclude(action__in=["webhook_event.replay", "approval.approve"])
        .exists()
    )

    # Nothing that could do something twice was sent twice.
    method, path = case.call
    sent = faulty_upstream.sent(method, path)
    assert sent, "the fault must be met by a real call"
    retried = method in ("GET", "DELETE")
    if (method, path) == ("POST", "/transactions"):
        # One try; when its answer is lost, one look under the same key (upstream.write_through).
        assert len(sent) == (1 if mode in ("down", "429") else 2), mode
    elif not retried or mode == "malformed":
        assert len(sent) == 1, [(r.method, r.url.path) for r in faulty_upstream.requests]
    else:
        assert len(sent) == 3  # the first try and two retries, then the staff member is told
    if (method, path) == ("POST", "/transactions"):
        keys = {request.headers.get("x-idempotency-key") for request in sent}
        owner = world.large_execute if name == "payments-approve-approval-request" else world.quote
        assert keys == {str(owner.idempotency_key)}
    for request in faulty_upstream.requests:
        if request.method in ("POST", "PATCH", "PUT") and request.url.path.rstrip("/") != "/sandbox/transactions":
            same = [r for r in faulty_upstream.requests if (r.method, r.url.path) == (request.method, request.url.path)]
            assert len(same) == 1, f"{request.method} {request.url.path} was sent {len(same)} times"
    # A 429's Retry-After is what the client waited before each retry.
    if mode == "429":
        assert faulty_upstream.sleeps == [RETRY_AFTER] * (len(sent) - 1)
