"""Monitoring's rules: the list with hit counts, new, page, edit, submit, approve, withdraw, pause,
resume, and backtests."""

import datetime as dt

from django.contrib import messages
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Max, Q
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from audit.records import audit_record
from core.access import role_required
from core.live import version_of
from core.together import fetch_together
from core.views import HttpResponsePermanentRedirectKeepMethod

from .. import tasks
from ..forms import KindForm, RuleForm
from ..models import Alert, AlertDecision, Backtest, MonitoringRule, RuleKind
from ..rules import PARAMS, describe
from ..services import (
    NotAllowed,
    pending_draft,
    rule_create,
    rule_new_version,
    rule_pause,
    rule_resume,
    rule_submit,
    rule_withdraw,
    waiting_version,
)

# The rules list's 30 days of hits per rule count a month of alerts (docs/benchmarks.md): kept
# for a minute under the alerts' version (their newest id and newest decision, read from two
# indexes), so that a new or a decided alert counts at once and the month slides within a minute.
RULE_HITS_SECONDS = 60


def rule_hits() -> dict[int, dict]:
    """Per rule pk: its alerts of the last 30 days (`hits`), those decided, the false positives."""
    version = Alert.objects.aggregate(newest=Max("pk"), decided=Max("decided_at"))
    key = f"monitoring:rule-hits:{version_of(version['newest'], version['decided'])}"
    figures = cache.get(key)
    if figures is None:
        since = timezone.now() - dt.timedelta(days=30)
        # One pass over that month's alerts (index alert_recent_hits).
        counted = (
            Alert.objects.filter(rule__isnull=False, created_at__gte=since)
            .values("rule")
            .annotate(
                hits=Count("*"),
                decided=Count(
                    "created_at", filter=Q(decision__in=[AlertDecision.TRUE_MATCH, AlertDecision.FALSE_POSITIVE])
                ),
                false_positives=Count("created_at", filter=Q(decision=AlertDecision.FALSE_POSITIVE)),
            )
            .order_by()
        )
        figures = {row["rule"]: row for row in counted}
        cache.set(key, figures, RULE_HITS_SECONDS)
    return figures


@role_required("view_monitoring")
@require_GET
def list_rules(request):
    rules = list(MonitoringRule.objects.select_related("current_version", "live_version").order_by("name", "pk")[:500])
    figures = rule_hits()
    rows = []
    for rule in rules:
        row = figures.get(rule.pk, {})
        rule.hits, rule.decided = row.get("hits", 0), row.get("decided", 0)
        rule.false_positives = row.get("false_positives", 0)
        version = rule.live_version or rule.current_version
        share = round(100 * rule.false_positives / rule.decided) if rule.decided else None
        rows.append((rule, describe(rule.kind, version.params) if version else "", share))
    return render(request, "monitoring/rules/list.html", {"rows": rows, "kinds": RuleKind.choices})


def _rule(pk):
    return get_object_or_404(MonitoringRule.objects.select_related("current_version__approval", "live_version"), pk=pk)


@role_required("manage_monitoring")
@require_http_methods(["GET", "POST"])
def create_rule(request):
    kind_form = KindForm({"kind": request.POST.get("kind") or request.GET.get("kind")})
    if not kind_form.is_valid():
        status = 400 if request.method == "POST" else 200
        context = {"form": KindForm(), "kinds": RuleKind.choices}
        return render(request, "monitoring/rules/choose_kind.html", context, status=status)
    kind = kind_form.cleaned_data["kind"]
    form = RuleForm(request.POST or None, kind=kind)
    if request.method == "POST" and form.is_valid():
        try:
            rule = rule_create(user=request.user, name=form.cleaned_data["name"], kind=kind, params=form.params())
        except ValidationError as exc:
            _add_errors(form, exc)
        else:
            messages.success(request, "Rule drafted. Backtest it, then submit it for approval.")
            return redirect("monitoring-view-rule", pk=rule.pk)
    context = {"form": form, "kind": RuleKind(kind), "rule": None}
    return render(request, "monitoring/rules/form.html", context, status=400 if form.errors else 200)


def _add_errors(form, exc: ValidationError) -> None:
    for name, errors in exc.message_dict.items():
        form.add_error(name if name in form.fields else None, errors)


@role_required("manage_monitoring")
@require_http_methods(["GET", "POST"])
def edit_rule(request, pk):
    rule = _rule(pk)
    version = rule.current_version
    form = RuleForm(request.POST or None, kind=rule.kind, initial={"name": rule.name}, initial_params=version.params)
    if request.method == "POST" and form.is_valid():
        try:
            rule_new_version(user=request.user, rule=rule, params=form.params(), name=form.cleaned_data["name"])
        except ValidationError as exc:
            _add_errors(form, exc)
        except NotAllowed as exc:
            messages.error(request, str(exc))
            return redirect("monitoring-view-rule", pk=rule.pk)
        else:
            messages.success(request, "New version drafted. The live version runs until this one is approved.")
            return redirect("monitoring-view-rule", pk=rule.pk)
    context = {"form": form, "kind": RuleKind(rule.kind), "rule": rule}
    return render(request, "monitoring/rules/form.html", context, status=400 if form.errors else 200)


@role_required("view_monitoring")
@require_GET
def view_rule(request, pk):
    rule = _rule(pk)
    versions = list(rule.versions.select_related("created_by", "approved_by").order_by("-number"))
    for version in versions:
        version.sentence = describe(rule.kind, version.params)
    # The newest backtests and alerts in one query; their versions are among those just read.
    backtests, alerts = fetch_together(
        Backtest.objects.filter(version__rule=rule).order_by("-pk")[:10],
        Alert.objects.filter(rule=rule).order_by("-created_at", "-id")[:20],
    )
    by_pk = {version.pk: version for version in versions}
    for backtest in backtests:
        if backtest.version_id in by_pk:
            backtest.version = by_pk[backtest.version_id]
    for alert in alerts:
        alert.rule = rule
        if alert.rule_version_id in by_pk:
            alert.rule_version = by_pk[alert.rule_version_id]
    context = {
        "rule": rule,
        "versions": versions,
        "backtests": backtests,
        "alerts": alerts,
        "params": PARAMS[rule.kind],
        "draft": pending_draft(rule),
        "waiting": waiting_version(rule),
        "own_version": rule.current_version and rule.current_version.created_by_id == request.user.pk,
    }
    return render(request, "monitoring/rules/show.html", context)


def _rule_action(step, done: str):
    @role_required("manage_monitoring")
    @require_POST
    def action(request, pk):
        rule = _rule(pk)
        try:
            step(user=request.user, rule=rule)
        except NotAllowed as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, done)
        return redirect("monitoring-view-rule", pk=rule.pk)

    action.__name__ = step.__name__
    return action


submit_rule = _rule_action(
    rule_submit, "Submitted: it waits for approval with the other requests; another admin approves it."
)
withdraw_rule = _rule_action(rule_withdraw, "Withdrawn from approval.")


@role_required("manage_monitoring")
@require_http_methods(["GET", "POST"])
def approve_rule(request, pk):
    """The old approval address: a rule is approved through its approval request now. 308 to
    the request's page (a POST to its approve, the method and body going along)."""
    rule = _rule(pk)
    version = rule.current_version
    if version is None or version.approval_id is None:
        return redirect("monitoring-view-rule", pk=rule.pk)
    name = "payments-approve-approval-request" if request.method == "POST" else "payments-view-approval-request"
    return HttpResponsePermanentRedirectKeepMethod(reverse(name, kwargs={"pk": version.approval_id}))


pause_rule = _rule_action(rule_pause, "Paused: the rule raises no alerts until resumed.")
resume_rule = _rule_action(rule_resume, "Resumed: the rule is live again.")


@role_required("manage_monitoring")
@require_POST
def backtest_rule(request, pk):
    rule = _rule(pk)
    with transaction.atomic():
        backtest = Backtest.objects.create(version=rule.current_version, started_by=request.user)
        audit_record(
            actor=request.user,
            action="monitoring.backtest",
            target_kind="monitoring_rule",
            target_id=rule.pk,
            details={"version": rule.current_version.number},
        )
        transaction.on_commit(lambda: tasks.run_backtest.delay(backtest.pk))
    return redirect(reverse("monitoring-view-rule", kwargs={"pk": rule.pk}) + f"#backtest-{backtest.pk}")


@role_required("view_monitoring")
@require_GET
def view_backtest(request, pk):
    """One backtest: its page, or its row alone for the rule page polling it while it runs."""
    backtest = get_object_or_404(Backtest.objects.select_related("version__rule", "started_by"), pk=pk)
    if request.htmx:
        return render(request, "monitoring/rules/_backtest.html", {"backtest": backtest})
    sentence = describe(backtest.version.rule.kind, backtest.version.params)
    return render(request, "monitoring/rules/backtest.html", {"backtest": backtest, "sentence": sentence})


# --- Watch lists ------------------------------------------------------------------------------------
