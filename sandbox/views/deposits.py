"""The hosted deposit page at {base_url}/forms/deposits/<token>: the sandbox's stand-in for the
customer sending the money of an AWAITING_TRANSFER transaction.

GET shows the transfer instructions; POST ("Simulate the deposit") moves the transaction to
PROCESSING. The token is the transaction id signed with SECRET_KEY (django.core.signing): it is
the only credential, like the other hosted forms' tokens, so the POST is CSRF-exempt (there is
no session or cookie whose authority a forged request could borrow; holding the link is the
authority). The page is embeddable like the other hosted forms. Link: the test helper
POST {base_url}/test-helpers/transactions/{id}/deposit-link.
"""

from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from ..errors import ApiError
from ..models import TransactionStatus
from ..services.transactions import transaction_body, transaction_deposit, transaction_for_deposit_token
from .hosted_forms import embeddable, form_not_found

# Labels of the transfer instruction fields, in the order shown; others follow as they come.
LABELS = {
    "transferPaymentMethod": "Payment method",
    "transferMessage": "Reference (put it in the payment message)",
    "transferBankName": "Bank",
    "transferBankAddress": "Bank address",
    "transferBankBeneficiaryName": "Beneficiary",
    "transferBankAccountNumber": "Account number",
    "transferRoutingNumber": "Routing number",
    "transferIban": "IBAN",
    "transferBicSwift": "BIC / SWIFT",
    "transferSortCode": "Sort code",
    "transferIfscCode": "IFSC",
    "transferClabeNumber": "CLABE",
    "transferPixCode": "PIX key",
    "transferBsbNumber": "BSB",
    "transferTransitNumber": "Transit number",
    "transferBankCode": "Bank code",
    "transferBranchCode": "Branch code",
    "transferCnapsCode": "CNAPS code",
    "transferNubanCode": "NUBAN",
    "transferClearingCode": "Clearing number",
    "transferRoutingCode": "Routing code",
    "transferPaymentLink": "Payment link",
    "depositAddress": "Deposit address",
    "chain": "Chain",
    "amount": "Amount",
}


def instruction_rows(instructions: dict) -> list[tuple[str, str]]:
    """(label, value) pairs of the instructions, without the `type` and the currency object."""
    shown = {key: value for key, value in (instructions or {}).items() if key not in ("type", "currency")}
    ordered = [key for key in LABELS if key in shown] + [key for key in shown if key not in LABELS]
    return [(LABELS.get(key, key), str(shown[key])) for key in ordered]


@csrf_exempt
@embeddable
@require_http_methods(["GET", "POST"])
def deposit_transaction(request, token):
    tx = transaction_for_deposit_token(token=token)
    if tx is None:
        return form_not_found(request, "deposit page")
    error = ""
    if request.method == "POST":
        try:
            transaction_deposit(transaction_id=tx.pk)
        except ApiError as exc:
            # Expired, cancelled or already deposited between the page and the click.
            error = exc.message
            tx.refresh_from_db()
        else:
            return redirect("sandbox-deposit", token=token)
    body = transaction_body(tx)
    context = {
        "tx": body,
        "status": tx.status,
        "awaiting": tx.status == TransactionStatus.AWAITING_TRANSFER,
        "rows": instruction_rows(tx.transfer_instructions),
        "expires_at": tx.expires_at,
        "error": error,
    }
    return render(request, "sandbox/forms/deposit.html", context, status=400 if error else 200)
