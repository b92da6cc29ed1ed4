"""Transactions: the list and its CSV export, stuck work, one transaction, refresh, cancel."""

import csv

from django.contrib import messages
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.access import role_required
from core.api_errors import api_error_message
from core.htmx import page_or_partial
from core.pagination import paginate_keyset
from core.redirects import moved
from paymentsapi import PaymentsApiError

from ..filters import TransactionFilter
from ..forms.transactions import BulkCancelForm, CancelForm, StuckForm
from ..models import Transaction
from ..selectors import (
    EXPORT_COLUMNS,
    STUCK_RULE_LABELS,
    StuckRule,
    direction_of,
    executed_by,
    transactions_listed,
    transactions_stuck,
)
from ..services.transactions import (
    CANCELLABLE_STATUSES,
    NotCancellable,
    status_text,
    transaction_cancel,
    transaction_refresh,
    transactions_cancel_bulk,
)

PAGE_SIZE = 50
EXPORT_CHUNK = 2000

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


def instruction_rows(instructions: dict | None) -> list[tuple[str, str]]:
    """Only the fields the rail or chain gave, labelled; a field we have no label for is kept."""
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
            rows.append((INSTRUCTION_LABELS.get(key, key), str(value)))
    return rows


@role_required("view_payments")
@require_GET
def list_transactions(request):
    filterset = TransactionFilter(request.GET, queryset=transactions_listed())
    queryset = filterset.qs if filterset.is_valid() else Transaction.objects.none()
    page = paginate_keyset(
        queryset, ordering=("-created_upstream_at", "-id"), cursor=request.GET.get("cursor"), size=PAGE_SIZE
    )
    export_query = request.GET.copy()
    export_query.pop("cursor", None)
    context = {"filter": filterset, "page": page, "export_query": export_query.urlencode()}
    return render(request, page_or_partial(request, "payments/transactions/list.html"), context)


def _csv_safe(value) -> str:
    """A cell a spreadsheet will not run as a formula (correlation ids are free text)."""
    text = "" if value is None else (value.isoformat() if hasattr(value, "isoformat") else str(value))
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") and not _is_number(text) else text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class _Echo:
    def write(self, value):
        return value


@role_required("view_payments")
@require_GET
def export_transactions(request):
    """The filtered list as CSV, streamed: rows are read in chunks (a server-side cursor on
    PostgreSQL) and written as they come, so memory stays flat at millions of rows."""
    filterset = TransactionFilter(request.GET, queryset=Transaction.objects.all())
    queryset = filterset.qs if filterset.is_valid() else Transaction.objects.none()
    fields = [field for field, _ in EXPORT_COLUMNS]
    rows = queryset.order_by("-created_upstream_at", "-id").values_list(*fields).iterator(chunk_size=EXPORT_CHUNK)
    writer = csv.writer(_Echo())

    def lines():
        yield writer.writerow([header for _, header in EXPORT_COLUMNS])
        for row in rows:
            yield writer.writerow([_csv_safe(value) for value in row])

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response["Content-Disposition"] = f'attachment; filename="transactions-{stamp}.csv"'
    return response


@role_required("view_payments")
@require_GET
def list_stuck_transactions(request):
    form = StuckForm(request.GET)
    values = form.rule_values()
    queryset, ordering = transactions_stuck(**values)
    page = paginate_keyset(queryset, ordering=ordering, cursor=request.GET.get("cursor"), size=PAGE_SIZE)
    context = {
        "form": form,
        "values": values,
        "rule_label": STUCK_RULE_LABELS[values["rule"]],
        "rules": STUCK_RULE_LABELS,
        "page": page,
        "bulk_form": BulkCancelForm(),
        # PROCESSING is never cancellable: no boxes to tick there.
        "selectable": values["rule"] != StuckRule.PROCESSING_LONG and request.user.has_perm("core.move_money"),
    }
    return render(request, page_or_partial(request, "payments/transactions/stuck.html"), context)


@role_required("view_payments")
@require_GET
def view_transaction(request, transaction_id):
    tx = get_object_or_404(Transaction.objects.select_related("customer"), transaction_id=transaction_id)
    context = {
        "tx": tx,
        "direction": direction_of(tx.source_payment_method),
        "instructions": instruction_rows(tx.transfer_instructions),
        "instructions_kind": (tx.transfer_instructions or {}).get("type", ""),
        "history": tx.status_changes.order_by("-changed_at", "-id"),
        "cancellable": tx.status in CANCELLABLE_STATUSES,
        "cancel_form": CancelForm(),
        **executed_by(tx),
    }
    return render(request, "payments/transactions/show.html", context)


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
        messages.success(request, f"Refreshed: {status_text(tx.status)}.")
    return redirect("payments-view-transaction", transaction_id=tx.transaction_id)


@role_required("move_money")
@require_http_methods(["GET", "POST"])
def cancel_transaction(request, transaction_id):
    """The confirmation as a page (GET: where the dialog cannot open, without JavaScript) and
    the cancel itself (POST)."""
    tx = get_object_or_404(Transaction, transaction_id=transaction_id)
    if request.method == "GET":
        context = {"tx": tx, "cancellable": tx.status in CANCELLABLE_STATUSES, "cancel_form": CancelForm()}
        return render(request, "payments/transactions/confirm_cancel.html", context)
    form = CancelForm(request.POST)
    if not form.is_valid():
        context = {"tx": tx, "cancellable": tx.status in CANCELLABLE_STATUSES, "cancel_form": form}
        return render(request, "payments/transactions/confirm_cancel.html", context, status=400)
    try:
        tx = transaction_cancel(actor=request.user, tx=tx, reason=form.cleaned_data["reason"])
    except NotCancellable as exc:
        messages.error(request, str(exc))
    except PaymentsApiError as exc:
        messages.error(request, api_error_message(exc, write=True, repeatable=True))
    else:
        messages.success(request, f"Transaction cancelled: now {status_text(tx.status)}.")
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


urlpatterns = [
    path("transactions/", list_transactions, name="payments-list-transactions"),
    path("transactions/export.csv", export_transactions, name="payments-export-transactions"),
    path("transactions/stuck", list_stuck_transactions, name="payments-list-stuck-transactions"),
    path("transactions/bulk-cancel", bulk_cancel_transactions, name="payments-bulk-cancel-transactions"),
    path("transactions/<str:transaction_id>/", view_transaction, name="payments-view-transaction"),
    path("transactions/<str:transaction_id>/refresh", refresh_transaction, name="payments-refresh-transaction"),
    path("transactions/<str:transaction_id>/cancel", cancel_transaction, name="payments-cancel-transaction"),
    # The address of before: one URL per form.
    moved("transactions/<str:transaction_id>/confirm-cancel", "payments-cancel-transaction"),
]
