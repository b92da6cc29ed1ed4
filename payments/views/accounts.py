"""Payment accounts: list, detail with live balances, create (admin), refresh (admin), and the
asking for a hold or release in the back-office (admin; a second admin approves it)."""

from functools import partial

from django.contrib import messages
from django.http import HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.access import role_required
from core.exports import filtered_export
from core.forms import SUBMISSION_LOST, posted_submission
from core.views import filtered_page, page_or_partial
from paymentsapi import NotFound, PaymentsApiError, ValidationFailed
from upstream.api_errors import api_error_message

from ..filters import PaymentAccountFilter
from ..forms.accounts import ACCOUNT_FORMS
from ..forms.approvals import HoldForm
from ..models import AutomationRule, PaymentAccount
from ..rails import TOKENS
from ..selectors import ACCOUNT_EXPORT_COLUMNS
from ..services.accounts import payment_account_balances, payment_account_create, payment_account_refresh
from ..services.approvals import (
    ApprovalRefused,
    account_waiting,
    approval_request_account_hold,
    approval_request_account_release,
)

PAGE_SIZE = 50
# A balance is a nice-to-have on a page that is already shown: fail fast, never retry.


@role_required("view_payments")
@require_GET
def list_payment_accounts(request):
    accounts = PaymentAccount.objects.select_related("customer", "held_by", "hold_approval")
    ordering = ("-first_seen_at", "-id")
    filterset, page = filtered_page(request, PaymentAccountFilter, accounts, ordering=ordering, size=PAGE_SIZE)
    template = page_or_partial(request, "payments/accounts/list.html")
    return render(request, template, {"filter": filterset, "page": page})


@role_required("view_payments")
@require_GET
def export_payment_accounts(request):
    """The filtered list as CSV (core/exports.py), in the page's order; the type-specific
    details (bank account numbers, wallet addresses) stay out."""
    return filtered_export(
        request,
        PaymentAccountFilter,
        PaymentAccount.objects.all(),
        ("-first_seen_at", "-id"),
        ACCOUNT_EXPORT_COLUMNS,
        "payment-accounts",
    )


@role_required("view_payments")
@require_GET
def view_payment_account(request, pk):
    account = get_object_or_404(
        PaymentAccount.objects.select_related("customer", "held_by", "hold_approval__checker"), pk=pk
    )
    rules = (
        AutomationRule.objects.filter(source_account_id=account.account_id).order_by("-id")[:20]
        if account.account_id
        else []
    )
    context = {
        "account": account,
        "rules": rules,
        "hold_waiting": account_waiting(account) if account.account_id else None,
        "hold_form": HoldForm(),
    }
    return render(request, "payments/accounts/detail.html", context)


@role_required("view_payments")
@require_GET
def view_payment_account_balances(request, pk):
    """The balances, asked from the API when the detail page has rendered (a fragment for htmx,
    a page of its own for the link without JavaScript)."""
    account = get_object_or_404(PaymentAccount.objects.select_related("customer"), pk=pk)
    rows, error = ([], "") if not account.account_id else payment_account_balances(account)
    template = page_or_partial(request, "payments/accounts/balances.html", "balances")
    return render(request, template, {"account": account, "rows": rows, "error": error})


@role_required("manage_accounts")
@require_http_methods(["GET", "POST"])
def create_payment_account(request):
    """The form of a new payment account (GET, `type` and `customer` prefill it) and its
    creation (POST)."""
    if request.method == "POST":
        return _create_payment_account(request)
    account_type = request.GET.get("type", "")
    if account_type not in ACCOUNT_FORMS:
        account_type = next(iter(ACCOUNT_FORMS))
    form = ACCOUNT_FORMS[account_type](initial={"customer_id": request.GET.get("customer", ""), "entry": "DETAILS"})
    return _render_new(request, form)


def _render_new(request, form):
    types = [(name, form_class.title) for name, form_class in ACCOUNT_FORMS.items()]
    return render(
        request,
        "payments/accounts/new.html",
        {"form": form, "account_type": form.account_type, "types": types, "tokens": TOKENS},
    )


def _create_payment_account(request):
    form_class = ACCOUNT_FORMS.get(request.POST.get("account_type", ""))
    if form_class is None:
        return HttpResponseBadRequest("Unknown payment account type.")
    form = form_class(request.POST)
    submission = posted_submission(request)
    if form.is_valid() and submission is None:
        form.add_error(None, SUBMISSION_LOST)
    elif form.is_valid():
        try:
            account = payment_account_create(
                actor=request.user,
                submission=submission,
                account_type=form.account_type,
                customer_id=form.cleaned_data["customer_id"],
                nickname=form.cleaned_data["nickname"],
                is_third_party=form.is_third_party(),
                details=form.details(),
            )
        except ValidationFailed as error:
            form.add_api_errors(error.field_errors)
        except PaymentsApiError as error:
            # Sending the same form again is safe: the back-office reads the API back first.
            form.add_error(None, api_error_message(error, write=True, repeatable=True))
        else:
            if account.status == "PENDING":
                messages.success(request, "Bank account created: send the owner the hosted form link below.")
            else:
                messages.success(request, f"{form.title} created.")
            return redirect("payments-view-payment-account", pk=account.pk)
    return _render_new(request, form)


@role_required("manage_accounts")
@require_POST
def refresh_payment_account(request, pk):
    account = get_object_or_404(PaymentAccount, pk=pk)
    try:
        account, message = payment_account_refresh(actor=request.user, account=account)
    except NotFound:
        messages.error(request, "The Payments API no longer has this account.")
    except PaymentsApiError as error:
        messages.error(request, api_error_message(error, write=False))
    else:
        messages.success(request, message)
    return redirect("payments-view-payment-account", pk=account.pk)


HOLD_ASKED = "Hold asked for: another admin approves it in Waiting for approval. Nothing is held until then."


def ask_about_hold(request, ask, *, back: str, done: str = HOLD_ASKED, refusals=(ApprovalRefused,)):
    """Ask for a hold or release of an account with the form's reason (`ask(reason=...)`, a
    service with its actor and account bound); the request's page next, where a second admin
    approves it. A bad reason or a refusal (`refusals`) goes back to `back` with the reason why.
    Also the hold asked from a monitoring alert's page."""
    form = HoldForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Nothing was asked: {form.errors['reason'][0]}")
        return redirect(back)
    try:
        approval = ask(reason=form.cleaned_data["reason"])
    except refusals as exc:
        messages.error(request, str(exc))
        return redirect(back)
    messages.success(request, done)
    return redirect("payments-view-approval-request", pk=approval.pk)


@role_required("hold_accounts")
@require_POST
def hold_payment_account(request, pk):
    account = get_object_or_404(PaymentAccount, pk=pk)
    ask = partial(approval_request_account_hold, actor=request.user, account=account)
    return ask_about_hold(request, ask, back=reverse("payments-view-payment-account", args=[account.pk]))


@role_required("hold_accounts")
@require_POST
def release_payment_account(request, pk):
    account = get_object_or_404(PaymentAccount, pk=pk)
    return ask_about_hold(
        request,
        partial(approval_request_account_release, actor=request.user, account=account),
        back=reverse("payments-view-payment-account", args=[account.pk]),
        done="Release asked for: another admin approves it in Waiting for approval. The hold stands until then.",
    )
