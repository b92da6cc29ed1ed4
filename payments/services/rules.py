"""Staff writes of automation rules: create, and update (the whole rule).

The API takes no idempotency key for them, so each write is claimed under the key of the
request it carries out (upstream.claims): one request sends it, and one whose earlier try lost its
answer reads the customer's rules back before sending it again.
"""

import datetime as dt
from decimal import Decimal, InvalidOperation

from paymentsapi import types as api
from upstream import claims
from upstream.client import get_client, lookup_client
from upstream.write_through import AuditTarget, Once, write_through_api

from ..models import AutomationRule
from ..upserts import automation_rules_upsert

# A rule made by an earlier try was made after that try began: this much earlier still counts,
# for the API's clock and ours differ a little.
CLOCK_SKEW = dt.timedelta(minutes=5)


def _trigger_kind(trigger: dict) -> dict:
    return {"trigger": "cron" if "cronSchedule" in trigger else "threshold"}


def _amount(value) -> Decimal | None:
    try:
        return Decimal(str(value))
    except (InvalidOperation, TypeError):
        return None


def _same_rule(item: api.AutomationRule, *, name: str, template: dict, trigger: dict) -> bool:
    """Whether the API's rule is the one asked for: its name, accounts, amount and trigger (the
    API answers currencies as objects where they were sent as labels: those are not compared)."""
    sent = api.TransactionTemplate.model_validate(template)
    held = item.transaction_template
    asked = api.Trigger.model_validate(trigger)
    return (
        held is not None
        and item.name == name
        and held.source.source_payment_account_id == sent.source.source_payment_account_id
        and held.destination.destination_payment_account_id == sent.destination.destination_payment_account_id
        and _amount(held.amount.value) == _amount(sent.amount.value)
        and item.trigger is not None
        and item.trigger.cron_schedule == asked.cron_schedule
        and _amount(item.trigger.threshold_amount) == _amount(asked.threshold_amount)
    )


def _created_rule(*, key: str, customer_id: str, name: str, template: dict, trigger: dict) -> api.AutomationRule | None:
    """After a create whose answer was lost: the customer's rule just like this one that the
    API made since the first try, or None (the API lists a customer's rules whole)."""
    since = (claims.first_tried(key) or dt.datetime.now(dt.UTC)) - CLOCK_SKEW
    found = [
        item
        for item in lookup_client().automation_rules.iter(customer_id=customer_id)
        if _same_rule(item, name=name, template=template, trigger=trigger)
        and (item.created_at is None or item.created_at >= since)
    ]
    return found[-1] if found else None


def automation_rule_create(
    *, actor, claim_key: str, name: str, customer_id: str, template: dict, trigger: dict, details: dict | None = None
) -> AutomationRule:
    """POST the rule, once for `claim_key` (the approved request it carries out). Staff reach
    this only through an approved request (services.approvals), whose maker and checker
    `details` adds to the audit event."""

    def store(item: api.AutomationRule) -> AutomationRule:
        automation_rules_upsert(items=[item])
        return AutomationRule.objects.get(rule_id=item.id)

    return write_through_api(
        actor=actor,
        action="automation_rule.create",
        target=AuditTarget("customer", customer_id),
        call=lambda: get_client().automation_rules.create(
            name=name, customer_id=customer_id, transaction_template=template, trigger=trigger
        ),
        store=store,
        stored=lambda rule: AuditTarget("automation_rule", rule.rule_id, {**_trigger_kind(trigger), **(details or {})}),
        reconcile=lambda: _created_rule(
            key=claim_key, customer_id=customer_id, name=name, template=template, trigger=trigger
        ),
        once=Once(claim_key, remember=lambda rule: rule.rule_id, replay=lambda rule_id: _rule(rule_id)),
    )


def _rule(rule_id: str) -> AutomationRule:
    return AutomationRule.objects.get(rule_id=rule_id)


def automation_rule_update(
    *,
    actor,
    claim_key: str,
    rule: AutomationRule,
    name: str,
    template: dict,
    trigger: dict,
    details: dict | None = None,
) -> AutomationRule:
    """PUT the whole rule (name, template, trigger), once for `claim_key`; its customer cannot
    change. As for a create, only an approved request calls this."""

    def store(item: api.AutomationRule) -> AutomationRule:
        automation_rules_upsert(items=[item])
        rule.refresh_from_db()
        return rule

    def changed_already() -> api.AutomationRule | None:
        item = lookup_client().automation_rules.get(rule_id=rule.rule_id)
        return item if _same_rule(item, name=name, template=template, trigger=trigger) else None

    return write_through_api(
        actor=actor,
        action="automation_rule.update",
        target=AuditTarget("automation_rule", rule.rule_id),
        call=lambda: get_client().automation_rules.update(
            rule_id=rule.rule_id,
            name=name,
            customer_id=rule.customer_upstream_id,
            transaction_template=template,
            trigger=trigger,
        ),
        store=store,
        stored=lambda saved: AuditTarget(
            "automation_rule", saved.rule_id, {**_trigger_kind(trigger), **(details or {})}
        ),
        reconcile=changed_already,
        once=Once(claim_key, remember=lambda saved: saved.rule_id, replay=lambda rule_id: _rule(rule_id)),
    )
