"""The sandbox clock drives time: expiry, processing, the failure rule, the deposit page,
transaction.update events and automation rules that fire on their own.

On-commit work (the clock helper's catch-up, the threshold check after a balance change) runs
only inside django_capture_on_commit_callbacks(execute=True): pytest-django's transaction never
commits.
"""

import datetime as dt
import uuid

import pytest
from celery import current_app
from django.test import Client

from sandbox import clock, tasks
from sandbox.models import AutomationRule, Delivery, Event, Transaction
from sandbox.services import rules as rules_service
from sandbox.services import transactions as tx_service

from .conftest import JUST_BEFORE, advance_to, assert_error, offramp_quote
from .test_automation_rules import rule_body

DELAY = tx_service.DEFAULT_PROCESSING_DELAY_SECONDS


def create(api, quote_id, **body):
    return api.post("/transactions", {"quoteId": quote_id, **body}, HTTP_X_IDEMPOTENCY_KEY=str(uuid.uuid4()))


def parse(ts: str) -> dt.datetime:
    return dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))


def status(tx_id) -> str:
    """The stored status, without a read through the API (which would apply due steps)."""
    return Transaction.objects.values_list("status", flat=True).get(pk=tx_id)


def balance(api, account_id, **params):
    return api.get(f"/payment-accounts/{account_id}/balance", params).json()["balance"]


def deposit_link(api, tx_id) -> str:
    response = api.post(f"/test-helpers/transactions/{tx_id}/deposit-link")
    assert response.status_code == 200, response.json()
    return response.json()["depositFormLink"]


def deposit_path(api, tx_id) -> str:
    return "/" + deposit_link(api, tx_id).split("://", 1)[1].split("/", 1)[1]


@pytest.fixture
def awaiting(api, onramp):
    """An onramp (ACH USD 100.00 -> BASE USDC) waiting for the customer's transfer."""
    tx = create(api, onramp["quote"]()["quoteId"]).json()
    assert tx["transactionStatus"] == "AWAITING_TRANSFER"
    return tx


# --- expiry -------------------------------------------------------------------------------------


def test_an_expired_quote_is_refused_after_a_clock_advance(api, onramp, django_capture_on_commit_callbacks):
    quote = onramp["quote"]()
    with django_capture_on_commit_callbacks(execute=True):
        assert api.post("/test-helpers/clock/advance", {"seconds": 5 * 60}).status_code == 200
    message = assert_error(create(api, quote["quoteId"]), 400, "BAD_REQUEST")["message"]
    assert message == f"Quote {quote['quoteId']} expired at {quote['expiresAt']}; create a new quote"


def test_the_periodic_task_expires_without_a_read(api, awaiting):
    tx_id = awaiting["transactionId"]
    expires = parse(awaiting["expiresAt"])
    assert expires - parse(awaiting["createdAt"]) == dt.timedelta(minutes=30)
    advance_to(expires - JUST_BEFORE)
    assert tasks.advance_due_transactions.apply().get() == 0
    assert status(tx_id) == "AWAITING_TRANSFER"
    advance_to(expires)
    assert tasks.advance_due_transactions.apply().get() == 1
    assert status(tx_id) == "EXPIRED"
    stored = Transaction.objects.get(pk=tx_id)
    assert tx_service.transaction_body(stored)["updatedAt"] == awaiting["expiresAt"]
    # Idempotent: nothing is left to do.
    assert tasks.advance_due_transactions.apply().get() == 0


def test_the_clock_helper_expires_at_once(api, awaiting, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/test-helpers/clock/advance", {"seconds": 30 * 60})
    assert response.status_code == 200
    assert status(awaiting["transactionId"]) == "EXPIRED"


def test_a_read_still_expires_lazily(api, awaiting):
    clock.advance(30 * 60)
    assert api.get(f"/transactions/{awaiting['transactionId']}").json()["transactionStatus"] == "EXPIRED"
    assert status(awaiting["transactionId"]) == "EXPIRED"


# --- processing ---------------------------------------------------------------------------------


def test_a_deposit_processes_then_completes_after_the_delay(api, onramp, awaiting):
    tx_id, wallet = awaiting["transactionId"], onramp["wallet"]["paymentAccountId"]
    client = Client()
    assert client.post(deposit_path(api, tx_id)).status_code == 302
    processing = api.get(f"/transactions/{tx_id}").json()
    assert processing["transactionStatus"] == "PROCESSING"
    assert "expiresAt" not in processing and processing["source"]["sourceReferenceId"].startswith("SBXREF")
    due = Transaction.objects.get(pk=tx_id).due_at
    assert due == parse(processing["updatedAt"]) + dt.timedelta(seconds=DELAY)
    assert balance(api, wallet) == "0.000000"

    advance_to(due - JUST_BEFORE)
    assert tasks.advance_due_transactions.apply().get() == 0
    assert status(tx_id) == "PROCESSING"
    advance_to(due)
    assert tasks.advance_due_transactions.apply().get() == 1
    completed = api.get(f"/transactions/{tx_id}").json()
    assert completed["transactionStatus"] == "COMPLETED"
    assert completed["destination"]["destinationReferenceId"].startswith("0x")
    assert parse(completed["updatedAt"]) == due
    assert balance(api, wallet) == "99.250000"
    # A second run, a late task and a read change nothing: the ledger moved once.
    assert tasks.advance_due_transactions.apply().get() == 0
    assert tasks.complete_transaction.apply(args=[tx_id]).get() == "not-due"
    assert balance(api, wallet) == "99.250000"


def test_the_processing_delay_is_a_setting(api, awaiting, settings):
    settings.SANDBOX_PROCESSING_DELAY_SECONDS = 60
    Client().post(deposit_path(api, awaiting["transactionId"]))
    clock.advance(DELAY)
    assert api.get(f"/transactions/{awaiting['transactionId']}").json()["transactionStatus"] == "PROCESSING"
    clock.advance(60 - DELAY)
    assert api.get(f"/transactions/{awaiting['transactionId']}").json()["transactionStatus"] == "COMPLETED"


def test_a_funded_offramp_completes_after_the_delay(api, onramp, make_account, django_capture_on_commit_callbacks):
    wallet = make_account(onramp["customer_id"], "service_wallet")["paymentAccountId"]
    api.post(f"/test-helpers/payment-accounts/{wallet}/fund", {"currency": "USDC", "amount": "25"})
    quote = offramp_quote(api, onramp, wallet, "20.000000")
    tx = create(api, quote["quoteId"]).json()
    assert tx["transactionStatus"] == "PROCESSING"
    with django_capture_on_commit_callbacks(execute=True):
        api.post("/test-helpers/clock/advance", {"seconds": DELAY})
    assert status(tx["transactionId"]) == "COMPLETED"
    assert balance(api, onramp["bank"]["paymentAccountId"]) == quote["destinationAmount"]
    assert balance(api, wallet, currency="USDC") == "5.000000"


def test_cents_of_13_fail_the_transaction(api, onramp):
    quote = onramp["quote"](source={"sourceAmount": "100.13"})
    tx_id = create(api, quote["quoteId"]).json()["transactionId"]
    Client().post(deposit_path(api, tx_id))
    clock.advance(DELAY)
    assert tasks.advance_due_transactions.apply().get() == 1
    failed = api.get(f"/transactions/{tx_id}").json()
    assert failed["transactionStatus"] == "FAILED"
    assert "destinationReferenceId" not in failed["destination"]
    assert balance(api, onramp["wallet"]["paymentAccountId"]) == "0.000000"


def test_a_failed_offramp_refunds_the_service_wallet(api, onramp, make_account):
    wallet = make_account(onramp["customer_id"], "service_wallet")["paymentAccountId"]
    api.post(f"/test-helpers/payment-accounts/{wallet}/fund", {"currency": "USDC", "amount": "30"})
    tx = create(api, offramp_quote(api, onramp, wallet, "20.130000")["quoteId"]).json()
    assert tx["transactionStatus"] == "PROCESSING"
    assert balance(api, wallet, currency="USDC") == "9.870000"
    clock.advance(DELAY)
    assert api.get(f"/transactions/{tx['transactionId']}").json()["transactionStatus"] == "FAILED"
    assert balance(api, wallet, currency="USDC") == "30.000000"
    assert balance(api, onramp["bank"]["paymentAccountId"]) == "0.00"


def test_two_runners_settle_once(api, onramp, awaiting):
    tx_id = awaiting["transactionId"]
    Client().post(deposit_path(api, tx_id))
    clock.advance(DELAY)
    first = tx_service.transaction_settle(transaction_id=tx_id)
    assert first.status == "COMPLETED"
    assert tx_service.transaction_settle(transaction_id=tx_id) is None
    assert tx_service.transactions_advance_due() == 0
    assert balance(api, onramp["wallet"]["paymentAccountId"]) == "99.250000"


# --- the deposit page ---------------------------------------------------------------------------


def test_the_deposit_page_shows_the_instructions(api, awaiting):
    link = deposit_link(api, awaiting["transactionId"])
    assert link.startswith("http://testserver/sandbox/forms/deposits/")
    page = Client().get(deposit_path(api, awaiting["transactionId"]))
    assert page.status_code == 200
    html = page.content.decode()
    instructions = awaiting["transferInstructions"]
    for value in (
        instructions["transferBankAccountNumber"],
        instructions["transferRoutingNumber"],
        instructions["transferMessage"],
        "100.00 USD",
        "Simulate the deposit",
    ):
        assert value in html
    assert "<script" not in html and "style=" not in html
    # The token is the capability: no CSRF token is needed to use it.
    page = Client(enforce_csrf_checks=True).post(deposit_path(api, awaiting["transactionId"]), follow=True)
    assert page.status_code == 200
    assert "The deposit was received" in page.content.decode()
    assert status(awaiting["transactionId"]) == "PROCESSING"


def test_a_crypto_deposit_into_a_service_wallet(api, onramp, make_account):
    wallet = make_account(onramp["customer_id"], "service_wallet")
    wallet_id = wallet["paymentAccountId"]
    tx = create(api, offramp_quote(api, onramp, wallet_id, "20.000000")["quoteId"]).json()
    assert tx["transactionStatus"] == "AWAITING_TRANSFER"
    html = Client().get(deposit_path(api, tx["transactionId"])).content.decode()
    assert wallet["serviceCryptoWallet"]["address"]["address"] in html and "20.000000" in html
    assert Client().post(deposit_path(api, tx["transactionId"])).status_code == 302
    # The deposit landed on the wallet and was taken at once.
    assert balance(api, wallet_id, currency="USDC") == "0.000000"
    clock.advance(DELAY)
    assert api.get(f"/transactions/{tx['transactionId']}").json()["transactionStatus"] == "COMPLETED"


@pytest.mark.parametrize("token", ["nonsense", f"{uuid.uuid4()}:abc", ""])
def test_a_bad_token_is_not_found(token):
    response = Client().get(f"/sandbox/forms/deposits/{token}")
    assert response.status_code == 404


def test_a_signature_is_bound_to_its_transaction(api, onramp, awaiting):
    other = create(api, onramp["quote"]()["quoteId"]).json()["transactionId"]
    signature = deposit_path(api, awaiting["transactionId"]).rsplit(":", 1)[1]
    assert Client().get(f"/sandbox/forms/deposits/{other}:{signature}").status_code == 404
    assert Client().post(f"/sandbox/forms/deposits/{other}:{signature}").status_code == 404
    assert status(other) == "AWAITING_TRANSFER"


def test_a_deposit_after_expiry_is_refused(api, awaiting):
    path = deposit_path(api, awaiting["transactionId"])
    clock.advance(30 * 60)
    page = Client().post(path)
    assert page.status_code == 400
    assert f"Transaction {awaiting['transactionId']} is EXPIRED" in page.content.decode()
    assert "Simulate the deposit" not in page.content.decode()
    assert "expired before a deposit arrived" in Client().get(path).content.decode()


def test_the_deposit_link_needs_a_writable_key_of_the_organization(api, api_key, make_api, awaiting):
    tx_id = awaiting["transactionId"]
    assert_error(make_api().post(f"/test-helpers/transactions/{tx_id}/deposit-link"), 403, "FORBIDDEN")
    read_only = make_api(read_only=True, organization_id=api_key[0].organization_id)
    assert_error(read_only.post(f"/test-helpers/transactions/{tx_id}/deposit-link"), 403, "FORBIDDEN")
    assert_error(api.post(f"/test-helpers/transactions/{uuid.uuid4()}/deposit-link"), 404, "NOT_FOUND")


# --- transaction.update -------------------------------------------------------------------------


def test_every_status_change_emits_transaction_update_to_who_asked(api, onramp, make_api):
    everything = api.post("/webhooks", {"url": "https://a.example/hooks"}).json()
    customers = api.post("/webhooks", {"url": "https://b.example/hooks", "events": ["customer.update"]}).json()
    asked = api.post("/webhooks", {"url": "https://c.example/hooks", "events": ["transaction.update"]}).json()
    stranger = make_api()
    stranger.post("/webhooks", {"url": "https://d.example/hooks", "events": ["transaction.update"]})

    tx_id = create(api, onramp["quote"]()["quoteId"]).json()["transactionId"]
    Client().post(deposit_path(api, tx_id))
    clock.advance(DELAY)
    assert tasks.advance_due_transactions.apply().get() == 1

    events = list(Event.objects.filter(event_type="transaction.update").order_by("created_at"))
    assert [e.data["transactionStatus"] for e in events] == ["AWAITING_TRANSFER", "PROCESSING", "COMPLETED"]
    assert events[-1].data == api.get(f"/transactions/{tx_id}").json()
    for event in events:
        assert {str(d.endpoint_id) for d in event.deliveries.all()} == {asked["webhookId"]}
    assert not Delivery.objects.filter(endpoint_id__in=[everything["webhookId"], customers["webhookId"]]).exists()


@pytest.mark.parametrize(
    ("steps", "statuses"),
    [
        (["EXPIRED"], ["AWAITING_TRANSFER", "EXPIRED"]),
        (["CANCEL"], ["AWAITING_TRANSFER", "CANCELLED"]),
        (["PROCESSING", "FAILED"], ["AWAITING_TRANSFER", "PROCESSING", "FAILED"]),
    ],
)
def test_helpers_and_cancel_emit_too(api, awaiting, steps, statuses):
    tx_id = awaiting["transactionId"]
    for step in steps:
        if step == "CANCEL":
            assert api.delete(f"/transactions/{tx_id}").status_code == 200
        else:
            assert api.post(f"/test-helpers/transactions/{tx_id}/advance", {"to": step}).status_code == 200
    events = Event.objects.filter(event_type="transaction.update").order_by("created_at")
    assert [e.data["transactionStatus"] for e in events] == statuses


def test_lazy_expiry_emits_once(api, awaiting):
    clock.advance(30 * 60)
    api.get(f"/transactions/{awaiting['transactionId']}")
    api.get(f"/transactions/{awaiting['transactionId']}")
    tasks.advance_due_transactions.apply()
    events = Event.objects.filter(event_type="transaction.update").order_by("created_at")
    assert [e.data["transactionStatus"] for e in events] == ["AWAITING_TRANSFER", "EXPIRED"]


def test_events_are_delivered_by_the_clock_helper(api, awaiting, receiver, django_capture_on_commit_callbacks):
    api.post("/webhooks", {"url": "https://c.example/hooks", "events": ["transaction.update"]})
    with django_capture_on_commit_callbacks(execute=True):
        api.post("/test-helpers/clock/advance", {"seconds": 30 * 60})
    assert [r.url.host for r in receiver.requests] == ["c.example"]
    assert b'"transactionStatus":"EXPIRED"' in receiver.requests[0].content


# --- automation rules ---------------------------------------------------------------------------


@pytest.fixture
def setup(onramp, make_account):
    """The onramp customer plus a SERVICE wallet on BASE."""
    return {**onramp, "service": make_account(onramp["customer_id"], "service_wallet")}


def fired_transactions(rule_id):
    return Transaction.objects.filter(correlation_id=f"automation-rule:{rule_id}")


def test_a_threshold_rule_fires_right_after_the_fund(api, setup, django_capture_on_commit_callbacks):
    rule = api.post("/automation-rules", rule_body(setup)).json()
    wallet = setup["service"]["paymentAccountId"]
    with django_capture_on_commit_callbacks(execute=True):
        api.post(f"/test-helpers/payment-accounts/{wallet}/fund", {"currency": "USDC", "amount": "160"})
    [tx] = fired_transactions(rule["id"])
    assert tx.status == "PROCESSING"
    assert balance(api, wallet, currency="USDC") == "110.000000"
    # Still above the threshold: the periodic task and the helper leave it alone.
    assert tasks.fire_due_automation_rules.apply().get() == 0
    assert api.post("/test-helpers/automation-rules/run").json()["fired"] == []
    assert fired_transactions(rule["id"]).count() == 1


def test_a_threshold_rule_fires_after_a_completion_credit(api, setup, django_capture_on_commit_callbacks):
    """An onramp into the service wallet completes; the credit reaches the rule's threshold."""
    wallet = setup["service"]["paymentAccountId"]
    rule = api.post("/automation-rules", rule_body(setup, {"thresholdAmount": "90"})).json()
    quote = setup["quote"](destination={"destinationPaymentAccountId": wallet})
    tx_id = create(api, quote["quoteId"]).json()["transactionId"]
    Client().post(deposit_path(api, tx_id))
    with django_capture_on_commit_callbacks(execute=True):
        api.post("/test-helpers/clock/advance", {"seconds": DELAY})
    assert status(tx_id) == "COMPLETED"
    [fired] = fired_transactions(rule["id"])
    assert fired.status == "PROCESSING"
    assert balance(api, wallet, currency="USDC") == "49.250000"


def test_the_periodic_task_checks_thresholds_too(api, setup):
    """A balance change whose check never ran (no broker, say) is caught by the periodic task."""
    rule = api.post("/automation-rules", rule_body(setup)).json()
    wallet = setup["service"]["paymentAccountId"]
    api.post(f"/test-helpers/payment-accounts/{wallet}/fund", {"currency": "USDC", "amount": "160"})
    assert fired_transactions(rule["id"]).count() == 0
    assert tasks.fire_due_automation_rules.apply().get() == 1
    assert tasks.fire_due_automation_rules.apply().get() == 0
    assert fired_transactions(rule["id"]).count() == 1


def cron_rule(api, setup, schedule="0 * * * *"):
    body = rule_body(setup, {"cronSchedule": schedule})
    body["transactionTemplate"]["source"]["sourcePaymentAccountId"] = setup["wallet"]["paymentAccountId"]
    return api.post("/automation-rules", body).json()


def test_a_cron_rule_fires_once_per_firing(api, setup):
    rule = cron_rule(api, setup)
    stored = AutomationRule.objects.get(pk=rule["id"])
    first_run = stored.next_run_at
    assert first_run > clock.now() and first_run.minute == 0
    assert tasks.fire_due_automation_rules.apply().get() == 0
    clock.advance((first_run - clock.now()).total_seconds())
    assert tasks.fire_due_automation_rules.apply().get() == 1
    assert tasks.fire_due_automation_rules.apply().get() == 0
    assert fired_transactions(rule["id"]).count() == 1
    stored.refresh_from_db()
    assert stored.next_run_at == first_run + dt.timedelta(hours=1)
    clock.advance(3600)
    assert tasks.fire_due_automation_rules.apply().get() == 1
    assert fired_transactions(rule["id"]).count() == 2


def test_a_jump_over_many_runs_fires_once(api, setup, django_capture_on_commit_callbacks):
    rule = cron_rule(api, setup)
    with django_capture_on_commit_callbacks(execute=True):
        api.post("/test-helpers/clock/advance", {"seconds": 5 * 3600 + 60})
    assert fired_transactions(rule["id"]).count() == 1
    next_run = AutomationRule.objects.get(pk=rule["id"]).next_run_at
    assert clock.now() < next_run <= clock.now() + dt.timedelta(hours=1)
    assert api.post("/test-helpers/automation-rules/run").json()["fired"] == []


def test_two_runners_that_read_the_same_due_rule_fire_it_once(api, setup):
    cron = cron_rule(api, setup)
    threshold = api.post("/automation-rules", rule_body(setup)).json()
    api.post(
        f"/test-helpers/payment-accounts/{setup['service']['paymentAccountId']}/fund",
        {"currency": "USDC", "amount": "160"},
    )
    clock.advance(3600)
    now = clock.now()
    # Both runners read the rules before either claims them (as two concurrent beats would).
    first = {str(r.pk): r for r in AutomationRule.objects.all()}
    second = {str(r.pk): r for r in AutomationRule.objects.all()}
    for rule_id in (cron["id"], threshold["id"]):
        assert rules_service._claim_firing(first[rule_id], now) is True
        assert rules_service._claim_firing(second[rule_id], now) is False
    # And whole runs after one another: the periodic task, then the helper.
    AutomationRule.objects.filter(pk=cron["id"]).update(next_run_at=now)
    AutomationRule.objects.filter(pk=threshold["id"]).update(threshold_armed=True)
    assert tasks.fire_due_automation_rules.apply().get() == 2
    assert api.post("/test-helpers/automation-rules/run").json() == {"fired": [], "failed": []}
    assert fired_transactions(cron["id"]).count() == 1
    assert fired_transactions(threshold["id"]).count() == 1


def test_a_periodic_firing_acts_with_the_organizations_key(api, api_key, make_api, setup):
    make_api(read_only=True, organization_id=api_key[0].organization_id)
    rule = cron_rule(api, setup)
    clock.advance(3600)
    tasks.fire_due_automation_rules.apply()
    [tx] = fired_transactions(rule["id"])
    assert tx.quote.api_key_id == api_key[0].pk


def test_the_tasks_module_registers_the_review_tasks():
    assert "sandbox.complete_due_reviews" in current_app.tasks
    assert "sandbox.tasks.advance_due_transactions" in current_app.tasks
    assert "sandbox.tasks.fire_due_automation_rules" in current_app.tasks
