"""Monitoring's alerts: the list, its export, an alert's page, the decision, and the hold of a
true match's payment account."""

from functools import partial
from urllib.parse import quote

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from core import labels
from core.access import role_required
from core.exports import Column, filtered_export, with_words
from core.templatetags.timestamps import minute
from core.views import escaped, escaped_word, filtered_page, page_or_partial
from payments.forms.approvals import HoldForm
from payments.models import PaymentAccount, Transaction
from payments.services.approvals import accounts_waiting
from payments.views.accounts import ask_about_hold

from ..filters import AlertFilter
from ..forms import DecideForm
from ..models import Alert, AlertDecision, AlertKind, AlertStatus
from ..rules import describe
from ..services import (
    NotAllowed,
    alert_account_hold,
    alert_accounts,
    alert_decide,
    may_hold_from,
)

PAGE_SIZE = 50

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
