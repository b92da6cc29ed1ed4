"""Monitoring's pages under /monitoring/: alerts (list, export, page, decision, the hold of a
true match's payment account), rules (list, new, page, edit, submit, approve, withdraw, pause,
resume, backtest) and watch lists (list, import, page)."""

import datetime as dt
from functools import partial
from urllib.parse import quote

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
from core import labels
from core.access import role_required
from core.exports import Column, filtered_export, with_words
from core.live import version_of
from core.templatetags.timestamps import minute
from core.together import fetch_together
from core.views import HttpResponsePermanentRedirectKeepMethod, escaped, escaped_word, filtered_page, page_or_partial
from payments.forms.approvals import HoldForm
from payments.models import PaymentAccount, Transaction
from payments.services.approvals import accounts_waiting
from payments.views.accounts import ask_about_hold

from . import importers, tasks
from .filters import AlertFilter
from .forms import DecideForm, ImportForm, KindForm, RuleForm
from .models import Alert, AlertDecision, AlertKind, AlertStatus, Backtest, MonitoringRule, RuleKind, WatchList
from .rules import PARAMS, describe
from .services import (
    NotAllowed,
    alert_account_hold,
    alert_accounts,
    alert_decide,
    may_hold_from,
    pending_draft,
    rule_create,
    rule_new_version,
    rule_pause,
    rule_resume,
    rule_submit,
    rule_withdraw,
    waiting_version,
)

PAGE_SIZE = 50

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

EXPORT_COLUMNS = [
    Column("id", "alertId"),
    Column("created_at", "raisedAt"),
    *with_words("kind", "kind", labels.CASE_KIND),
    Column("status", "status"),
    Column("customer__customer_id", "customerId"),
    Column("rule__name", "rule"),
    Column("rule_version__number", "ruleVersion"),
    Column("entry__name", "listEntry"),
    Column("sentence", "why"),
    Column("decision", "decision"),
    Column("decided_by__username", "decidedBy"),
    Column("decided_at", "decidedAt"),
]


# --- Alerts ----------------------------------------------------------------------------------------


def _alerts():
    return Alert.objects.select_related("customer", "rule", "rule_version", "entry__watchlist", "decided_by")


# What the alerts list's rows show (monitoring/alerts/_rows.html): an alert's figures, its
# transactions and accounts (JSON), its decider and the rest of its customer are not read for a
# page of 50.
ROW_FIELDS = (
    "kind",
    "sentence",
    "status",
    "decision",
    "created_at",
    "customer__customer_id",
    "customer__name",
    "rule__name",
    "rule_version__number",
    "entry__watchlist__name",
)


def _alert_row(alert: Alert, list_url: str, customers_url: str) -> dict:
    """What a row of the alerts list shows, ready for monitoring/alerts/_rows.html: plain values
    in a dict (one lookup each, where a model's attribute costs the template an exception
    first), the filters' work done once here, every text escaped here."""
    e, w, customer, raised = escaped, escaped_word, alert.customer, timezone.localtime(alert.created_at)
    return {
        "pk": alert.pk,
        "href": f"{list_url}alerts/{alert.pk}/",
        "kind": w(alert.kind),
        "kind_label": w(labels.label("case_kind", alert.kind)),
        "rule": alert.rule is not None,
        "rule_name": w(alert.rule.name) if alert.rule else "",
        "rule_version": alert.rule_version.number if alert.rule_version else "",
        "watchlist": w(alert.entry.watchlist.name) if alert.entry else None,
        "customer_href": e(f"{customers_url}{quote(customer.customer_id, safe='')}/") if customer else None,
        "customer": e(customer.name or customer.customer_id) if customer else None,
        "sentence": e(alert.sentence),
        "status_label": w(alert.get_status_display()),
        "decision_label": w(alert.get_decision_display()) if alert.decision else "",
        "raised_iso": raised.isoformat(),
        "raised": minute(raised),
    }


@role_required("view_monitoring")
@require_GET
def list_alerts(request):
    rows = Alert.objects.select_related("customer", "rule", "rule_version", "entry__watchlist").only(*ROW_FIELDS)
    filterset, page = filtered_page(request, AlertFilter, rows, ordering=("-created_at", "-id"), size=PAGE_SIZE)
    urls = reverse("monitoring-list-alerts"), reverse("customers-list-customers")
    context = {"filter": filterset, "page": page, "alert_rows": [_alert_row(alert, *urls) for alert in page.items]}
    return render(request, page_or_partial(request, "monitoring/alerts/list.html"), context)


@role_required("view_monitoring")
@require_GET
def export_alerts(request):
    return filtered_export(request, AlertFilter, Alert.objects.all(), ("-created_at", "-id"), EXPORT_COLUMNS, "alerts")


def _alert_context(request, alert, form=None) -> dict:
    transactions = list(Transaction.objects.filter(transaction_id__in=alert.transaction_ids[:50]))
    order = {tx_id: i for i, tx_id in enumerate(alert.transaction_ids)}
    transactions.sort(key=lambda tx: order.get(tx.transaction_id, 0))
    accounts = list(alert_accounts(alert).select_related("held_by", "hold_approval")[:50])
    may_hold = may_hold_from(alert) and request.user.has_perm("core.hold_accounts")
    if may_hold:
        waiting = accounts_waiting(accounts)
        for account in accounts:
            account.hold_waiting = waiting.get(account.pk)
            # One form per account on the page: ids of their own (the decision has a reason too).
            account.hold_form = HoldForm(auto_id=f"id_hold_{account.pk}_%s")
    open_transfers = []
    if alert.kind == AlertKind.SCREENING and alert.customer_id:
        open_transfers = list(
            Transaction.objects.filter(
                customer_id=alert.customer_id, status__in=["CREATED", "AWAITING_TRANSFER"]
            ).order_by("-created_upstream_at", "-id")[:20]
        )
    return {
        "alert": alert,
        "transactions": transactions,
        "accounts": accounts,
        # A hit on the customer's own name names no account: the customer's are shown.
        "customer_accounts": not alert.account_ids,
        "may_hold": may_hold,
        "open_transfers": open_transfers,
        "form": form or DecideForm(),
        "may_decide": request.user.has_perm("core.decide_alerts") and alert.status == AlertStatus.OPEN,
        "rule_sentence": describe(alert.rule.kind, alert.rule_version.params) if alert.rule_version else "",
    }


@role_required("view_monitoring")
@require_GET
def view_alert(request, pk):
    alert = get_object_or_404(_alerts(), pk=pk)
    return render(request, "monitoring/alerts/show.html", _alert_context(request, alert))


@role_required("decide_alerts")
@require_POST
def decide_alert(request, pk):
    alert = get_object_or_404(_alerts(), pk=pk)
    form = DecideForm(request.POST)
    if form.is_valid():
        try:
            alert_decide(
                user=request.user,
                alert=alert,
                decision=form.cleaned_data["decision"],
                reason=form.cleaned_data["reason"],
            )
        except NotAllowed as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"Alert decided: {AlertDecision(form.cleaned_data['decision']).label}.")
        return redirect("monitoring-view-alert", pk=alert.pk)
    return render(request, "monitoring/alerts/show.html", _alert_context(request, alert, form), status=400)


@role_required("hold_accounts")
@require_POST
def hold_alert_account(request, pk, account_pk):
    """Ask for a hold of one of a true match's payment accounts in the back-office; a second
    admin approves it in "Waiting for approval" (payments' four-eyes)."""
    alert = get_object_or_404(_alerts(), pk=pk)
    account = get_object_or_404(PaymentAccount, pk=account_pk)
    ask = partial(alert_account_hold, user=request.user, alert=alert, account=account)
    back = reverse("monitoring-view-alert", args=[alert.pk])
    return ask_about_hold(request, ask, back=back, refusals=(NotAllowed,))


# --- Rules -----------------------------------------------------------------------------------------


# The rules list's 30 days of hits per rule count a month of alerts (30-40 ms for 90,000): kept
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


@role_required("view_monitoring")
@require_GET
def list_watchlists(request):
    return render(request, "monitoring/lists/list.html", {"lists": _watchlists(), "form": ImportForm()})


def _watchlists():
    return WatchList.objects.select_related("imported_by").order_by("name")[:200]


def _import(request, watchlist, form):
    data = form.cleaned_data
    uploads = {k: data.get(k).read() if data.get(k) else b"" for k in ("main", "aliases", "addresses")}
    try:
        entries = importers.read_files(data.get("format") or "", **uploads)
    except importers.ImportRefused as exc:
        form.add_error("main", str(exc))
        return None
    with transaction.atomic():
        if watchlist is None:
            fmt = data.get("format") or importers.format_of(uploads["main"])
            watchlist = WatchList.objects.create(name=data["name"], format=fmt)
        watchlist.match_threshold = data["match_threshold"]
        watchlist.save(update_fields=["match_threshold"])
        watchlist = importers.import_entries(watchlist, entries, user=request.user)
        audit_record(
            actor=request.user,
            action="monitoring.list_import",
            target_kind="watchlist",
            target_id=watchlist.pk,
            details={"entries": watchlist.entry_count, "addresses": watchlist.address_count},
        )
        WatchList.objects.filter(pk=watchlist.pk).update(screening_status="queued")
        list_pk = watchlist.pk
        transaction.on_commit(lambda: tasks.rescreen_mirror.delay(list_pk))
    return watchlist


@role_required("manage_monitoring")
@require_POST
def import_watchlist(request):
    form = ImportForm(request.POST, request.FILES, new=True)
    if form.is_valid():
        if WatchList.objects.filter(name=form.cleaned_data["name"]).exists():
            form.add_error("name", "A list has this name already: import into it from its page.")
        else:
            watchlist = _import(request, None, form)
            if watchlist is not None:
                messages.success(request, f"Imported {watchlist.entry_count} entries; the mirror is screened again.")
                return redirect("monitoring-view-watchlist", pk=watchlist.pk)
    return render(request, "monitoring/lists/list.html", {"lists": _watchlists(), "form": form}, status=400)


def _watchlist_page(request, watchlist, form, status=200):
    entries = watchlist.entries.order_by("name", "pk")[:50]
    template = page_or_partial(request, "monitoring/lists/show.html", "progress")
    return render(request, template, {"watchlist": watchlist, "entries": entries, "form": form}, status=status)


@role_required("view_monitoring")
@require_GET
def view_watchlist(request, pk):
    watchlist = get_object_or_404(WatchList.objects.select_related("imported_by"), pk=pk)
    return _watchlist_page(
        request, watchlist, ImportForm(new=False, initial={"match_threshold": watchlist.match_threshold})
    )


@role_required("manage_monitoring")
@require_POST
def reimport_watchlist(request, pk):
    """A new edition of the list's file(s): its entries replaced, the mirror screened again."""
    watchlist = get_object_or_404(WatchList.objects.select_related("imported_by"), pk=pk)
    form = ImportForm(request.POST, request.FILES, new=False)
    if form.is_valid() and _import(request, watchlist, form) is not None:
        messages.success(request, "Imported again; the mirror is screened again.")
        return redirect("monitoring-view-watchlist", pk=watchlist.pk)
    return _watchlist_page(request, watchlist, form, status=400)
