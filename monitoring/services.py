"""What changes monitoring's records: evaluation of transactions by the live rules, the rules'
lifecycle (draft, submit to the four-eyes of payments, live once a second person approves,
pause, resume, new version), the decisions on alerts, and the hold of a payment account asked
from a screening true match. Every staff step is audited in the same database transaction."""

from django.db import transaction
from django.db.models import Count, Q
from django.dispatch import Signal
from django.urls import reverse
from django.utils import timezone

from audit.records import audit_record
from customers.models import OPEN_ALERT_COLUMNS, Customer
from payments.models import ApprovalKind, ApprovalRequest, PaymentAccount, Transaction
from payments.services.approval_writes import ApprovalWriteFailed
from payments.services.approvals import (
    ApprovalRefused,
    approval_approve,
    approval_request_account_hold,
    approval_request_registered,
    approval_withdraw,
)

from .detection import detect
from .models import Alert, AlertDecision, AlertKind, AlertStatus, MonitoringRule, RuleStatus, RuleVersion
from .rules import NOT_COUNTED, clean_params, describe

# The audit log's words for monitoring's actions (core.labels.ACTION).
ACTION_LABELS = {
    "monitoring.rule_create": "Drafted a monitoring rule",
    "monitoring.rule_edit": "Drafted a new version of a monitoring rule",
    "monitoring.rule_submit": "Submitted a monitoring rule for approval",
    "monitoring.rule_withdraw": "Withdrew a monitoring rule from approval",
    "monitoring.rule_approve": "Approved a monitoring rule",
    "monitoring.rule_pause": "Paused a monitoring rule",
    "monitoring.rule_resume": "Resumed a monitoring rule",
    "monitoring.backtest": "Backtested a monitoring rule",
    "monitoring.alert_decide": "Decided a monitoring alert",
    "monitoring.list_import": "Imported a watch list",
}

# --- Evaluation ----------------------------------------------------------------------------------


def live_versions() -> list[RuleVersion]:
    return list(
        RuleVersion.objects.filter(
            pk__in=MonitoringRule.objects.filter(status=RuleStatus.LIVE).values("live_version")
        ).select_related("rule")
    )


def alert_key(rule_id: int, customer_id: int, hit_key: str) -> str:
    return f"rule:{rule_id}:cust:{customer_id}:{hit_key}"


def evaluate_transactions(pks, versions: list[RuleVersion] | None = None) -> int:
    """Run every live rule over the transactions `pks` (changed in the mirror); returns how many
    new alerts were raised. Safe to run again: a hit already raised is not raised twice."""
    versions = live_versions() if versions is None else versions
    if not versions:
        return 0
    alerts = []
    rows = Transaction.objects.filter(pk__in=pks, customer__isnull=False).exclude(status__in=NOT_COUNTED)
    for tx in rows:
        for version in versions:
            hit = detect(version.rule.kind, version.params, tx)
            if hit is not None:
                alerts.append(
                    Alert(
                        kind=AlertKind.MONITORING,
                        customer_id=tx.customer_id,
                        rule_id=version.rule_id,
                        rule_version=version,
                        dedupe_key=alert_key(version.rule_id, tx.customer_id, hit.key),
                        sentence=hit.sentence[:500],
                        figures=hit.figures,
                        transaction_ids=hit.transaction_ids,
                        account_ids=hit.account_ids,
                    )
                )
    return len(raise_alerts(alerts))


# Sent after new alerts are stored, with their dedupe keys (an alert raised by two workers at
# once may be announced twice: a receiver keys its work on the alert).
alerts_raised = Signal()


def refresh_open_alerts(customer_pks) -> None:
    """Set the customers' open alert counts from their alerts, in the caller's transaction.

    The customers are row-locked first, in pk order: of two transactions raising or deciding
    alerts of one customer, the second counts once the first has committed (each statement of
    READ COMMITTED sees what committed before it), so the counts never miss an alert.
    """
    pks = sorted({pk for pk in customer_pks if pk is not None})
    if not pks:
        return
    list(Customer.objects.select_for_update().filter(pk__in=pks).order_by("pk").values_list("pk", flat=True))
    open_alerts = Alert.objects.filter(customer_id__in=pks, status=AlertStatus.OPEN)
    counts = {
        row["customer_id"]: row
        for row in open_alerts.values("customer_id").annotate(
            **{column: Count("id", filter=Q(kind=kind)) for kind, column in OPEN_ALERT_COLUMNS.items()}
        )
    }
    zero = dict.fromkeys(OPEN_ALERT_COLUMNS.values(), 0)
    changed = []
    for customer in Customer.objects.filter(pk__in=pks).only("pk", *OPEN_ALERT_COLUMNS.values()):
        row = counts.get(customer.pk, zero)
        if any(getattr(customer, column) != row[column] for column in zero):
            for column in zero:
                setattr(customer, column, row[column])
            changed.append(customer)
    Customer.objects.bulk_update(changed, list(zero), batch_size=500)


def raise_alerts(alerts: list[Alert]) -> list[Alert]:
    """Store the alerts whose key is new; those raised already are left as they are. Their
    customers' open alert counts move in the same transaction."""
    if not alerts:
        return []
    keys = [a.dedupe_key for a in alerts]
    known = set(Alert.objects.filter(dedupe_key__in=keys).values_list("dedupe_key", flat=True))
    fresh = list({a.dedupe_key: a for a in alerts if a.dedupe_key not in known}.values())
    with transaction.atomic():
        # ignore_conflicts: a worker that raised the same alert meanwhile wins, without an error.
        Alert.objects.bulk_create(fresh, ignore_conflicts=True, batch_size=1000)
        refresh_open_alerts(a.customer_id for a in fresh)
    if fresh:
        # bulk_create sends no post_save: those who act on a new alert (notifications) hear this.
        alerts_raised.send(sender=Alert, dedupe_keys=[a.dedupe_key for a in fresh])
    return fresh


# --- Rule lifecycle ------------------------------------------------------------------------------


class NotAllowed(Exception):
    """The step is not open to this person or in the rule's state; the message says why."""


def _audit(user, action: str, rule: MonitoringRule, **details) -> None:
    audit_record(actor=user, action=action, target_kind="monitoring_rule", target_id=rule.pk, details=details)


@transaction.atomic
def rule_create(*, user, name: str, kind: str, params: dict) -> MonitoringRule:
    params = clean_params(kind, params)
    rule = MonitoringRule.objects.create(name=name, kind=kind, created_by=user)
    version = RuleVersion.objects.create(rule=rule, number=1, params=params, created_by=user)
    rule.current_version = version
    rule.save(update_fields=["current_version"])
    _audit(user, "monitoring.rule_create", rule, kind=kind, version=1)
    return rule


def _locked(rule: MonitoringRule) -> MonitoringRule:
    """The rule, locked until the end of the transaction. Its versions are read after the lock
    (lazily), never joined in the locking query: PostgreSQL re-reads the locked row after a wait
    but not the rows joined to it, and a second submit would see the version still a draft."""
    return MonitoringRule.objects.select_for_update().get(pk=rule.pk)


@transaction.atomic
def rule_new_version(*, user, rule: MonitoringRule, params: dict, name: str | None = None) -> RuleVersion:
    """An edit: a new draft version (the live one keeps running until this one is approved)."""
    rule = _locked(rule)
    if waiting_version(rule) is not None:
        raise NotAllowed("This version waits for approval: withdraw it or have it approved first.")
    params = clean_params(rule.kind, params)
    number = (rule.current_version.number if rule.current_version else 0) + 1
    version = RuleVersion.objects.create(rule=rule, number=number, params=params, created_by=user)
    rule.current_version = version
    fields = ["current_version"]
    if name:
        rule.name = name
        fields.append("name")
    if rule.status != RuleStatus.LIVE or rule.live_version is None:
        rule.status = RuleStatus.DRAFT
        fields.append("status")
    rule.save(update_fields=fields)
    _audit(user, "monitoring.rule_edit", rule, version=number)
    return version


def pending_draft(rule: MonitoringRule) -> bool:
    """The current version is a draft not yet submitted (a new rule, or an edit of a live one)."""
    version = rule.current_version
    return version is not None and version.approved_at is None and version.submitted_at is None


def waiting_version(rule: MonitoringRule) -> RuleVersion | None:
    """The current version while its approval request waits for a checker."""
    version = rule.current_version
    if version is not None and version.submitted_at is not None and version.approved_at is None:
        return version
    return None


def _approval_words(rule: MonitoringRule, version: RuleVersion) -> tuple[str, dict]:
    sentence = describe(rule.kind, version.params)
    summary = f"Make monitoring rule “{rule.name}” live at version {version.number}: {sentence}"
    payload = {
        "ruleId": rule.pk,
        "versionId": version.pk,
        "version": version.number,
        "facts": [
            ["Rule", rule.name],
            ["Kind", rule.get_kind_display()],
            ["Version", f"v{version.number}"],
            ["What it looks for", sentence],
            ["Replaces", f"v{rule.live_version.number}, live now" if rule.live_version_id else "nothing: a new rule"],
        ],
        "link": {
            "url": reverse("monitoring-view-rule", kwargs={"pk": rule.pk}),
            "text": "The rule, its backtests",
            "permission": "view_monitoring",  # only those who may open it see the link
        },
    }
    return summary, payload


@transaction.atomic
def rule_submit(*, user, rule: MonitoringRule) -> ApprovalRequest:
    """Ask for the draft to go live: an approval request in the four-eyes of payments (the
    "Waiting for approval" list), which another person holding manage_monitoring approves."""
    rule = _locked(rule)
    if not pending_draft(rule):
        raise NotAllowed("There is no draft to submit.")
    version = rule.current_version
    if version.created_by_id not in (None, user.pk):
        # The maker of the request is the one who drafted it: a second person approves it.
        raise NotAllowed("Only the person who drafted this version submits it.")
    summary, payload = _approval_words(rule, version)
    approval = approval_request_registered(
        actor=user, kind=ApprovalKind.MONITORING_RULE, summary=summary, payload=payload
    )
    version.submitted_at, version.approval = timezone.now(), approval
    version.save(update_fields=["submitted_at", "approval"])
    if rule.live_version_id is None:
        # A live or paused rule keeps its state: its approved version runs until this one is.
        rule.status = RuleStatus.WAITING
        rule.save(update_fields=["status"])
    _audit(user, "monitoring.rule_submit", rule, version=version.number, approval=approval.pk)
    return approval


def rule_withdraw(*, user, rule: MonitoringRule) -> None:
    """The maker withdraws the waiting request (request_closed puts the version back to draft)."""
    version = waiting_version(_rule_fresh(rule))
    if version is None or version.approval is None:
        raise NotAllowed("Nothing waits for approval.")
    try:
        approval_withdraw(actor=user, approval=version.approval)
    except ApprovalRefused as exc:
        raise NotAllowed(str(exc)) from None


def _rule_fresh(rule: MonitoringRule) -> MonitoringRule:
    return MonitoringRule.objects.select_related("current_version__approval").get(pk=rule.pk)


def rule_approve(*, user, rule: MonitoringRule, note: str = "") -> None:
    """Approve the waiting version through its approval request (as the "Waiting for approval"
    page does): its maker never can, of two checkers at once one wins."""
    version = waiting_version(_rule_fresh(rule))
    if version is None or version.approval is None:
        raise NotAllowed("Nothing waits for approval.")
    try:
        approval_approve(actor=user, approval=version.approval, note=note)
    except (ApprovalRefused, ApprovalWriteFailed) as exc:
        raise NotAllowed(str(exc)) from None


def make_version_live(*, actor, approval: ApprovalRequest) -> tuple[dict, dict]:
    """The write of an approved request (registered with payments): the version goes live.
    Runs in the request's move to executed; a version live already is left as it is."""
    rule = MonitoringRule.objects.select_for_update(of=("self",)).get(pk=approval.payload["ruleId"])
    version = RuleVersion.objects.get(pk=approval.payload["versionId"], rule=rule)
    details = {"monitoringRule": rule.pk, "version": version.number}
    if version.approved_at is not None:
        return details, {}
    version.approved_by, version.approved_at = actor, timezone.now()
    version.save(update_fields=["approved_by", "approved_at"])
    rule.live_version = version
    if rule.status != RuleStatus.PAUSED:  # a paused rule stays paused, at its new version
        rule.status = RuleStatus.LIVE
    rule.save(update_fields=["status", "live_version"])
    _audit(actor, "monitoring.rule_approve", rule, version=version.number, approval=approval.pk)
    return details, {}


def put_back_draft(sender, *, approval: ApprovalRequest, **kwargs) -> None:
    """A monitoring rule's request rejected, withdrawn or expired: its version is a draft again."""
    if approval.kind != ApprovalKind.MONITORING_RULE:
        return
    version = RuleVersion.objects.filter(approval=approval, approved_at__isnull=True).first()
    if version is None:
        return
    RuleVersion.objects.filter(pk=version.pk).update(submitted_at=None)
    MonitoringRule.objects.filter(pk=version.rule_id, status=RuleStatus.WAITING).update(status=RuleStatus.DRAFT)


@transaction.atomic
def rule_pause(*, user, rule: MonitoringRule) -> None:
    rule = _locked(rule)
    if rule.status != RuleStatus.LIVE:
        raise NotAllowed("Only a live rule can be paused.")
    rule.status = RuleStatus.PAUSED
    rule.save(update_fields=["status"])
    _audit(user, "monitoring.rule_pause", rule, version=rule.live_version.number)


@transaction.atomic
def rule_resume(*, user, rule: MonitoringRule) -> None:
    rule = _locked(rule)
    if rule.status != RuleStatus.PAUSED or rule.live_version is None:
        raise NotAllowed("Only a paused rule can be resumed.")
    rule.status = RuleStatus.LIVE
    rule.save(update_fields=["status"])
    _audit(user, "monitoring.rule_resume", rule, version=rule.live_version.number)


# --- Decisions ----------------------------------------------------------------------------------


@transaction.atomic
def alert_decide(*, user, alert: Alert, decision: str, reason: str) -> Alert:
    """Decide an open alert (true match, false positive, needs more) with a reason. "Needs
    more" keeps the alert open: it is a note on the way, audited like the others."""
    try:
        alert = Alert.objects.select_for_update().get(pk=alert.pk)
    except Alert.DoesNotExist:
        raise NotAllowed("This alert no longer exists.") from None
    if alert.status != AlertStatus.OPEN:
        raise NotAllowed("This alert was decided already.")
    if decision not in AlertDecision.values:
        raise NotAllowed("Choose a decision.")
    if not reason.strip():
        raise NotAllowed("Give a reason.")
    alert.decision, alert.reason = decision, reason.strip()
    alert.decided_by, alert.decided_at = user, timezone.now()
    if decision != AlertDecision.NEEDS_MORE:
        alert.status = AlertStatus.DECIDED
    alert.save(update_fields=["decision", "reason", "decided_by", "decided_at", "status"])
    if alert.status != AlertStatus.OPEN:
        refresh_open_alerts([alert.customer_id])
    audit_record(
        actor=user,
        action="monitoring.alert_decide",
        target_kind="monitoring_alert",
        target_id=alert.pk,
        details={"decision": decision, "kind": alert.kind},
    )
    return alert


# --- Holds from a true match ------------------------------------------------------------------------


def alert_accounts(alert: Alert):
    """The payment accounts of an alert: those it names (a payee's bank account, a wallet); for a
    screening hit on the customer's own name, which names none, the customer's accounts."""
    if alert.account_ids:
        return PaymentAccount.objects.filter(account_id__in=alert.account_ids).order_by("pk")
    if alert.kind == AlertKind.SCREENING and alert.customer_id:
        return PaymentAccount.objects.filter(customer_id=alert.customer_id, account_id__isnull=False).order_by("pk")
    return PaymentAccount.objects.none()


def may_hold_from(alert: Alert) -> bool:
    """A hold is asked from a screening alert once it is decided a true match."""
    return alert.kind == AlertKind.SCREENING and alert.decision == AlertDecision.TRUE_MATCH


def alert_account_hold(*, user, alert: Alert, account: PaymentAccount, reason: str) -> ApprovalRequest:
    """Ask for a hold of one of a true match's accounts in the back-office (the Payments API
    cannot deactivate it): payments' four-eyes, another admin approves it. The request and the
    held account link back to the alert."""
    if not may_hold_from(alert):
        raise NotAllowed("A hold is asked from a screening alert decided a true match.")
    if not alert_accounts(alert).filter(pk=account.pk).exists():
        raise NotAllowed("This account is not one of the alert's.")
    origin = {
        "url": reverse("monitoring-view-alert", kwargs={"pk": alert.pk}),
        "text": f"Screening alert #{alert.pk}",
        "permission": "view_monitoring",
    }
    try:
        return approval_request_account_hold(
            actor=user,
            account=account,
            reason=reason,
            origin=origin,
            facts=[["Alert", f"#{alert.pk}: {alert.sentence}"]],
        )
    except ApprovalRefused as exc:
        raise NotAllowed(str(exc)) from None
