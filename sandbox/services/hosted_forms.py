"""What the hosted forms read and write. The writes are the API's own services: a verification
form submits like PATCH /customers, a bank account form like its test helper."""

from django.db import transaction

from ..models import Customer, PaymentAccount
from .accounts import bank_account_form_complete
from .customers import customer_update
from .verification import review_settle_if_due


def verification_form_customer(*, token: str) -> Customer | None:
    """The customer behind a verificationLink, with a review that has come due applied."""
    customer = Customer.objects.prefetch_related("issues").filter(verification_token=token).first()
    return review_settle_if_due(customer) if customer else None


def verification_form_submit(*, customer: Customer, data: dict) -> Customer:
    """`data` is a validated PATCH body ({"kycData": ...} or {"kybData": ...}). Changed data starts
    the review; unchanged data leaves the customer as it was (the caller tells the user)."""
    return customer_update(customer=customer, data=data)


def bank_account_form_account(*, token: str) -> PaymentAccount | None:
    return PaymentAccount.objects.filter(form_token=token).first()


@transaction.atomic
def bank_account_form_submit(*, token: str, data: dict) -> PaymentAccount:
    """Complete the pending bank account as the test helper does; the form also lets the owner
    choose the rail (ACH or WIRE), which the helper keeps from the create request."""
    return bank_account_form_complete(form_token=token, data=data)
