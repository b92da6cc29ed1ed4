"""The client against the real sandbox (in-process WSGI), end to end, as ARCHITECTURE.md's
decisions and the spec have it: automation rules."""

import uuid
from decimal import Decimal

import pytest

from paymentsapi import NotFound, ValidationFailed
from paymentsapi.types import RuleAmount, TemplateDestination, TemplateSource, TransactionTemplate, Trigger


def rule_template(wallet_id, bank_id, amount="25.00"):
    return TransactionTemplate(
        source=TemplateSource(
            source_payment_account_id=wallet_id, source_payment_method="BASE", source_currency="USDC"
        ),
        destination=TemplateDestination(
            destination_payment_account_id=bank_id, destination_payment_method="ACH", destination_currency="USD"
        ),
        amount=RuleAmount(value=Decimal(amount)),
    )


def test_automation_rule_create_read_list_update(sandbox_client, funded):
    customer, wallet, bank = funded
    template = rule_template(wallet.payment_account_id, bank.payment_account_id)

    rule = sandbox_client.automation_rules.create(
        name="Weekly sweep",
        customer_id=customer.customer_id,
        transaction_template=template,
        trigger=Trigger(cron_schedule="0 9 * * 1"),
    )

    assert rule.id and rule.name == "Weekly sweep" and rule.customer_id == customer.customer_id
    assert rule.transaction_template.amount.value == Decimal("25.00")
    assert rule.transaction_template.source.source_currency.label == "USDC"  # an object in answers
    assert rule.trigger.cron_schedule == "0 9 * * 1"
    assert rule.created_at is not None

    assert sandbox_client.automation_rules.get(rule_id=rule.id).id == rule.id
    by_customer = sandbox_client.automation_rules.list(customer_id=customer.customer_id)
    assert [r.id for r in by_customer.items] == [rule.id]
    by_source = list(sandbox_client.automation_rules.iter(source_payment_account_id=wallet.payment_account_id))
    assert [r.id for r in by_source] == [rule.id]
    assert list(sandbox_client.automation_rules.iter(source_payment_account_id=bank.payment_account_id)) == []

    updated = sandbox_client.automation_rules.update(
        rule_id=rule.id,
        name="Monday sweep",
        customer_id=customer.customer_id,
        transaction_template=rule_template(wallet.payment_account_id, bank.payment_account_id, "30.00"),
        trigger=Trigger(cron_schedule="0 10 * * 1"),
    )
    assert updated.id == rule.id and updated.name == "Monday sweep"
    assert updated.trigger.cron_schedule == "0 10 * * 1"
    assert updated.transaction_template.amount.value == Decimal("30.00")
    assert sandbox_client.automation_rules.get(rule_id=rule.id).name == "Monday sweep"


def test_automation_rule_validation_error(sandbox_client, funded):
    customer, wallet, bank = funded

    with pytest.raises(ValidationFailed) as caught:
        sandbox_client.automation_rules.create(
            name="",
            customer_id=customer.customer_id,
            transaction_template=rule_template(wallet.payment_account_id, bank.payment_account_id),
            trigger=Trigger(cron_schedule="not a cron"),
        )

    fields = caught.value.messages_by_field()
    assert "name" in fields and "trigger.cronSchedule" in fields


def test_unknown_automation_rule_is_not_found(sandbox_client):
    with pytest.raises(NotFound):
        sandbox_client.automation_rules.get(rule_id=str(uuid.uuid4()))
