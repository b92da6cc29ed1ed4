"""Monitoring's sections of other apps' pages: `{% load monitoring_sections %}` then
`{% customer_alerts customer %}` on the customer page (core.together.page_section)."""

from django import template
from django.db.models import F, OuterRef, QuerySet, Subquery

from core.together import page_section, rows_for

from ..models import Alert, AlertStatus, MonitoringRule, RuleVersion

register = template.Library()

OPEN_ROWS = 20
DECIDED_ROWS = 5


def customer_alert_lists(pk, key="") -> dict[str, QuerySet]:
    """The customer's open alerts, newest first, and the latest decided ones, with the rules
    and versions that raised them (a customer's alerts name a handful of rules)."""
    alerts = Alert.objects.filter(customer_id=pk)
    return {
        "open": alerts.filter(status=AlertStatus.OPEN).order_by("-created_at", "-id")[:OPEN_ROWS],
        "decided": alerts.filter(status=AlertStatus.DECIDED).order_by("-decided_at", "-id")[:DECIDED_ROWS],
        "rules": MonitoringRule.objects.filter(pk__in=alerts.values("rule_id")).order_by("id"),
        "versions": RuleVersion.objects.filter(pk__in=alerts.values("rule_version_id")).order_by("id"),
    }


def customer_alerts_version() -> dict:
    """The section's columns of the customer page's version: a new alert brings a new newest
    id, a decision a new newest decision time."""
    alerts = Alert.objects.filter(customer_id=OuterRef("pk"))
    return {
        "monitoring_alerts_newest": Subquery(alerts.order_by("-created_at", "-id").values("id")[:1]),
        "monitoring_alerts_decided": Subquery(
            alerts.order_by(F("decided_at").desc(nulls_last=True)).values("decided_at")[:1]
        ),
    }


@register.inclusion_tag("monitoring/_customer_alerts.html", takes_context=True)
@page_section(customer_alert_lists, customer_alerts_version)
def customer_alerts(context, customer):
    """The customer's open alerts and the latest decided ones, each saying why it fired and
    linking to its page, for staff who may read monitoring; a link to all of them."""
    perms = context.get("perms")
    if not (perms and perms["core"]["view_monitoring"]):
        return {"shown": False, "live": context.get("live")}
    rows = rows_for(context, customer_alerts, customer.pk, customer.customer_id)
    rules = {rule.pk: rule for rule in rows["rules"]}
    versions = {version.pk: version for version in rows["versions"]}
    for alert in (*rows["open"], *rows["decided"]):
        alert.rule = rules.get(alert.rule_id)
        alert.rule_version = versions.get(alert.rule_version_id)
    return {
        "shown": True,
        "live": context.get("live"),
        "customer": customer,
        "open": rows["open"],
        "decided": rows["decided"],
        "more_open": len(rows["open"]) == OPEN_ROWS,
    }
