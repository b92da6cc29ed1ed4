"""Staff writes of automation rules: create, and update (the whole rule)."""

from core.upstream import get_client
from core.write_through import AuditTarget, write_through_api
from paymentsapi import types as api

from ..models import AutomationRule
from ..upserts import automation_rules_upsert


def _trigger_kind(trigger: dict) -> dict:
    return {"trigger": "cron" if "cronSchedule" in trigger else "threshold"}


def automation_rule_create(
    *, actor, name: str, customer_id: str, template: dict, trigger: dict, details: dict | None = None
) -> AutomationRule:
    """POST the rule. Staff reach this only through an approved request (services.approvals),
    whose maker and checker `details` adds to the audit event."""

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
    )


def automation_rule_update(
    *, actor, rule: AutomationRule, name: str, template: dict, trigger: dict, details: dict | None = None
) -> AutomationRule:
    """PUT the whole rule (name, template, trigger); its customer cannot change. As for a
    create, only an approved request calls this."""

    def store(item: api.AutomationRule) -> AutomationRule:
        automation_rules_upsert(items=[item])
        rule.refresh_from_db()
        return rule

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
    )
