"""Transactions: the list and its CSV export, stuck work, one transaction, refresh, cancel."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core import labels
from core.access import role_required
from core.exports import filtered_export
from core.live import live_response, live_url, live_view, render_parts
from core.views import filtered_page, page_or_partial, paginate_keyset
from paymentsapi import PaymentsApiError
from upstream.api_errors import api_error_message

from ..filters import TransactionFilter
from ..forms.transactions import BulkCancelForm, CancelForm, StuckForm
from ..models import Transaction
from ..selectors import (
    EXPORT_COLUMNS,
    STUCK_RULE_LABELS,
    StuckRule,
    direction_of,
    stuck_version,
    transaction_page_lists,
    transaction_version,
    transactions_listed,
    transactions_stuck,
)
from ..services.transactions import (
    CANCELLABLE_STATUSES,
    NotCancellable,
    transaction_cancel,
    transaction_refresh,
    transactions_cancel_bulk,
)

PAGE_SIZE = 50
# The transaction page's parts that hold no form (core/live.py).
TRANSACTION_PARTS = ("status", "amounts", "instructions", "history")

# Labels of the fiat instructions' fields, in the order a payer reads them.
INSTRUCTION_LABELS = {
    "transferPaymentMethod": "Payment method",
    "transferBankName": "Bank name",
    "transferBankAddress": "Bank address",
    "transferBankBeneficiaryName": "Beneficiary",
    "transferBankAccountNumber": "Account number",
    "transferRoutingNumber": "Routing number",
    "transferIban": "IBAN",
    "transferBicSwift": "BIC / SWIFT",
    "transferIfscCode": "IFSC code",
    "transferSortCode": "Sort code",
    "transferBsbNumber": "BSB number",
    "transferTransitNumber": "Transit number",
    "transferBankCode": "Bank code",
    "transferClabeNumber": "CLABE",
    "transferRoutingCode": "Routing code",
    "transferBranchCode": "Branch code",
    "transferClearingCode": "Clearing code",
    "transferCnapsCode": "CNAPS code",
    "transferNubanCode": "NUBAN",
    "transferPixCode": "PIX key",
    "transferPaymentLink": "Payment link",
    "transferMessage": "Reference (quote it with the payment)",
    "depositAddress": "Deposit address",
    "chain": "Chain",
    "currency": "Currency",
    "amount": "Amount",
}


# Fields whose value is a payment method: shown in staff words, the code copied and on hover.
INSTRUCTION_METHODS = {"transferPaymentMethod", "chain"}


def instruction_rows(instructions: dict | None) -> list[tuple[str, str, str]]:
    """(label, shown, value) of the fields the rail or chain gave, labelled; a field we have no
    label for is kept. The value is what staff copy; a payment method is shown in words."""
    if not instructions:
        return []
    rows = []
    known = [k for k in INSTRUCTION_LABELS if k in instructions]
    extra = [k for k in instructions if k not in INSTRUCTION_LABELS and k != "type"]
    for key in known + extra:
        value = instructions[key]
        if isinstance(value, dict):
            value = value.get("label") or value.get("contractAddress") or ""
        if value not in (None, ""):
            shown = labels.label(labels.METHOD, value) if key in INSTRUCTION_METHODS else str(value)
            rows.append((INSTRUCTION_LABELS.get(key, key), shown, str(value)))
    return rows


@role_required("view_payments")
@require_GET
def list_transactions(request):
    ordering = ("-created_upstream_at", "-id")
    filterset, page = filtered_page(
        request, TransactionFilter, transactions_listed(), ordering=ordering, size=PAGE_SIZE
    )
    context = {"filter": filterset, "page": page}
    return render(request, page_or_partial(request, "payments/transactions/list.html"), context)


@role_required("view_payments")
@require_GET
def export_transactions(request):
    """The filtered list as CSV (core/exports.py), newest first as on the page."""
    ordering = ("-created_upstream_at", "-id")
    return filtered_export(
        request, TransactionFilter, Transaction.objects.all(), ordering, EXPORT_COLUMNS, "transactions"
    )


def _stuck_context(request, queryset, ordering, values, form, version: str) -> dict:
    page = paginate_keyset(queryset, ordering=ordering, cursor=request.GET.get("cursor"), size=PAGE_SIZE)
    return {
        "live_url": live_url(request, reverse("payments-list-stuck-transactions-live"), version),
        "form": form,
        "values": values,
        "rule_label": STUCK_RULE_LABELS[values["rule"]],
        "rules": STUCK_RULE_LABELS,
        "page": page,
        "bulk_form": BulkCancelForm(),
        # PROCESSING is never cancellable: no boxes to tick there.
        "selectable": values["rule"] != StuckRule.PROCESSING_LONG and request.user.has_perm("core.move_money"),
    }


@role_required("view_payments")
@require_GET
def list_stuck_transactions(request):
    form = StuckForm(request.GET)
    values = form.rule_values()
    queryset, ordering = transactions_stuck(**values)
    context = _stuck_context(request, queryset, ordering, values, form, stuck_version())
    return render(request, page_or_partial(request, "payments/transactions/stuck.html"), context)


def _stuck_of(request) -> tuple:
    form = StuckForm(request.GET)
    values = form.rule_values()
    queryset, ordering = transactions_stuck(**values)
    return form, values, queryset, ordering


@live_view("view_payments", lambda request: stuck_version())
@require_GET
def list_stuck_transactions_live(request):
    """The stuck view's rows, when the rule's rows changed (core/live.py)."""
    form, values, queryset, ordering = _stuck_of(request)
    version = stuck_version()

    def render_rows():
        context = _stuck_context(request, queryset, ordering, values, form, version)
        return render_parts(request, "payments/transactions/stuck.html", ["results"], context, poller=False)

    return live_response(request, version, render_rows)


@role_required("view_payments")
@require_GET
def view_transaction(request, transaction_id):
    version = transaction_version(transaction_id)  # before the reads: a change between is seen again
    tx = get_object_or_404(Transaction.objects.select_related("customer"), transaction_id=transaction_id)
    context = _transaction_context(tx)
    context["live_url"] = live_url(request, reverse("payments-view-transaction-live", args=[transaction_id]), version)
    return render(request, "payments/transactions/show.html", context)


@live_view("view_payments", lambda request, transaction_id: transaction_version(transaction_id))
@require_GET
def view_transaction_live(request, transaction_id):
    version = transaction_version(transaction_id)

    def render_parts_of_page():
        tx = get_object_or_404(Transaction.objects.select_related("customer"), transaction_id=transaction_id)
        context = {**_transaction_context(tx), "live_url": live_url(request, request.path, version)}
        return render_parts(request, "payments/transactions/show.html", TRANSACTION_PARTS, context)

    return live_response(request, version, render_parts_of_page)


def _transaction_context(tx: Transaction) -> dict:
    return {
        "tx": tx,
        "direction": direction_of(tx.source_payment_method),
        "instructions": instruction_rows(tx.transfer_instructions),
        "instructions_kind": (tx.transfer_instructions or {}).get("type", ""),
        "cancellable": tx.status in CANCELLABLE_STATUSES,
        "cancel_form": CancelForm(),
        # Accounts, rule, history and who moved the money: one query.
        **transaction_page_lists(tx),
    }


@role_required("move_money")
@require_POST
def refresh_transaction(request, transaction_id):
    tx = get_object_or_404(Transaction, transaction_id=transaction_id)
    try:
        tx = transaction_refresh(actor=request.user, tx=tx)
    except PaymentsApiError as exc:
        text = api_error_message(exc, write=False)
        messages.error(request, f"Could not refresh: {text} The page shows the last copy we have.")
    else:
        messages.success(request, f"Refreshed: {labels.label(labels.STATUS, tx.status).lower()}.")
    return redirect("payments-view-transaction", transaction_id=tx.transaction_id)


@role_required("move_money")
@require_http_methods(["GET", "POST"])
def cancel_transaction(request, transaction_id):
    """The confirmation as a page (GET: where the dialog cannot open, without JavaScript) and
    the cancel itself (POST)."""
    tx = get_object_or_404(Transaction, transaction_id=transaction_id)
    form = CancelForm(request.POST if request.method == "POST" else None)
    if not form.is_valid():  # the page, or again with the form's errors
        context = {"tx": tx, "cancellable": tx.status in CANCELLABLE_STATUSES, "cancel_form": form}
        return render(
            request, "payments/transactions/confirm_cancel.html", context, status=400 if form.is_bound else 200
        )
    try:
        tx = transaction_cancel(actor=request.user, tx=tx, reason=form.cleaned_data["reason"])
    except NotCancellable as exc:
        messages.error(request, str(exc))
    except PaymentsApiError as exc:
        messages.error(request, api_error_message(exc, write=True, repeatable=True))
    else:
        messages.success(request, f"Transaction cancelled: now {labels.label(labels.STATUS, tx.status).lower()}.")
    return redirect("payments-view-transaction", transaction_id=tx.transaction_id)


@role_required("move_money")
@require_POST
def bulk_cancel_transactions(request):
    form = BulkCancelForm(request.POST)
    if not form.is_valid():
        return render(request, "payments/transactions/bulk_cancel.html", {"form": form}, status=400)
    chosen = sorted(form.cleaned_data["transactions"], key=lambda tx: tx.pk)
    outcomes = transactions_cancel_bulk(actor=request.user, transactions=chosen, reason=form.cleaned_data["reason"])
    return render(request, "payments/transactions/bulk_cancel.html", {"form": form, "outcomes": outcomes})
