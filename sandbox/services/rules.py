"""Automation rules: a transaction template and a trigger: a cron schedule, a balance threshold,
or both (the threshold checked on the schedule only)."""

import datetime as dt
from decimal import Decimal

from croniter import croniter
from django.db import transaction
from django.db.models import Q

from .. import clock
from ..errors import ApiError, bad_request, detail, validation_error
from ..models import SERVICE_ACCOUNT_TYPES, ApiKey, AutomationRule, Customer, PaymentAccount
from ..rates import amount_str, table
from .customers import CLOSED_CUSTOMER, customer_for_key
from .ledger import balance_currency, balance_get
from .quotes import price_request, quote_create
from .records import record_for_key
from .transactions import transaction_create

THRESHOLD_BASED, CRON_BASED = "THRESHOLD_BASED", "CRON_BASED"


def _quote_request(customer_id, template: dict) -> dict:
    """The quote request a template stands for."""
    data = {
        "customerId": customer_id,
        "source": {**template["source"], "sourceAmount": Decimal(template["amount"]["value"])},
        "destination": dict(template["destination"]),
    }
    if template.get("developerFee"):
        fee = template["developerFee"]
        data["developerFee"] = {**fee, "developerFeeAmount": Decimal(fee["developerFeeAmount"])}
    return data


def _stored_template(template: dict) -> dict:
    stored = {
        "source": {**template["source"], "sourcePaymentAccountId": str(template["source"]["sourcePaymentAccountId"])},
        "destination": {
            **template["destination"],
            "destinationPaymentAccountId": str(template["destination"]["destinationPaymentAccountId"]),
        },
        "amount": {"value": amount_str(template["amount"]["value"])},
    }
    if template.get("developerFee"):
        fee = template["developerFee"]
        stored["developerFee"] = {
            "developerFeeType": fee["developerFeeType"],
            "developerFeeAmount": amount_str(fee["developerFeeAmount"]),
        }
    return stored


def _validated_rule(*, api_key: ApiKey, data: dict) -> tuple[Customer, dict, dict]:
    """Validate like a quote would be at run time; -> (customer, stored template, stored trigger)."""
    customer = customer_for_key(api_key=api_key, customer_id=data["customerId"])
    if customer.status in CLOSED_CUSTOMER:
        raise bad_request(f"Customer {customer.pk} is {customer.status}: automation rules cannot be set up")
    template = _stored_template(data["transactionTemplate"])
    quote_request = _quote_request(customer.pk, template)
    pricing, src_account, _ = price_request(api_key=api_key, data=quote_request, customer=customer)
    trigger = data["trigger"]
    if "thresholdAmount" in trigger:
        if src_account.account_type not in SERVICE_ACCOUNT_TYPES:
            message = "A threshold needs a source account whose balance the service holds (a SERVICE_* account)"
            raise validation_error([detail(["trigger", "thresholdAmount"], message)])
        table().check_places(pricing.source, trigger["thresholdAmount"], ["trigger", "thresholdAmount"])
        stored_trigger = {"thresholdAmount": amount_str(trigger["thresholdAmount"])}
    else:
        stored_trigger = {}
    if "cronSchedule" in trigger:
        stored_trigger["cronSchedule"] = trigger["cronSchedule"]
    return customer, template, stored_trigger


def _next_run(trigger: dict, after: dt.datetime) -> dt.datetime | None:
    if "cronSchedule" not in trigger:
        return None
    return croniter(trigger["cronSchedule"], after).get_next(dt.datetime)


@transaction.atomic
def rule_create(*, api_key: ApiKey, data: dict) -> AutomationRule:
    customer, template, trigger = _validated_rule(api_key=api_key, data=data)
    now = clock.now()
    return AutomationRule.objects.create(
        customer=customer,
        name=data["name"],
        template=template,
        trigger=trigger,
        source_account_id=template["source"]["sourcePaymentAccountId"],
        created_at=now,
        next_run_at=_next_run(trigger, now),
        threshold_armed=True,
    )


def rule_for_key(*, api_key: ApiKey, rule_id, lock: bool = False) -> AutomationRule:
    rules = AutomationRule.objects.select_related("customer")
    if lock:
        rules = rules.select_for_update(of=("self",))
    return record_for_key(rules, api_key=api_key, kind="Automation rule", record_id=rule_id)


@transaction.atomic
def rule_update(*, api_key: ApiKey, rule_id, data: dict) -> AutomationRule:
    rule = rule_for_key(api_key=api_key, rule_id=rule_id, lock=True)
    if str(data["id"]) != str(rule.pk):
        raise bad_request(f"The body's id {data['id']} does not match the path's {rule.pk}")
    if str(data["customerId"]) != str(rule.customer_id):
        raise bad_request(f"Automation rule {rule.pk} belongs to customer {rule.customer_id}; customerId cannot change")
    _, template, trigger = _validated_rule(api_key=api_key, data=data)
    rule.name, rule.template = data["name"], template
    if trigger != rule.trigger:
        rule.trigger, rule.next_run_at, rule.threshold_armed = trigger, _next_run(trigger, clock.now()), True
    rule.source_account_id = template["source"]["sourcePaymentAccountId"]
    rule.save()
    return rule


def rule_list(*, api_key: ApiKey, customer_id=None, source_account_id=None):
    rules = AutomationRule.objects.filter(customer__organization_id=api_key.organization_id)
    if customer_id:
        rules = rules.filter(customer_id=customer_id)
    if source_account_id:
        rules = rules.filter(source_account_id=source_account_id)
    return rules.order_by("created_at", "id")


def rule_body(rule: AutomationRule) -> dict:
    rates = table()
    template = rule.template
    source, destination = template["source"], template["destination"]
    src_currency = rates.resolve(source["sourcePaymentMethod"], source["sourceCurrency"], ["sourceCurrency"])
    dst_currency = rates.resolve(
        destination["destinationPaymentMethod"], destination["destinationCurrency"], ["destinationCurrency"]
    )
    trigger = dict(rule.trigger)
    trigger["type"] = THRESHOLD_BASED if "thresholdAmount" in trigger else CRON_BASED
    return {
        "id": str(rule.pk),
        "name": rule.name,
        "customerId": str(rule.customer_id),
        "transactionTemplate": {
            "source": {**source, "sourceCurrency": src_currency.as_object()},
            "destination": {**destination, "destinationCurrency": dst_currency.as_object()},
            "amount": {"type": "FLAT", "value": template["amount"]["value"]},
            "developerFee": template.get("developerFee") or {"developerFeeType": "USD", "developerFeeAmount": "0.00"},
        },
        "trigger": trigger,
        "createdAt": clock.iso(rule.created_at),
    }


# --- firing ------------------------------------------------------------------------------------


def _threshold_reached(rule: AutomationRule) -> bool:
    account = PaymentAccount.objects.filter(account_id=rule.source_account_id).first()
    if account is None:
        return False
    source = rule.template["source"]
    currency = table().resolve(source["sourcePaymentMethod"], source["sourceCurrency"], ["sourceCurrency"])
    currency = balance_currency(account=account, chain=currency.chain or None, currency=currency.label)
    return balance_get(account=account, currency=currency) >= Decimal(rule.trigger["thresholdAmount"])


def _claim_firing(rule: AutomationRule, now: dt.datetime) -> bool:
    """Whether this runner fires the rule now. The claim is a conditional UPDATE on the state the
    runner read, so of two runners (two beats, a beat and the helper) exactly one fires a firing.

    Cron: due when next_run_at <= now; the next run is computed from now, so a clock that jumped
    over several runs fires once. Threshold: fires when the balance is at or above it and the rule
    is armed, then disarms; it re-arms when a check sees the balance below. Both: at each run of
    the schedule, fires if the balance is at or above the threshold (no arming: the schedule
    already spaces the firings)."""
    rules = AutomationRule.objects.filter(pk=rule.pk)
    if "cronSchedule" in rule.trigger:
        if rule.next_run_at is None:
            rules.filter(next_run_at__isnull=True).update(next_run_at=_next_run(rule.trigger, now))
            return False
        if rule.next_run_at > now:
            return False
        claimed = bool(rules.filter(next_run_at=rule.next_run_at).update(next_run_at=_next_run(rule.trigger, now)))
        return claimed and ("thresholdAmount" not in rule.trigger or _threshold_reached(rule))
    if _threshold_reached(rule):
        return bool(rules.filter(threshold_armed=True).update(threshold_armed=False))
    rules.filter(threshold_armed=False).update(threshold_armed=True)
    return False


def _acting_key(organization_id) -> ApiKey | None:
    """The key a firing acts with when no request brought one: the rule does not record the key
    that made it, so the organization's oldest writable key (its tier decides the developer fee)."""
    return ApiKey.objects.filter(organization_id=organization_id).order_by("read_only", "created_at", "pk").first()


def automation_rules_fire_due(*, api_key: ApiKey | None = None, source_account_id=None) -> dict:
    """Fire every rule that is due on the sandbox clock: each firing is one quote and one
    transaction from the template (correlationId "automation-rule:<id>"). The one code path of the
    periodic task, the balance-change check and the test helper automation-rules/run.

    - api_key: only that key's organization, acting with that key (the helper);
    - source_account_id: only the threshold rules on that account (after its balance changed);
      a threshold on a schedule waits for its schedule.

    A firing that fails (customer no longer ACTIVE, say) is reported and not retried: the
    schedule has moved on / the threshold is disarmed, as for a firing that succeeded."""
    now = clock.now()
    rules = AutomationRule.objects.select_related("customer").order_by("created_at", "id")
    if api_key is not None:
        rules = rules.filter(customer__organization_id=api_key.organization_id)
    if source_account_id is not None:
        rules = rules.filter(source_account_id=source_account_id, trigger__has_key="thresholdAmount").exclude(
            trigger__has_key="cronSchedule"
        )
    else:
        # Cron rules that are due or never scheduled, and every threshold rule.
        rules = rules.filter(Q(next_run_at__lte=now) | Q(next_run_at__isnull=True))
    fired, failed = [], []
    keys = {}
    for rule in rules:
        with transaction.atomic():
            if not _claim_firing(rule, now):
                continue
            organization_id = rule.customer.organization_id
            key = api_key or keys.get(organization_id) or keys.setdefault(organization_id, _acting_key(organization_id))
            if key is None:
                failed.append({"ruleId": str(rule.pk), "name": rule.name, "message": "The organization has no API key"})
                continue
            try:
                with transaction.atomic():
                    quote = quote_create(api_key=key, data=_quote_request(rule.customer_id, rule.template))
                    tx = transaction_create(api_key=key, quote_id=quote.pk, correlation_id=f"automation-rule:{rule.pk}")
            except ApiError as exc:
                failed.append({"ruleId": str(rule.pk), "name": rule.name, "message": exc.message})
                continue
        fired.append(
            {"ruleId": str(rule.pk), "name": rule.name, "transactionId": str(tx.pk), "transactionStatus": tx.status}
        )
    return {"fired": fired, "failed": failed}
