"""Waiting for approval: the list of requests, one request with its figures, and the checker's
approve and reject and the maker's withdraw."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.access import recent_auth_required, require_permission, role_required
from core.views import filtered_page, page_or_partial
from upstream.api_errors import InFlight, api_error_message

from ..filters import ApprovalRequestFilter
from ..forms.approvals import ApproveForm, RejectForm
from ..forms.rules import trigger_words
from ..models import ApprovalKind, ApprovalRequest, ApprovalStatus, Transaction
from ..selectors import account_name, account_names
from ..services.approval_writes import ApprovalWriteFailed
from ..services.approvals import (
    PERMISSION_FOR,
    ApprovalRefused,
    approval_approve,
    approval_reject,
    approval_withdraw,
)

PAGE_SIZE = 50


@role_required("view_payments")
@require_GET
def list_approval_requests(request):
    """The requests waiting for a checker (by default), with maker, age and what they do."""
    data = request.GET if "status" in request.GET else {**request.GET.dict(), "status": ApprovalStatus.PENDING}
    requests = ApprovalRequest.objects.select_related("maker", "checker")
    ordering = ("-created_at", "-id")
    filterset, page = filtered_page(
        request, ApprovalRequestFilter, requests, ordering=ordering, size=PAGE_SIZE, data=data
    )
    template = page_or_partial(request, "payments/approvals/list.html")
    return render(request, template, {"filter": filterset, "page": page})


def _figures(approval: ApprovalRequest, user) -> dict:
    """What the request would do, with accounts by name rather than bare ids."""
    if approval.kind == ApprovalKind.EXECUTE_QUOTE:
        ends, figures = approval.quote, {"quote": approval.quote}
    elif "template" not in approval.payload:  # a kind written without a call upstream: its own words
        payload = approval.payload
        links = payload.get("links") or ([payload["link"]] if payload.get("link") else [])
        # Only the pages the viewer may open (another app's, an alert of monitoring's).
        links = [link for link in links if user.has_perm(f"core.{link.get('permission', 'view_payments')}")]
        return {"facts": payload.get("facts", []), "links": links}
    else:
        ends = approval.rule_terms
        figures = {"terms": ends, "trigger_words": trigger_words(ends)}
    names = account_names(ends.source_account_id, ends.destination_account_id)
    return {
        **figures,
        "source_name": account_name(names, ends.source_account_id),
        "destination_name": account_name(names, ends.destination_account_id),
    }


@role_required("view_payments")
@require_GET
def view_approval_request(request, pk):
    approval = get_object_or_404(
        ApprovalRequest.objects.select_related("maker", "checker", "quote__customer", "rule"), pk=pk
    )
    may_check = request.user.has_perm(f"core.{PERMISSION_FOR[approval.kind]}")
    context = {
        "approval": approval,
        **_figures(approval, request.user),
        "is_maker": approval.maker_id == request.user.pk,
        "may_check": may_check and approval.maker_id != request.user.pk,
        # An approval whose write was interrupted: its checker may send it again (same key).
        "may_retry": approval.status == ApprovalStatus.APPROVED and approval.checker_id == request.user.pk,
        "transaction": Transaction.objects.filter(transaction_id=approval.transaction_id).first()
        if approval.transaction_id
        else None,
        "approve_form": ApproveForm(),
        "reject_form": RejectForm(),
    }
    return render(request, "payments/approvals/show.html", context)


def _checkable(request, pk) -> ApprovalRequest:
    """The request, if the signed-in user holds the permission its kind needs (else 403)."""
    approval = get_object_or_404(ApprovalRequest.objects.select_related("maker", "quote__customer", "rule"), pk=pk)
    require_permission(request.user, PERMISSION_FOR[approval.kind])
    return approval


# The two views that move money (this and quotes.execute_quote) ask for the password or the
# second factor again when the last check is old (recent_auth_required, under role_required).
@role_required("view_payments")
@recent_auth_required
@require_POST
def approve_approval_request(request, pk):
    approval = _checkable(request, pk)
    form = ApproveForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Not approved: {form.errors['note'][0]}")
        return redirect("payments-view-approval-request", pk=approval.pk)
    try:
        approval = approval_approve(actor=request.user, approval=approval, note=form.cleaned_data["note"])
    except (ApprovalRefused, ApprovalWriteFailed) as exc:
        messages.error(request, str(exc))
        return redirect("payments-view-approval-request", pk=approval.pk)
    except InFlight as exc:
        messages.info(request, api_error_message(exc, write=True))
        return redirect("payments-view-approval-request", pk=approval.pk)
    if approval.status == ApprovalStatus.RETURNED:
        messages.warning(request, f"Returned to {approval.maker.get_username()}: {approval.reason}")
    elif approval.transaction_id:
        messages.success(request, f"Approved and executed for {approval.maker.get_username()}.")
        return redirect("payments-view-transaction", transaction_id=approval.transaction_id)
    else:
        messages.success(request, f"Approved: {approval.summary}.")
    return redirect("payments-view-approval-request", pk=approval.pk)


@role_required("view_payments")
@require_http_methods(["GET", "POST"])
def reject_approval_request(request, pk):
    """The reason form (GET) and the rejection (POST)."""
    approval = _checkable(request, pk)
    form = RejectForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            approval_reject(actor=request.user, approval=approval, reason=form.cleaned_data["reason"])
        except ApprovalRefused as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Rejected; {approval.maker.get_username()} sees your reason.")
            return redirect("payments-view-approval-request", pk=approval.pk)
    status = 400 if request.method == "POST" else 200
    return render(request, "payments/approvals/reject.html", {"approval": approval, "reject_form": form}, status=status)


@role_required("view_payments")
@require_POST
def withdraw_approval_request(request, pk):
    approval = _checkable(request, pk)
    try:
        approval_withdraw(actor=request.user, approval=approval)
    except ApprovalRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Withdrawn: nothing will be done.")
    return redirect("payments-view-approval-request", pk=approval.pk)
