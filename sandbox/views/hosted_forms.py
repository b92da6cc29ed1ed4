"""Hosted forms at {forms_url} = {base_url}/forms: server-rendered pages, not API operations.

- forms/verify/<token>: the KYC (individual) or KYB (business) form behind verificationLink;
- forms/bank-accounts/<token>: the form behind a pending bank account's bankAccountFormLink.

The token in the address is the only credential: whoever holds the link may fill the form, as
with the provider's links. These pages, and only these, may be framed by other sites (the spec:
"embeddable in iframes"); the CSP stays strict otherwise (no inline script or style).
"""

from csp.decorators import csp_replace
from django.conf import settings
from django.shortcuts import redirect, render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from ..errors import ApiError
from ..forms.bank_account import BankAccountForm
from ..forms.business import KybForm
from ..forms.individual import KycForm
from ..models import CustomerStatus, CustomerType, PaymentAccountStatus
from ..services.customers import UPDATABLE_STATUSES
from ..services.hosted_forms import (
    bank_account_form_account,
    bank_account_form_submit,
    verification_form_customer,
    verification_form_submit,
)

# Who may frame the hosted forms: any site by default (integrators embed them); a deployment
# may narrow it with SANDBOX_FORMS_FRAME_ANCESTORS, e.g. ["https://app.example.com"].
FRAME_ANCESTORS = list(getattr(settings, "SANDBOX_FORMS_FRAME_ANCESTORS", ["*"]))

# The page shown instead of the form, per state (title, text).
STATE_PAGES = {
    CustomerStatus.UNDER_REVIEW: (
        "Verification is under review",
        "We have your details and are reviewing them. There is nothing more to do for now; you can close this page.",
    ),
    CustomerStatus.ACTIVE: ("You are already verified", "Your verification is complete. You can close this page."),
    CustomerStatus.REJECTED: (
        "Verification was declined",
        "We cannot verify this customer. The decision is final; the form is closed.",
    ),
    CustomerStatus.DEACTIVATED: ("This account is closed", "The account was deactivated; the form is closed."),
}


def embeddable(view):
    """May be shown in another site's iframe: no X-Frame-Options, a permissive frame-ancestors,
    and no CSRF cookie check (a cross-site iframe gets no SameSite=Lax cookie; the token in the
    address is the credential)."""
    return csrf_exempt(xframe_options_exempt(csp_replace({"frame-ancestors": FRAME_ANCESTORS})(view)))


def form_not_found(request, what: str):
    """The page of a hosted form's address that names nothing."""
    return render(request, "sandbox/forms/not_found.html", {"what": what}, status=404)


def verification_form_class(customer):
    return KybForm if customer.customer_type == CustomerType.BUSINESS else KycForm


def stored_data(customer) -> dict:
    return (customer.kyb_data if customer.customer_type == CustomerType.BUSINESS else customer.kyc_data) or {}


@embeddable
@require_http_methods(["GET", "POST"])
def verify_customer(request, token):
    customer = verification_form_customer(token=token)
    if customer is None:
        return form_not_found(request, "verification form")
    if customer.status not in UPDATABLE_STATUSES:
        title, text = STATE_PAGES[customer.status]
        return render(request, "sandbox/forms/state.html", {"title": title, "text": text, "customer": customer})

    form_class = verification_form_class(customer)
    stored = stored_data(customer)
    if request.method == "POST":
        form = form_class(request.POST, request.FILES, stored=stored)
        if form.is_valid():
            try:
                updated = verification_form_submit(customer=customer, data=form.validated_data)
            except ApiError as exc:
                # The state changed between the page and the submit (a review ended, say).
                form.add_error(None, exc.message)
            else:
                if updated.status == CustomerStatus.UNDER_REVIEW:
                    return redirect("sandbox-verify-customer-submitted", token=token)
                form.add_error(
                    None, "Nothing was changed. Correct the details or upload the documents asked for above."
                )
    else:
        form = form_class(stored=stored)
    issues = list(customer.issues.all()) if customer.status == CustomerStatus.NEEDS_ADDITIONAL_INFORMATION else []
    context = {"customer": customer, "form": form, "issues": issues, "is_business": form_class is KybForm}
    return render(request, "sandbox/forms/verify.html", context, status=400 if form.errors else 200)


@embeddable
@require_http_methods(["GET"])
def verify_customer_submitted(request, token):
    customer = verification_form_customer(token=token)
    if customer is None:
        return form_not_found(request, "verification form")
    return render(request, "sandbox/forms/submitted.html", {"customer": customer, "token": token})


@embeddable
@require_http_methods(["GET", "POST"])
def complete_bank_account(request, token):
    account = bank_account_form_account(token=token)
    if account is None:
        return form_not_found(request, "bank account form")
    if account.status != PaymentAccountStatus.PENDING:
        return render(request, "sandbox/forms/bank_account_done.html", {"account": account, "already": True})

    details = account.details
    if request.method == "POST":
        form = BankAccountForm(request.POST)
        if form.is_valid():
            try:
                account = bank_account_form_submit(token=token, data=form.validated_data)
            except ApiError as exc:
                form.add_error(None, exc.message)
            else:
                return render(request, "sandbox/forms/bank_account_done.html", {"account": account, "already": False})
    else:
        form = BankAccountForm(
            initial={
                "bankAccountOwnerName": details.get("bankAccountOwnerName", ""),
                "bankName": details.get("bankName", ""),
                "bankAccountType": details.get("bankAccountType", "CHECKING"),
                "bankAccountPaymentMethod": details.get("bankAccountPaymentMethod", "ACH"),
            }
        )
    return render(
        request,
        "sandbox/forms/bank_account.html",
        {"form": form, "account": account},
        status=400 if form.errors else 200,
    )
