"""The full sync of automation rules: new, changed and vanished upstream, with their history."""

import pytest
from django.core.management import call_command

from customers.models import Customer
from mirror.models import SyncRun
from mirror.sync import sync_automation_rules, sync_customers, sync_payment_accounts
from payments.models import AutomationRule, AutomationRuleChange
from sandbox import models as sbx
from tests.payments.account_fixtures import make_account, make_customer


def rule_body(customer_id, source, destination, *, name="Sweep", cron="0 9 * * 1-5"):
    return {
        "name": name,
        "customerId": customer_id,
        "transactionTemplate": {
            "source": {"sourcePaymentAccountId": source, "sourcePaymentMethod": "BASE", "sourceCurrency": "USDC"},
            "destination": {
                "destinationPaymentAccountId": destination,
                "destinationPaymentMethod": "ACH",
                "destinationCurrency": "USD",
            },
            "amount": {"value": "50.00"},
        },
        "trigger": {"cronSchedule": cron},
    }


@pytest.fixture
def owner(upstream):
    customer_id = make_customer(upstream)
    service = make_account(upstream, customer_id, "service_wallet")["paymentAccountId"]
    bank = make_account(upstream, customer_id, "bank")["paymentAccountId"]
    sync_customers()
    sync_payment_accounts()
    return {"customer_id": customer_id, "service": service, "bank": bank}


def make_rule(upstream, owner, **kwargs):
    return upstream.call(
        "POST", "/automation-rules", rule_body(owner["customer_id"], owner["service"], owner["bank"], **kwargs)
    )


def test_new_rules_upstream_reach_the_mirror_with_their_owner(upstream, owner):
    made = [make_rule(upstream, owner, name=f"Rule {i}") for i in range(3)]
    run = sync_automation_rules()
    assert run.outcome == "succeeded", run.error
    assert run.counts == {"created": 3, "updated": 0, "unchanged": 0, "missing": 0, "failed": 0}
    rule = AutomationRule.objects.get(rule_id=made[1]["id"])
    assert rule.name == "Rule 1"
    assert rule.customer == Customer.objects.get(customer_id=owner["customer_id"])
    assert rule.source_account_id == owner["service"]
    assert rule.trigger["cronSchedule"] == "0 9 * * 1-5"
    assert list(rule.changes.values_list("fields", "seen_by")) == [(["created"], "sync")]
    # A second pass changes nothing and writes no history.
    again = sync_automation_rules()
    assert again.counts["unchanged"] == 3 and again.counts["created"] == again.counts["updated"] == 0
    assert AutomationRuleChange.objects.count() == 3


def test_a_rule_changed_upstream_is_updated_and_its_change_recorded(upstream, owner):
    made = make_rule(upstream, owner, name="Weekdays")
    sync_automation_rules()
    body = rule_body(owner["customer_id"], owner["service"], owner["bank"], name="Mondays", cron="0 9 * * 1")
    upstream.call("PUT", f"/automation-rules/{made['id']}", {"id": made["id"], **body})
    run = sync_automation_rules()
    assert run.counts["updated"] == 1
    rule = AutomationRule.objects.get(rule_id=made["id"])
    assert rule.name == "Mondays" and rule.trigger["cronSchedule"] == "0 9 * * 1"
    change = rule.changes.latest("id")
    assert change.fields == ["name", "trigger"] and change.seen_by == "sync"
    assert change.before["name"] == "Weekdays" and change.after["name"] == "Mondays"
    assert change.before["trigger"]["cronSchedule"] == "0 9 * * 1-5"


def test_a_rule_vanished_upstream_is_marked_not_removed(upstream, owner):
    kept, gone = make_rule(upstream, owner, name="Kept"), make_rule(upstream, owner, name="Gone")
    sync_automation_rules()
    sbx.AutomationRule.objects.filter(pk=gone["id"]).delete()
    run = sync_automation_rules()
    assert run.counts["missing"] == 1
    row = AutomationRule.objects.get(rule_id=gone["id"])
    assert row.missing_upstream and row.missing_since is not None
    assert row.changes.latest("id").fields == ["vanished"]
    assert not AutomationRule.objects.get(rule_id=kept["id"]).missing_upstream
    # A vanished rule marked once stays marked: the next pass adds no second entry.
    assert sync_automation_rules().counts["missing"] == 0
    assert row.changes.filter(fields=["vanished"]).count() == 1


def test_sync_mirror_syncs_rules_by_default_and_on_their_own(upstream, owner, capsys):
    make_rule(upstream, owner)
    call_command("sync_mirror", "--automation-rules", "--quiet")
    assert "automation_rules: 1 created" in capsys.readouterr().out
    assert SyncRun.objects.get(kind="automation-rules").outcome == "succeeded"
    call_command("sync_mirror", "--quiet")
    assert SyncRun.objects.filter(kind="automation-rules").count() == 2


def test_the_beat_task_syncs_rules_with_the_other_kinds(upstream, owner):
    from mirror.tasks import sync_mirror

    make_rule(upstream, owner)
    assert sync_mirror()["automation-rules"] == "succeeded"
    assert AutomationRule.objects.count() == 1
