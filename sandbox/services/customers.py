"""Customer writes: create, update (KYC/KYB data), and the review and deactivation test helpers.

State machine (docs/decisions/sandbox-customers.md):
CREATED --data--> UNDER_REVIEW --review--> ACTIVE | NEEDS_ADDITIONAL_INFORMATION | REJECTED;
NEEDS_ADDITIONAL_INFORMATION --changed data--> UNDER_REVIEW; ACTIVE --deactivate--> DEACTIVATED.
`updated_at` is the time of the last status change, as the spec defines updatedAt.
"""

import secrets

from django.db import transaction

from .. import clock
from ..errors import bad_request
from ..models import ApiKey, Customer, CustomerStatus, CustomerType, VerificationIssue
from ..pagination import PageToken, keyset_page
from .records import record_for_key
from .verification import emit_customer_update, review_settle_if_due, review_start

# PATCH is refused in the other states: the profile is under review, decided, or closed.
UPDATABLE_STATUSES = (CustomerStatus.CREATED, CustomerStatus.NEEDS_ADDITIONAL_INFORMATION)
# Customers in these states can no longer be given accounts, rules or quotes.
CLOSED_CUSTOMER = {CustomerStatus.REJECTED, CustomerStatus.DEACTIVATED}


def customer_for_key(*, api_key: ApiKey, customer_id) -> Customer:
    """The customer as stored (a review that has come due not applied: see customer_get)."""
    return record_for_key(Customer.objects, api_key=api_key, kind="Customer", record_id=customer_id)


@transaction.atomic
def customer_create(*, api_key: ApiKey, data: dict) -> Customer:
    """`data` is a validated create body (serializers.customers.CustomerCreateSerializer)."""
    now = clock.now()
    customer = Customer(
        organization_id=api_key.organization_id,
        customer_type=data["customerType"],
        email=data["email"],
        first_name=data.get("firstName", ""),
        last_name=data.get("lastName", ""),
        business_name=data.get("businessName", ""),
        kyc_data=data.get("kycData") or None,
        kyb_data=data.get("kybData") or None,
        verification_token=secrets.token_urlsafe(32),
        created_at=now,
        updated_at=now,
    )
    customer.save()
    if customer.kyc_data or customer.kyb_data:
        # The review simulation (sandbox.services.verification) takes over from here.
        review_start(customer)
    return customer


def _merge(stored: dict, sent: dict) -> dict:
    """PATCH semantics: objects merge field by field, arrays and values are replaced."""
    merged = dict(stored)
    for key, value in sent.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


@transaction.atomic
def customer_update(*, customer: Customer, data: dict) -> Customer:
    """Merge sent KYC/KYB data. In CREATED, data starts the review; in
    NEEDS_ADDITIONAL_INFORMATION, changed data restarts it and clears the issues.
    Sending nothing new changes nothing."""
    customer = Customer.objects.select_for_update().get(pk=customer.pk)
    if customer.status not in UPDATABLE_STATUSES:
        raise bad_request(
            f"Customer {customer.id} is {customer.status}; its profile can be updated only in "
            f"{' or '.join(UPDATABLE_STATUSES)}"
        )
    field = "kyc_data" if customer.customer_type == CustomerType.INDIVIDUAL else "kyb_data"
    key = "kycData" if field == "kyc_data" else "kybData"
    stored = getattr(customer, field) or {}
    merged = _merge(stored, data.get(key) or {})
    if merged == stored:
        return customer

    setattr(customer, field, merged)
    customer.save(update_fields=[field])
    review_start(customer)
    return customer


@transaction.atomic
def customer_review(*, customer: Customer, outcome: str, issues: list[dict]) -> Customer:
    """Test helper: decide the running review. The issues replace any earlier ones."""
    customer = Customer.objects.select_for_update().get(pk=customer.pk)
    if customer.status != CustomerStatus.UNDER_REVIEW:
        raise bad_request(f"Customer {customer.id} is {customer.status}; only an UNDER_REVIEW customer can be reviewed")
    now = clock.now()
    customer.issues.all().delete()
    VerificationIssue.objects.bulk_create(
        VerificationIssue(customer=customer, code=issue["code"], message=issue["message"], timestamp=now)
        for issue in issues
    )
    customer.status = outcome
    customer.review_due_at = None
    customer.updated_at = now
    customer.save(update_fields=["status", "review_due_at", "updated_at"])
    emit_customer_update(customer)
    return customer


@transaction.atomic
def customer_deactivate(*, customer: Customer) -> Customer:
    """Test helper: ACTIVE -> DEACTIVATED (a provider-side decision the API cannot make)."""
    customer = Customer.objects.select_for_update().get(pk=customer.pk)
    if customer.status != CustomerStatus.ACTIVE:
        raise bad_request(f"Customer {customer.id} is {customer.status}; only an ACTIVE customer can be deactivated")
    customer.status = CustomerStatus.DEACTIVATED
    customer.updated_at = clock.now()
    customer.save(update_fields=["status", "updated_at"])
    emit_customer_update(customer)
    return customer


# --- Reads ----------------------------------------------------------------------------------


def customer_get(*, api_key: ApiKey, customer_id) -> Customer:
    """The customer as a read shows it: with a review that has come due applied first."""
    customers = Customer.objects.prefetch_related("issues")
    return review_settle_if_due(record_for_key(customers, api_key=api_key, kind="Customer", record_id=customer_id))


def customer_list(*, organization_id, token: PageToken | None, size: int) -> tuple[list[Customer], str | None]:
    """One page in (created_at, id) order, reviews that have come due applied: (customers,
    nextPageToken)."""
    customers = Customer.objects.filter(organization_id=organization_id).prefetch_related("issues")
    page, next_token = keyset_page(customers, order="created_at", token=token, size=size)
    if not any(c.status == CustomerStatus.UNDER_REVIEW and c.review_due_at for c in page):
        return page, next_token
    now = clock.now()  # one clock read for the page
    return [review_settle_if_due(customer, now=now) for customer in page], next_token
