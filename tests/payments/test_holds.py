"""A payment account held in the back-office: asked for by an admin with a reason, set when a
second admin approves, and while it stands every quote and execute from or to the account is
refused, named, before anything reaches the API; released through the same four-eyes. The
mirror's syncs and webhooks never write over it. Against the sandbox (`upstream`), the requests
the API received counted by `faulty_upstream` (which passes them through)."""

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from mirror.sync import sync_payment_accounts
from payments.models import ApprovalRequest, AutomationRule, PaymentAccount, Quote, Transaction
from payments.upserts import payment_accounts_upsert
from tests.conftest import signed_in
from tests.factories import PaymentAccountFactory
from tests.payments.account_fixtures import make_account
from tests.payments.transactions_helpers import quote_post_data, rule_post_data, sandbox_customer
from upstream import claims
from upstream.client import get_client
from upstream.mirrored import Source

REASON = "Owner on the OFAC SDN list (alert 12)."
REFUSED = (
    "no quote, execute or automation rule of the back-office moves money from or to a held account. Nothing was sent."
)


@pytest.fixture
def setup(upstream):
    return sandbox_customer(upstream)


@pytest.fixture
def ada(make_staff):
    return signed_in(make_staff("admin", "ada"))


@pytest.fixture
def ben(make_staff):
    return signed_in(make_staff("admin", "ben"))


@pytest.fixture
def olga(make_staff):
    return signed_in(make_staff("operations", "olga"))


def _bank(setup) -> PaymentAccount:
    return PaymentAccount.objects.get(account_id=setup["bank"]["paymentAccountId"])


def ask_hold(client, account, reason=REASON):
    return client.post(reverse("payments-hold-payment-account", args=[account.pk]), {"reason": reason})


def ask_release(client, account, reason="Cleared by the provider."):
    return client.post(reverse("payments-release-payment-account", args=[account.pk]), {"reason": reason})


def approve(client, approval):
    return client.post(reverse("payments-approve-approval-request", args=[approval.pk]), follow=True)


def held(maker, checker, account) -> ApprovalRequest:
    """The account held: asked by `maker`, approved by `checker`."""
    assert ask_hold(maker, account).status_code == 302
    approval = ApprovalRequest.objects.get(account=account, kind="account_hold", status="pending")
    approve(checker, approval)
    account.refresh_from_db()
    assert account.is_held
    return approval


def _successes(action: str) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=action, outcome="success"))


def test_a_hold_is_asked_with_a_reason_and_set_when_another_admin_approves(ada, ben, setup):
    account = _bank(setup)
    response = ask_hold(ada, account)
    approval = ApprovalRequest.objects.get()
    assert response["Location"] == reverse("payments-view-approval-request", args=[approval.pk])
    assert (approval.kind, approval.status, approval.account, approval.maker.username) == (
        "account_hold",
        "pending",
        account,
        "ada",
    )
    assert approval.summary.startswith("Hold Checking · External bank account · USD · ACH · …6789 of Ada Lovelace")
    account.refresh_from_db()
    assert not account.is_held  # nothing is held until a second person approves

    page = ben.get(reverse("payments-view-approval-request", args=[approval.pk])).content.decode()
    facts = page.split('id="approval-facts"')[1].split("</dl>")[0]
    assert REASON in facts and setup["bank"]["paymentAccountId"] in facts
    assert reverse("payments-view-payment-account", args=[account.pk]) in facts
    # The maker's own approve is refused, and on the record.
    refused = approve(ada, approval).content.decode()
    assert "You made this request: another person must approve or reject it." in refused
    account.refresh_from_db()
    assert not account.is_held

    done = approve(ben, approval).content.decode()
    assert "Approved: Hold Checking" in done
    account.refresh_from_db()
    approval.refresh_from_db()
    assert approval.status == "executed"
    assert (account.held_by.username, account.hold_reason, account.hold_approval) == ("ada", REASON, approval)
    (hold_event,) = _successes("payment_account.hold")
    assert (hold_event.actor_username, hold_event.target_id) == ("ben", account.account_id)
    assert hold_event.details | {"reason": REASON} == hold_event.details
    assert (hold_event.details["maker"], hold_event.details["checker"]) == ("ada", "ben")
    steps = ["approval.request", "approval.approve", "approval.execute"]
    assert [len(_successes(step)) for step in steps] == [1, 1, 1]
    assert AuditEvent.objects.filter(action="approval.approve", outcome="denied", actor_username="ada").count() == 1


def test_a_hold_needs_a_reason(ada, setup):
    account = _bank(setup)
    page = ada.post(
        reverse("payments-hold-payment-account", args=[account.pk]), {"reason": "   "}, follow=True
    ).content.decode()
    assert "Nothing was asked: This field is required." in page
    assert not ApprovalRequest.objects.exists()


def test_one_request_at_a_time_and_only_what_the_state_allows(ada, ben, setup):
    account = _bank(setup)
    refused = ask_release(ada, account)
    assert refused["Location"] == reverse("payments-view-payment-account", args=[account.pk])
    assert "This account is not held." in ada.get(refused["Location"]).content.decode()
    ask_hold(ada, account)
    waiting = ApprovalRequest.objects.get()
    again = ben.get(ask_hold(ben, account)["Location"]).content.decode()
    assert (
        f"A hold a payment account request of this account waits for approval already (request {waiting.pk})." in again
    )
    assert ApprovalRequest.objects.count() == 1
    approve(ben, waiting)
    page = ben.get(ask_hold(ben, account)["Location"]).content.decode()
    assert "is held in the back-office by ada since" in page and "already." in page
    assert ApprovalRequest.objects.count() == 1


def test_a_pending_account_cannot_be_held(ada, upstream):
    account = PaymentAccountFactory(pending=True)
    page = ada.get(ask_hold(ada, account)["Location"]).content.decode()
    assert "This account has no id yet" in page
    assert not ApprovalRequest.objects.exists()


def test_other_roles_cannot_ask_or_approve_a_hold(ada, setup, make_staff):
    account = _bank(setup)
    others = {role: signed_in(make_staff(role)) for role in ("operations", "compliance", "auditor")}
    for client in others.values():
        assert (
            client.post(reverse("payments-hold-payment-account", args=[account.pk]), {"reason": REASON}).status_code
            == 403
        )
    ask_hold(ada, account)
    approval = ApprovalRequest.objects.get()
    operations = others["operations"]
    page = operations.get(reverse("payments-view-approval-request", args=[approval.pk])).content.decode()
    assert "Your role cannot approve this kind of request." in page
    assert operations.post(reverse("payments-approve-approval-request", args=[approval.pk])).status_code == 403
    approval.refresh_from_db()
    assert approval.status == "pending"


def test_a_held_account_refuses_quotes_and_executes_before_the_api_hears_of_them(
    ada, ben, olga, setup, faulty_upstream
):
    account = _bank(setup)
    # A quote made before the hold, to execute after it.
    earlier = olga.post(reverse("payments-create-quote"), quote_post_data(setup))
    quote = Quote.objects.get(quote_id=earlier["Location"].rstrip("/").split("/")[-1])
    held(ada, ben, account)
    faulty_upstream.fail(None)  # forget the requests so far
    builder = olga.get(reverse("payments-create-quote"), {"customer": setup["customer_id"]}).content.decode()
    assert "USD · ACH · …6789 · held in the back-office</option>" in builder

    response = olga.post(reverse("payments-create-quote"), quote_post_data(setup))
    assert response.status_code == 200
    page = response.content.decode()
    assert "“Checking · External bank account · USD · ACH · …6789” is held in the back-office by ada since" in page
    assert f"({REASON}): {REFUSED}" in page
    assert Quote.objects.count() == 1
    # The destination side too: the wallet is the quote's destination.
    wallet = PaymentAccount.objects.get(account_id=setup["wallet"]["paymentAccountId"])
    assert not wallet.is_held

    executed = olga.post(reverse("payments-execute-quote", args=[quote.quote_id]), follow=True).content.decode()
    assert "is held in the back-office by ada" in executed and "Nothing was sent." in executed
    assert not Transaction.objects.exists()
    assert faulty_upstream.sent("POST", "/quotes") == [] and faulty_upstream.sent("POST", "/transactions") == []
    denied = AuditEvent.objects.filter(outcome="denied", action__in=["quote.create", "quote.execute"])
    assert sorted((e.action, e.details["held"]) for e in denied) == [
        ("quote.create", [account.account_id]),
        ("quote.execute", [account.account_id]),
    ]
    # The refused execute gave its claim back: after the release the same quote executes.
    release = ask_release(ada, account)
    approve(ben, ApprovalRequest.objects.get(kind="account_release"))
    assert release.status_code == 302
    account.refresh_from_db()
    assert not account.is_held and account.hold_reason == "" and account.held_by is None
    response = olga.post(reverse("payments-execute-quote", args=[quote.quote_id]))
    assert response["Location"] == reverse("payments-view-transaction", args=[Transaction.objects.get().transaction_id])
    (release_event,) = _successes("payment_account.release")
    assert (release_event.actor_username, release_event.details["reason"]) == ("ben", "Cleared by the provider.")


def test_a_destination_held_refuses_the_quote_too(ada, ben, olga, setup):
    wallet = PaymentAccount.objects.get(account_id=setup["wallet"]["paymentAccountId"])
    held(ada, ben, wallet)
    page = olga.post(reverse("payments-create-quote"), quote_post_data(setup)).content.decode()
    assert "“Base wallet · External crypto wallet · USDC on Base · …abab” is held in the back-office" in page
    assert not Quote.objects.exists()


def test_a_large_execute_of_a_held_account_is_not_asked_and_an_approved_one_fails(
    ada, ben, olga, make_staff, setup, faulty_upstream
):
    account = _bank(setup)
    pavel = signed_in(make_staff("operations", "pavel"))
    first = Quote.objects.get(
        quote_id=olga.post(reverse("payments-create-quote"), quote_post_data(setup, amount="20000.00"))["Location"]
        .rstrip("/")
        .split("/")[-1]
    )
    olga.post(reverse("payments-execute-quote", args=[first.quote_id]))
    waiting = ApprovalRequest.objects.get(kind="execute_quote")
    second = Quote.objects.get(
        quote_id=olga.post(reverse("payments-create-quote"), quote_post_data(setup, amount="20000.00"))["Location"]
        .rstrip("/")
        .split("/")[-1]
    )
    held(ada, ben, account)

    asked = olga.post(reverse("payments-execute-quote", args=[second.quote_id]), follow=True).content.decode()
    assert "is held in the back-office by ada" in asked
    assert not ApprovalRequest.objects.filter(quote=second).exists()
    # The execute asked before the hold: its approval fails with the hold's words, nothing sent.
    page = approve(pavel, waiting).content.decode()
    assert "is held in the back-office by ada" in page
    waiting.refresh_from_db()
    assert waiting.status == "failed" and "is held in the back-office" in waiting.reason
    assert faulty_upstream.sent("POST", "/transactions") == [] and not Transaction.objects.exists()


def test_a_hold_waits_while_an_execute_of_the_account_is_in_flight(ada, ben, olga, setup):
    """An execute that claimed its quote before the hold is approved is let finish first: the
    approval sets nothing and the request waits again; approved once the execute is done, the
    hold is set."""
    account = _bank(setup)
    quote = Quote.objects.get(
        quote_id=olga.post(reverse("payments-create-quote"), quote_post_data(setup))["Location"]
        .rstrip("/")
        .split("/")[-1]
    )
    ask_hold(ada, account)
    approval = ApprovalRequest.objects.get()
    in_flight = claims.claim(f"quote:{quote.quote_id}:execute")

    page = approve(ben, approval).content.decode()
    assert "A transfer from or to this account is being sent to the Payments API right now" in page
    approval.refresh_from_db()
    account.refresh_from_db()
    assert approval.status == "pending" and approval.checker is None and not account.is_held
    assert _successes("payment_account.hold") == []

    claims.done(in_flight, result="tx-1")
    approve(ben, approval)
    approval.refresh_from_db()
    account.refresh_from_db()
    assert approval.status == "executed" and account.is_held
    assert len(_successes("payment_account.hold")) == 1


def test_syncs_and_webhooks_never_write_over_a_hold(ada, ben, setup, monkeypatch):
    account = _bank(setup)
    held(ada, ben, account)
    answer = get_client().payment_accounts.get(payment_account_id=account.account_id)
    renamed = answer.model_copy(update={"nickname": "Renamed upstream"})
    for seen_by in (Source.SYNC, Source.WEBHOOK):
        payment_accounts_upsert(items=[renamed], seen_by=seen_by)
    account.refresh_from_db()
    assert account.nickname == "Renamed upstream"
    assert (account.is_held, account.held_by.username, account.hold_reason) == (True, "ada", REASON)

    # A hold set between the upsert's read of the row and its write is not undone either.
    release = ask_release(ada, account)
    assert release.status_code == 302
    approve(ben, ApprovalRequest.objects.get(kind="account_release"))
    real_save = PaymentAccount.save

    def hold_lands_meanwhile(row, *args, **kwargs):
        PaymentAccount.objects.filter(pk=row.pk).update(held_at=timezone.now(), hold_reason="Set meanwhile")
        return real_save(row, *args, **kwargs)

    monkeypatch.setattr(PaymentAccount, "save", hold_lands_meanwhile)
    payment_accounts_upsert(items=[answer], seen_by=Source.WEBHOOK)
    account.refresh_from_db()
    assert (account.nickname, account.is_held, account.hold_reason) == ("Checking", True, "Set meanwhile")


def test_the_account_page_and_lists_show_the_hold(ada, ben, olga, setup, django_assert_max_num_queries):
    account = _bank(setup)
    page = ada.get(reverse("payments-view-payment-account", args=[account.pk])).content.decode()
    assert "ask the provider to deactivate it" in page and 'id="hold-form"' in page
    assert 'id="held-badge"' not in page
    assert (
        'id="hold-form"' not in olga.get(reverse("payments-view-payment-account", args=[account.pk])).content.decode()
    )
    ask_hold(ada, account)
    waiting = ApprovalRequest.objects.get()
    page = ada.get(reverse("payments-view-payment-account", args=[account.pk])).content.decode()
    assert f"request {waiting.pk}</a> by ada waits for approval" in page and 'id="hold-form"' not in page
    approve(ben, waiting)

    page = olga.get(reverse("payments-view-payment-account", args=[account.pk])).content.decode()
    assert 'id="held-badge"' in page
    assert ">ada<" in page.split('id="held-by"')[1][:10] and ">ben<" in page.split('id="hold-checker"')[1][:10]
    assert REASON in page.split('id="hold-reason"')[1]
    assert "ask the provider to deactivate it" in page and 'id="hold-form"' not in page  # not an admin
    page = ada.get(reverse("payments-view-payment-account", args=[account.pk])).content.decode()
    assert "Ask to release the hold" in page

    with django_assert_max_num_queries(6):
        listed = olga.get(reverse("payments-list-payment-accounts")).content.decode()
    row = listed.split(f'href="/payments/accounts/{account.pk}/"')[1].split("</tr>")[0]
    assert ">Held</span>" in row and "by ada since" in row and REASON in row
    customer = olga.get(reverse("customers-view-customer", args=[setup["customer_id"]])).content.decode()
    row = customer.split(setup["bank"]["paymentAccountId"])[1].split("</tr>")[0]
    assert ">Held</span>" in row and REASON in row


def test_an_automation_rule_from_or_to_a_held_account_is_refused_asked_or_approved(
    ada, ben, make_staff, setup, upstream
):
    """A rule moves money on its own: one with a held account is not asked for, and one asked
    before the hold fails at its approval, nothing written upstream."""
    service = make_account(upstream, setup["customer_id"], "service_wallet")["paymentAccountId"]
    sync_payment_accounts()
    rule = rule_post_data(
        customer_id=setup["customer_id"], source=service, destination=setup["bank"]["paymentAccountId"]
    )
    rita = signed_in(make_staff("admin", "rita"))
    assert rita.post(reverse("payments-create-automation-rule"), rule).status_code == 302
    asked_before = ApprovalRequest.objects.get(kind="create_rule")
    held(ada, ben, _bank(setup))

    page = rita.post(reverse("payments-create-automation-rule"), rule).content.decode()
    assert "is held in the back-office by ada" in page and REFUSED in page
    assert ApprovalRequest.objects.filter(kind="create_rule").count() == 1
    approve(ben, asked_before)
    asked_before.refresh_from_db()
    assert asked_before.status == "failed" and "is held in the back-office by ada" in asked_before.reason
    assert not AutomationRule.objects.exists()
