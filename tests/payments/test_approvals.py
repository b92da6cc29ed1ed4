"""Four-eyes on money: the execute confirmation, requests at or above the threshold, and the
checker's approve, reject and the maker's withdraw, against the sandbox (the `upstream` fixture)."""

import datetime as dt
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from payments.models import ApprovalRequest, Quote, Transaction
from payments.services.approvals import Executed, WaitingForApproval, execute_or_request_approval
from payments.templatetags.tx_display import rate, rate_between
from tests.conftest import signed_in
from tests.payments.transactions_helpers import quote_post_data, sandbox_customer

LARGE = "20000.00"


@pytest.fixture(autouse=True)
def _reviews_wait(settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10 * 366 * 24 * 3600


@pytest.fixture
def setup(upstream):
    return sandbox_customer(upstream)


@pytest.fixture
def maker(make_staff):
    return signed_in(make_staff("operations", "olga"))


@pytest.fixture
def checker(make_staff):
    return signed_in(make_staff("operations", "pavel"))


def make_quote(client, setup, amount=LARGE) -> Quote:
    response = client.post(reverse("payments-create-quote"), quote_post_data(setup, amount=amount))
    assert response.status_code == 302, response.content.decode()[:2000]
    return Quote.objects.get(quote_id=response["Location"].rstrip("/").split("/")[-1])


def ask(client, quote, **data) -> ApprovalRequest:
    response = client.post(reverse("payments-execute-quote", args=[quote.quote_id]), data)
    approval = ApprovalRequest.objects.get(quote=quote)
    assert response["Location"] == reverse("payments-view-approval-request", args=[approval.pk])
    return approval


def approve(client, approval):
    return client.post(reverse("payments-approve-approval-request", args=[approval.pk]), follow=True)


def test_execute_shows_a_confirmation_with_accounts_by_name(maker, setup):
    quote = make_quote(maker, setup, amount="100.00")
    html = maker.get(reverse("payments-execute-quote", args=[quote.quote_id])).content.decode()
    figures = html.split('id="execute-figures"')[1].split("</dl>")[0]
    assert "Ada Lovelace" in figures
    assert "Checking · External bank account · USD · ACH · …6789" in figures
    assert "Base wallet · External crypto wallet · USDC on Base · …abab" in figures
    assert "100.00 USD" in figures and "99.25 USDC" in figures and "service 0.75" in figures
    assert "data-countdown" in figures
    # The rate with the currencies it converts, never a bare "Rate 1".
    assert f"<dt>Rate</dt><dd>1 USD = {rate(quote.exchange_rate)} USDC</dd>" in figures
    assert 'id="approval-needed"' not in html and "Execute: move the money" in html
    assert not Transaction.objects.exists()  # a GET moves nothing
    response = maker.post(reverse("payments-execute-quote", args=[quote.quote_id]), {"correlation_id": ""})
    tx = Transaction.objects.get()
    assert response["Location"] == reverse("payments-view-transaction", args=[tx.transaction_id])
    assert not ApprovalRequest.objects.exists()
    page = maker.get(response["Location"]).content.decode()
    assert "olga <span" in page.split('id="tx-executor"')[1]


def test_the_quote_page_leads_to_the_confirmation_with_the_correlation_id(maker, setup):
    quote = make_quote(maker, setup, amount="100.00")
    html = maker.get(reverse("payments-view-quote", args=[quote.quote_id])).content.decode()
    assert f'method="get" action="{reverse("payments-execute-quote", args=[quote.quote_id])}"' in html
    confirm = maker.get(reverse("payments-execute-quote", args=[quote.quote_id]), {"correlation_id": "order-9"})
    assert 'value="order-9"' in confirm.content.decode()


@pytest.mark.parametrize(("amount", "needs"), [("9999.99", False), ("10000.00", True)])
def test_the_threshold_is_in_usd_and_inclusive(maker, setup, amount, needs):
    quote = make_quote(maker, setup, amount=amount)
    html = maker.get(reverse("payments-execute-quote", args=[quote.quote_id])).content.decode()
    assert ('id="approval-needed"' in html) is needs
    assert ("Ask for approval" in html) is needs


def test_the_execute_call_answers_executed_with_the_transaction(maker, setup, faulty_upstream):
    quote = make_quote(maker, setup, amount="9999.99")
    outcome = execute_or_request_approval(actor=quote.created_by, quote=quote, correlation_id="order-1")
    assert isinstance(outcome, Executed)
    assert outcome.transaction == Transaction.objects.get() and outcome.transaction.correlation_id == "order-1"
    assert not ApprovalRequest.objects.exists()
    # Asked again: the same transaction, without a second call.
    again = execute_or_request_approval(actor=quote.created_by, quote=quote)
    assert isinstance(again, Executed) and again.transaction.pk == outcome.transaction.pk
    assert len(faulty_upstream.sent("POST", "/transactions")) == 1


def test_the_execute_call_answers_waiting_with_the_request(maker, setup, faulty_upstream):
    quote = make_quote(maker, setup, amount="10000.00")
    outcome = execute_or_request_approval(actor=quote.created_by, quote=quote, correlation_id="order-2")
    assert isinstance(outcome, WaitingForApproval)
    assert outcome.approval == ApprovalRequest.objects.get(quote=quote)
    assert (outcome.approval.status, outcome.approval.payload["correlationId"]) == ("pending", "order-2")
    assert not Transaction.objects.exists() and faulty_upstream.sent("POST", "/transactions") == []
    # Asked again while it waits: the same request.
    again = execute_or_request_approval(actor=quote.created_by, quote=quote)
    assert isinstance(again, WaitingForApproval) and again.approval.pk == outcome.approval.pk


def test_a_large_execute_waits_for_a_second_person(maker, checker, setup, faulty_upstream, make_staff):
    quote = make_quote(maker, setup)
    approval = ask(maker, quote, correlation_id="batch-1")
    assert (approval.status, approval.maker.username, approval.kind) == ("pending", "olga", "execute_quote")
    assert approval.approved_destination_amount == quote.destination_amount
    assert approval.payload == {"quoteId": quote.quote_id, "correlationId": "batch-1"}
    assert not Transaction.objects.exists()
    assert faulty_upstream.sent("POST", "/transactions") == []
    # Pressing again finds the same request.
    assert ask(maker, quote).pk == approval.pk
    assert AuditEvent.objects.filter(action="approval.request", target_id=str(approval.pk)).count() == 1

    page = maker.get(reverse("payments-view-approval-request", args=[approval.pk])).content.decode()
    assert "Waiting for approval: another person holding move_money must approve it." in page
    assert "Checking · External bank account · USD · ACH · …6789" in page
    assert 'id="approve-button"' not in page and 'id="withdraw-button"' in page
    # The maker's own approve, posted by hand, is refused.
    refused = approve(maker, approval).content.decode()
    assert "You made this request: another person must approve or reject it." in refused
    approval.refresh_from_db()
    assert approval.status == "pending" and not Transaction.objects.exists()

    listed = checker.get(reverse("payments-list-approval-requests")).content.decode()
    assert f"Execute {LARGE.rstrip('0').rstrip('.')} USD" in listed and "olga" in listed
    response = approve(checker, approval)
    tx = Transaction.objects.get()
    assert response.redirect_chain[-1][0] == reverse("payments-view-transaction", args=[tx.transaction_id])
    assert tx.quote_id == quote.quote_id and tx.correlation_id == "batch-1"
    keys = {r.headers["x-idempotency-key"] for r in faulty_upstream.sent("POST", "/transactions")}
    assert keys == {str(approval.idempotency_key)}
    approval.refresh_from_db()
    assert (approval.status, approval.checker.username, approval.transaction_id) == (
        "executed",
        "pavel",
        tx.transaction_id,
    )
    html = response.content.decode()
    assert "olga" in html.split('id="tx-maker"')[1].split("</dd>")[0]
    assert "pavel" in html.split('id="tx-checker"')[1].split("</dd>")[0]
    event = AuditEvent.objects.get(action="quote.execute", outcome="success")
    assert (event.actor_username, event.details["maker"], event.details["checker"]) == ("pavel", "olga", "pavel")
    assert AuditEvent.objects.filter(action="approval.approve", actor_username="pavel").exists()

    # Approving again (a resend) executes nothing more: it answers with what was done.
    again = approve(checker, approval)
    assert again.redirect_chain[-1][0] == reverse("payments-view-transaction", args=[tx.transaction_id])
    assert len(faulty_upstream.sent("POST", "/transactions")) == 1
    assert AuditEvent.objects.filter(action="quote.execute", outcome="success").count() == 1
    # Another checker is told it is done.
    other = approve(signed_in(make_staff("admin", "rita")), approval).content.decode()
    assert "This request is no longer waiting: it is approved and executed." in other


def test_the_direct_execute_is_refused_above_the_threshold_whatever_is_posted(maker, setup, settings):
    settings.APPROVAL_THRESHOLD_USD = Decimal("50")
    quote = make_quote(maker, setup, amount="100.00")
    ask(maker, quote)
    assert not Transaction.objects.exists()


def test_reject_needs_a_reason_and_the_maker_reads_it(maker, checker, setup):
    approval = ask(maker, make_quote(maker, setup))
    url = reverse("payments-reject-approval-request", args=[approval.pk])
    form = checker.get(url)
    assert form.status_code == 200 and "Reject request" in form.content.decode()
    empty = checker.post(url, {"reason": ""})
    assert empty.status_code == 400 and "This field is required." in empty.content.decode()
    assert maker.post(url, {"reason": "mine"}).status_code == 400  # the maker cannot reject either
    approval.refresh_from_db()
    assert approval.status == "pending"
    response = checker.post(url, {"reason": "Wrong destination wallet"}, follow=True)
    assert "Rejected; olga sees your reason." in response.content.decode()
    page = maker.get(reverse("payments-view-approval-request", args=[approval.pk])).content.decode()
    assert "Wrong destination wallet" in page.split('id="reason"')[1]
    assert "Rejected" in page.split('id="approval-status"')[1]
    assert "it is rejected" in approve(checker, approval).content.decode()
    assert not Transaction.objects.exists()
    event = AuditEvent.objects.get(action="approval.reject")
    assert (event.actor_username, event.details["reason"]) == ("pavel", "Wrong destination wallet")
    # The maker sees who rejected it.
    assert '<dt>Rejected by</dt><dd id="checker">pavel, ' in page


def test_approve_may_carry_a_note_shown_and_audited_and_the_request_reads_approved_and_executed(maker, checker, setup):
    approval = ask(maker, make_quote(maker, setup))
    page = checker.get(reverse("payments-view-approval-request", args=[approval.pk])).content.decode()
    # Each decision in its own form: the reason box is the reject's, the note the approve's.
    approve_form = page.split('id="approve-form"')[1].split("</form>")[0]
    reject_form = page.split('id="reject-form"')[1].split("</form>")[0]
    assert "<legend>Approve</legend>" in approve_form and 'name="note"' in approve_form
    assert 'name="reason"' not in approve_form
    assert "<legend>Reject</legend>" in reject_form and 'name="reason"' in reject_form
    url = reverse("payments-approve-approval-request", args=[approval.pk])
    checker.post(url, {"note": "Checked the wallet with the customer by phone."}, follow=True)
    approval.refresh_from_db()
    assert (approval.status, approval.note) == ("executed", "Checked the wallet with the customer by phone.")
    page = maker.get(reverse("payments-view-approval-request", args=[approval.pk])).content.decode()
    assert 'id="approval-status">Approved and executed</span>' in page
    assert '<dt>Approved by</dt><dd id="checker">pavel, ' in page
    assert 'id="note">Checked the wallet with the customer by phone.</dd>' in page
    event = AuditEvent.objects.get(action="approval.approve")
    assert event.details["note"] == "Checked the wallet with the customer by phone."


def test_a_note_too_long_is_refused_and_nothing_is_approved(maker, checker, setup):
    approval = ask(maker, make_quote(maker, setup))
    url = reverse("payments-approve-approval-request", args=[approval.pk])
    response = checker.post(url, {"note": "x" * 501}, follow=True)
    assert "Not approved:" in response.content.decode()
    approval.refresh_from_db()
    assert (approval.status, approval.note) == ("pending", "")


def test_the_maker_withdraws_and_no_one_else_can(maker, checker, setup):
    approval = ask(maker, make_quote(maker, setup))
    url = reverse("payments-withdraw-approval-request", args=[approval.pk])
    assert "Only the maker of a request may withdraw it." in checker.post(url, follow=True).content.decode()
    assert "Withdrawn: nothing will be done." in maker.post(url, follow=True).content.decode()
    approval.refresh_from_db()
    assert approval.status == "withdrawn"
    assert "it is withdrawn" in approve(checker, approval).content.decode()
    assert not Transaction.objects.exists()
    assert AuditEvent.objects.filter(action="approval.withdraw", actor_username="olga").exists()


def test_roles_without_move_money_read_requests_but_cannot_decide_them(maker, setup, client_as):
    approval = ask(maker, make_quote(maker, setup))
    auditor = client_as("auditor")
    page = auditor.get(reverse("payments-view-approval-request", args=[approval.pk]))
    assert page.status_code == 200 and "Your role cannot approve this kind of request." in page.content.decode()
    assert auditor.post(reverse("payments-approve-approval-request", args=[approval.pk])).status_code == 403
    assert (
        client_as("compliance").post(reverse("payments-approve-approval-request", args=[approval.pk])).status_code
        == 403
    )
    approval.refresh_from_db()
    assert approval.status == "pending"


def test_an_expired_request_cannot_be_approved_and_is_marked_by_the_sweep(maker, checker, setup):
    from payments.tasks import expire_approval_requests

    approval = ask(maker, make_quote(maker, setup))
    ApprovalRequest.objects.filter(pk=approval.pk).update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    assert "This request has expired: the maker must ask again." in approve(checker, approval).content.decode()
    url = reverse("payments-list-approval-requests")
    assert approval.summary not in checker.get(url).content.decode()  # waiting only, by default
    assert approval.summary in checker.get(url, {"status": "expired"}).content.decode()
    assert expire_approval_requests() == 1
    approval.refresh_from_db()
    assert approval.status == "expired"
    assert AuditEvent.objects.get(action="approval.expire").target_id == str(approval.pk)
    assert expire_approval_requests() == 0
    assert not Transaction.objects.exists()


def test_the_requests_expire_after_the_ttl(maker, setup, settings):
    settings.APPROVAL_TTL_HOURS = 2
    approval = ask(maker, make_quote(maker, setup))
    assert dt.timedelta(hours=1, minutes=59) < approval.expires_at - timezone.now() <= dt.timedelta(hours=2)


def test_an_expired_quote_is_requoted_and_executes_within_tolerance(maker, checker, upstream, setup):
    quote = make_quote(maker, setup)
    approval = ask(maker, quote)
    upstream.helper("clock/advance", {"seconds": 301})  # the maker's quote has expired upstream
    Quote.objects.filter(pk=quote.pk).update(expires_at=timezone.now())
    approve(checker, approval)
    approval.refresh_from_db()
    tx = Transaction.objects.get()
    assert approval.status == "executed" and approval.transaction_id == tx.transaction_id
    assert approval.executed_quote_id != quote.quote_id == approval.quote.quote_id
    assert tx.quote_id == approval.executed_quote_id
    assert approval.requoted_destination_amount == approval.approved_destination_amount


def test_an_expired_quote_whose_price_moved_goes_back_to_the_maker(maker, checker, upstream, setup):
    quote = make_quote(maker, setup)
    approval = ask(maker, quote)
    upstream.helper("clock/advance", {"seconds": 301})
    Quote.objects.filter(pk=quote.pk).update(expires_at=timezone.now())
    upstream.helper("exchange-rates/shift", {"currency": "USDC", "bps": -80})  # beyond the 50 bps tolerance
    html = approve(checker, approval).content.decode()
    approval.refresh_from_db()
    assert approval.status == "returned" and not Transaction.objects.exists()
    approved, now = approval.approved_destination_amount, approval.requoted_destination_amount
    assert now < approved
    reason = (
        f"The price moved beyond 50 bps: approved {approved.normalize():f}, now {now.normalize():f} USDC. "
        "Nothing was executed."
    )
    assert approval.reason == reason
    assert f"Returned to olga: {reason}" in html
    page = maker.get(reverse("payments-view-approval-request", args=[approval.pk])).content.decode()
    assert f"{now.normalize():f}" in page.split('id="requoted"')[1] and reason in page
    assert "The quote, to ask again with new figures" in page
    event = AuditEvent.objects.get(action="approval.return")
    assert event.details == {
        "kind": "execute_quote",
        "maker": "olga",
        "approved": f"{approved.normalize():f}",
        "requoted": f"{now.normalize():f}",
    }


def test_a_move_within_tolerance_still_executes(maker, checker, upstream, setup):
    approval = ask(maker, make_quote(maker, setup))
    Quote.objects.filter(pk=approval.quote.pk).update(expires_at=timezone.now())
    upstream.helper("exchange-rates/shift", {"currency": "USDC", "bps": 30})
    approve(checker, approval)
    approval.refresh_from_db()
    assert approval.status == "executed"
    assert approval.requoted_destination_amount > approval.approved_destination_amount
    assert Transaction.objects.get().destination_amount == approval.requoted_destination_amount


def test_a_lost_answer_keeps_the_request_approved_and_the_retry_replays(maker, checker, setup, faulty_upstream):
    approval = ask(maker, make_quote(maker, setup))
    faulty_upstream.fail("slow")
    html = approve(checker, approval).content.decode()
    assert "so this may have gone through; trying again is safe." in html
    approval.refresh_from_db()
    assert approval.status == "approved" and not Transaction.objects.exists()
    page = checker.get(reverse("payments-view-approval-request", args=[approval.pk])).content.decode()
    assert "Try the execute again" in page
    faulty_upstream.fail(None)
    approve(checker, approval)
    approval.refresh_from_db()
    assert approval.status == "executed" and Transaction.objects.count() == 1
    keys = {r.headers["x-idempotency-key"] for r in faulty_upstream.sent("POST", "/transactions")}
    assert keys == {str(approval.idempotency_key)}


def test_the_list_pages_with_a_fixed_number_of_queries(checker, make_staff, django_assert_max_num_queries):
    from tests.factories import ApprovalRequestFactory

    for i in range(7):
        ApprovalRequestFactory(maker=make_staff(None, f"maker-{i}"))
    url = reverse("payments-list-approval-requests")
    checker.get(url)
    with django_assert_max_num_queries(6):
        first = checker.get(url)
    page = first.context["page"]
    assert len(page.items) == 7 and page.next_cursor is None
    with django_assert_max_num_queries(6):
        rejected = checker.get(url, {"status": "rejected"})
    assert rejected.context["page"].items == []
    partial = checker.get(url, headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in partial and "maker-3" in partial


def test_a_rate_reads_with_its_currencies():
    assert rate_between("0.998700000000000000", "USD", "USDC") == "1 USD = 0.9987 USDC"
    assert rate_between("1.000000000000000000", "EUR", "EURC") == "1 EUR = 1 EURC"
    assert rate_between(None, "USD", "USDC") == "—"
