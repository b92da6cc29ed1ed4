"""A rule goes live only when a second person approves it; every step and decision is audited;
a transaction seen by its webhook and by a sync raises one alert."""

import datetime as dt
from decimal import Decimal

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from monitoring.models import Alert, Backtest, MonitoringRule, RuleKind, RuleStatus
from monitoring.services import NotAllowed, rule_approve, rule_create, rule_new_version, rule_submit, rule_withdraw
from payments.models import ApprovalRequest
from payments.services.approvals import approval_reject
from tests.conftest import authenticated_now
from tests.factories import StaffUserFactory
from tests.monitoring.helpers import account, admin, customer, live_rule, onramp_quote, tx

pytestmark = pytest.mark.django_db


def test_the_maker_cannot_approve_and_a_second_person_can():
    maker, checker = admin(), admin()
    rule = rule_create(user=maker, name="Big", kind=RuleKind.LARGE_TRANSFER, params={"min_usd": "100"})
    with pytest.raises(NotAllowed):
        rule_approve(user=checker, rule=rule)  # nothing submitted yet
    rule_submit(user=maker, rule=rule)
    with pytest.raises(NotAllowed, match="another person must approve"):
        rule_approve(user=maker, rule=rule)
    rule.refresh_from_db()
    assert rule.status == RuleStatus.WAITING and rule.live_version is None
    # The rule waits in the four-eyes of payments, with the other requests.
    approval = ApprovalRequest.objects.get()
    assert (approval.kind, approval.status, approval.maker) == ("monitoring_rule", "pending", maker)
    assert rule.current_version.approval == approval
    denied = AuditEvent.objects.get(action="approval.approve", outcome="denied")
    assert denied.actor == maker and denied.target_id == str(approval.pk)
    rule_approve(user=checker, rule=rule)
    rule.refresh_from_db()
    assert rule.status == RuleStatus.LIVE and rule.live_version.approved_by == checker
    approval.refresh_from_db()
    assert (approval.status, approval.checker) == ("executed", checker)
    assert list(
        AuditEvent.objects.filter(target_kind="monitoring_rule", outcome="success")
        .order_by("pk")
        .values_list("action", flat=True)
    ) == ["monitoring.rule_create", "monitoring.rule_submit", "monitoring.rule_approve"]


def test_a_rejected_or_withdrawn_request_leaves_a_draft_to_submit_again():
    maker, checker = admin(), admin()
    rule = rule_create(user=maker, name="Big", kind=RuleKind.LARGE_TRANSFER, params={"min_usd": "100"})
    first = rule_submit(user=maker, rule=rule)
    approval_reject(actor=checker, approval=first, reason="Too low a limit.")
    rule.refresh_from_db()
    assert rule.status == RuleStatus.DRAFT and rule.current_version.submitted_at is None
    with pytest.raises(NotAllowed):
        rule_approve(user=checker, rule=rule)
    second = rule_submit(user=maker, rule=rule)
    rule_withdraw(user=maker, rule=rule)
    second.refresh_from_db()
    rule.refresh_from_db()
    assert second.status == "withdrawn" and rule.status == RuleStatus.DRAFT
    with pytest.raises(NotAllowed, match="drafted this version"):
        rule_submit(user=checker, rule=rule)  # the drafter submits: a second person approves
    rule_submit(user=maker, rule=rule)
    rule_approve(user=checker, rule=rule)
    rule.refresh_from_db()
    assert rule.status == RuleStatus.LIVE and rule.live_version.approval.status == "executed"


def test_an_edit_is_a_new_version_and_the_approved_one_runs_until_the_edit_is_approved():
    rule = live_rule(RuleKind.LARGE_TRANSFER, min_usd="100")
    editor, checker = admin(), admin()
    rule_new_version(user=editor, rule=rule, params={"min_usd": "1000"})
    rule.refresh_from_db()
    assert rule.status == RuleStatus.LIVE
    assert (rule.live_version.number, rule.current_version.number) == (1, 2)
    assert rule.versions.get(number=1).params == {"min_usd": "100"}
    someone = customer()
    from monitoring.services import evaluate_transactions

    evaluate_transactions([tx(someone, 500).pk])
    assert Alert.objects.get().rule_version.number == 1
    rule_submit(user=editor, rule=rule)
    rule_approve(user=checker, rule=rule)
    rule.refresh_from_db()
    assert rule.live_version.number == 2
    evaluate_transactions([tx(someone, 5000).pk])
    assert Alert.objects.order_by("-pk").first().rule_version.number == 2


def test_pages_walk_the_lifecycle_and_refuse_the_makers_approval(
    client, make_staff, django_capture_on_commit_callbacks
):
    maker, checker = make_staff("admin", "maker"), make_staff("admin", "checker")
    client.force_login(maker)
    authenticated_now(client, maker)  # approving asks for a recent sign-in
    url = reverse("monitoring-create-rule") + "?kind=structuring"
    response = client.post(
        url, {"name": "Split payments", "window_hours": "24", "min_count": "3", "band_percent": "10"}
    )
    rule = MonitoringRule.objects.get()
    assert response.status_code == 302 and rule.status == RuleStatus.DRAFT
    page = client.get(reverse("monitoring-view-rule", kwargs={"pk": rule.pk})).content.decode()
    assert "3 or more transfers within 24 h, each between 9,000 and 10,000 USD" in page
    client.post(reverse("monitoring-submit-rule", kwargs={"pk": rule.pk}))
    approval = ApprovalRequest.objects.get()
    request_page = reverse("payments-view-approval-request", kwargs={"pk": approval.pk})
    assert request_page in client.get(reverse("monitoring-view-rule", kwargs={"pk": rule.pk})).content.decode()
    assert "Split payments" in client.get(reverse("payments-list-approval-requests")).content.decode()
    # The old approval address answers 308: to the request's page, a POST to its approve.
    old = reverse("monitoring-approve-rule", kwargs={"pk": rule.pk})
    assert (client.get(old).status_code, client.get(old)["Location"]) == (308, request_page)
    assert client.post(old)["Location"] == reverse("payments-approve-approval-request", kwargs={"pk": approval.pk})
    response = client.post(reverse("payments-approve-approval-request", kwargs={"pk": approval.pk}), follow=True)
    assert "another person must approve" in response.content.decode()
    rule.refresh_from_db()
    assert rule.status == RuleStatus.WAITING
    client.force_login(checker)
    authenticated_now(client, checker)
    page = client.get(request_page).content.decode()
    assert "Make a monitoring rule live" in page and "each between 9,000 and 10,000 USD" in page
    client.post(reverse("payments-approve-approval-request", kwargs={"pk": approval.pk}))
    rule.refresh_from_db()
    assert rule.status == RuleStatus.LIVE
    client.post(reverse("monitoring-pause-rule", kwargs={"pk": rule.pk}))
    rule.refresh_from_db()
    assert rule.status == RuleStatus.PAUSED
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("monitoring-backtest-rule", kwargs={"pk": rule.pk}))
    assert Backtest.objects.get().status == "done"


def test_a_rule_form_with_wrong_parameters_says_which(client_as):
    url = reverse("monitoring-create-rule") + "?kind=velocity"
    response = client_as("admin").post(url, {"name": "Busy", "window_hours": "24", "max_count": "", "max_usd": ""})
    assert response.status_code == 400
    assert "Give a number of transactions, an amount, or both." in response.content.decode()
    assert not MonitoringRule.objects.exists()


def test_a_decision_is_audited_and_the_alert_leaves_the_open_ones(client_as):
    rule = live_rule(RuleKind.LARGE_TRANSFER, min_usd="100")
    from monitoring.services import evaluate_transactions

    evaluate_transactions([tx(customer(), 500).pk])
    alert = Alert.objects.get()
    client = client_as("compliance")
    url = reverse("monitoring-decide-alert", kwargs={"pk": alert.pk})
    assert client.post(url, {"decision": "false_positive", "reason": ""}).status_code == 400
    assert client.post(url, {"decision": "false_positive", "reason": "Payroll, known."}).status_code == 302
    alert.refresh_from_db()
    assert (alert.status, alert.decision, alert.reason) == ("decided", "false_positive", "Payroll, known.")
    event = AuditEvent.objects.get(action="monitoring.alert_decide")
    assert event.target_id == str(alert.pk) and event.details == {"decision": "false_positive", "kind": "monitoring"}
    again = client.post(url, {"decision": "true_match", "reason": "Changed my mind."}, follow=True)
    assert "decided already" in again.content.decode()
    rules_page = client.get(reverse("monitoring-list-rules")).content.decode()
    assert "100% of 1" in rules_page
    assert rule.name in rules_page


def test_the_alerts_list_costs_the_same_queries_for_one_row_or_fifty(client_as, django_assert_max_num_queries):
    live_rule(RuleKind.LARGE_TRANSFER, min_usd="100")
    from monitoring.services import evaluate_transactions

    client = client_as("compliance")
    evaluate_transactions([tx(customer(), 500).pk])
    with django_assert_max_num_queries(12) as one:
        assert client.get(reverse("monitoring-list-alerts")).status_code == 200
    evaluate_transactions([tx(customer(), 500).pk for _ in range(60)])
    with django_assert_max_num_queries(len(one.captured_queries)):
        page = client.get(reverse("monitoring-list-alerts"), {"kind": "monitoring", "status": "open"})
    assert page.status_code == 200 and page.content.decode().count("A transfer of 500 USD") == 50


def test_the_rule_page_takes_six_queries_with_versions_backtests_and_alerts(client_as, django_assert_max_num_queries):
    from monitoring import backtest
    from monitoring.services import evaluate_transactions

    rule = live_rule(RuleKind.LARGE_TRANSFER, min_usd="100")
    evaluate_transactions([tx(customer(), 500 + n).pk for n in range(3)])
    done = backtest.run(Backtest.objects.create(version=rule.live_version))
    rule_new_version(user=StaffUserFactory(), rule=rule, name=rule.name, params={"min_usd": "200"})
    rule.refresh_from_db()
    Backtest.objects.create(version=rule.current_version)
    client = client_as("compliance")
    client.get(reverse("home"))  # the top bar's cached figures, read once
    with django_assert_max_num_queries(6):
        page = client.get(reverse("monitoring-view-rule", kwargs={"pk": rule.pk})).content.decode()
    assert page.count("A transfer of 50") == 3  # the alerts, with their version
    assert page.count(f">v{rule.live_version.number}</a>") == 1  # the finished backtest's version
    assert f'id="backtest-{done.pk}"' in page
    assert f">v{rule.current_version.number}</a>" in page  # the queued one, of the new draft
    assert f"v{rule.live_version.number}: A transfer of 50" in page


def test_alerts_export_as_csv(client_as):
    live_rule(RuleKind.LARGE_TRANSFER, min_usd="100")
    from monitoring.services import evaluate_transactions

    evaluate_transactions([tx(customer(), 500).pk])
    response = client_as("auditor").get(reverse("monitoring-export-alerts"), {"kind": "monitoring"})
    body = b"".join(response.streaming_content).decode()
    assert body.splitlines()[0].startswith("alertId,raisedAt,kind,kindLabel,status,customerId")
    assert "A transfer of 500 USD" in body
    assert ",monitoring,Transaction monitoring,open," in body  # the queue's words for the kind


def test_the_same_transaction_by_webhook_and_by_sync_raises_one_alert(
    upstream, settings, django_capture_on_commit_callbacks
):
    """A structuring series made through the sandbox: the third quote's transaction reaches
    the mirror by its webhook event and again by the sync, changed in between."""
    from mirror import inbox
    from mirror.sync import refresh_open_transactions
    from tests.factories import WebhookEventFactory
    from tests.payments.transactions_helpers import sandbox_customer

    settings.APPROVAL_THRESHOLD_USD = Decimal("100")
    live_rule(RuleKind.STRUCTURING, window_hours=24, min_count=3, band_percent=10)
    setup = sandbox_customer(upstream, name="Sam")
    ids = []
    for amount in ("95.00", "97.50", "99.00"):
        body = onramp_quote(
            setup["customer_id"], setup["bank"]["paymentAccountId"], setup["wallet"]["paymentAccountId"], amount
        )
        quote = upstream.call("POST", "/quotes", {"customerId": body.pop("customer_id"), **body})
        created = upstream.call(
            "POST", "/transactions", {"quoteId": quote["quoteId"]}, headers={"X-Idempotency-Key": quote["quoteId"]}
        )
        ids.append(created["transactionId"])
    for tx_id in ids:
        event = WebhookEventFactory(event_type="transaction.update", record_id=tx_id)
        with django_capture_on_commit_callbacks(execute=True):
            inbox.process_one(event.pk)
    alert = Alert.objects.get()
    assert alert.transaction_ids == ids
    assert alert.sentence.startswith("3 transfers of 95\u201399 USD in ")
    assert alert.sentence.endswith("291.50 USD in all, each under the 100 USD approval threshold.")
    upstream.helper(f"transactions/{ids[-1]}/advance", {"to": "PROCESSING"})
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert refresh_open_transactions().outcome == "succeeded"
    assert callbacks, "the sync's change was queued for evaluation"
    assert Alert.objects.count() == 1


def test_a_transaction_is_evaluated_after_commit_not_in_the_upsert(upstream, django_capture_on_commit_callbacks):
    """The receiver only queues: nothing is evaluated until the upsert's transaction commits."""
    from payments.upserts import transactions_upsert
    from paymentsapi import types as api
    from upstream.mirrored import Source

    live_rule(RuleKind.LARGE_TRANSFER, min_usd="1")
    someone = customer()
    item = api.Transaction.model_validate(
        {
            "transactionId": "tx-commit-1",
            "customerId": someone.customer_id,
            "transactionStatus": "AWAITING_TRANSFER",
            "source": {"sourceCurrency": {"label": "USD"}, "sourcePaymentMethod": "ACH", "sourceAmount": "25.00"},
            "destination": {"destinationCurrency": {"label": "USDC"}, "destinationPaymentMethod": "BASE"},
            "createdAt": (dt.datetime.now(dt.UTC)).isoformat(),
            "updatedAt": (dt.datetime.now(dt.UTC)).isoformat(),
        }
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        transactions_upsert(items=[item], seen_by=Source.WEBHOOK)
    assert not Alert.objects.exists()
    assert len(callbacks) == 1
    callbacks[0]()
    assert Alert.objects.get().sentence == "A transfer of 25 USD, at or above 1 USD."


def test_a_true_match_says_the_api_cannot_deactivate_its_accounts(client_as):
    """The Payments API has no endpoint that deactivates a payment account (spec: only its
    statuses are named): the decided alert's page says so rather than offer a button that
    would pretend to (the back-office's own hold is tests/monitoring/test_account_holds.py)."""
    someone = customer()
    payee = account(someone)
    alert = Alert.objects.create(
        kind="screening", customer=someone, dedupe_key="t:1", sentence="A listed payee", account_ids=[payee.account_id]
    )
    client = client_as("compliance")
    url = reverse("monitoring-view-alert", kwargs={"pk": alert.pk})
    assert 'id="no-deactivate"' not in client.get(url).content.decode()
    client.post(
        reverse("monitoring-decide-alert", kwargs={"pk": alert.pk}), {"decision": "true_match", "reason": "Seen."}
    )
    page = client.get(url).content.decode()
    assert 'id="no-deactivate"' in page and payee.display_name in page


def test_the_rules_list_counts_a_new_and_a_decided_alert_at_once_and_counts_again_only_then(client_as):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from monitoring.services import alert_decide, evaluate_transactions

    rule = live_rule(RuleKind.LARGE_TRANSFER, min_usd="100")
    evaluate_transactions([tx(customer(), 500).pk])
    client = client_as("compliance")
    url = reverse("monitoring-list-rules")

    def counts(page) -> list[str]:
        row = page.split(f">{rule.name}</a>", 1)[1].split("</tr>", 1)[0]
        return [cell.split(">")[-1] for cell in row.split("</td>")[-3:-1]]

    def counted(response_of) -> tuple[list[str], bool]:
        with CaptureQueriesContext(connection) as captured:
            page = response_of().content.decode()
        return counts(page), any("COUNT(" in q["sql"] for q in captured.captured_queries)

    assert counted(lambda: client.get(url)) == (["1", "—"], True)
    assert counted(lambda: client.get(url)) == (["1", "—"], False)  # the same alerts: counted once
    evaluate_transactions([tx(customer(), 700).pk])
    assert counted(lambda: client.get(url)) == (["2", "—"], True)
    alert_decide(user=StaffUserFactory(), alert=Alert.objects.first(), decision="false_positive", reason="Known.")
    assert counted(lambda: client.get(url)) == (["2", "100% of 1"], True)
