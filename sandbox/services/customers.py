"""Customer writes: create, update (KYC/KYB data), and the review and deactivation test helpers.

State machine (docs/decisions/sandbox-customers.md):
CREATED --data--> UNDER_REVIEW --review--> ACTIVE | NEEDS_ADDITIONAL_INFORMATION | REJECTED;
NEEDS_ADDITIONAL_INFORMATION --changed data--> UNDER_REVIEW; ACTIVE --deactivate--> DEACTIVATED.
`updated_at` is the time of the last status change, as the spec defines updatedAt.
"""

import datetime as dt
import secrets

from django.db import transaction
from django.db.models import Q

from .. import clock
from ..errors import bad_request
from ..models import ApiKey, Customer, CustomerStatus, CustomerType, VerificationIssue
from .verification import emit_customer_update, review_settle_if_due, review_start

# PATCH is refused in the other states: the profile is under review, decided, or closed.
UPDATABLE_STATUSES = (CustomerStatus.CREATED, CustomerStatus.NEEDS_ADDITIONAL_INFORMATION)
REVIEW_OUTCOMES = (
    CustomerStatus.ACTIVE,
    CustomerStatus.NEEDS_ADDITIONAL_INFORMATION,
    CustomerStatus.REJECTED,
)


def _start_review(customer: Customer) -> None:
    """The review simulation (sandbox.services.verification) takes over from here."""
    review_start(customer)


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
        _start_review(customer)
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
    _start_review(customer)
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


def customer_get(*, customer_id) -> Customer | None:
    """The customer, with a review that has come due applied first."""
    customer = Customer.objects.prefetch_related("issues").filter(pk=customer_id).first()
    return review_settle_if_due(customer) if customer else None


def customer_list(*, organization_id, after: tuple[dt.datetime, str] | None, size: int) -> list[Customer]:
    """One page in (created_at, id) order, keyset after the last row of the previous page.
    Answers up to size + 1 rows: the extra one only tells that another page exists."""
    customers = Customer.objects.filter(organization_id=organization_id)
    if after:
        created_at, last_id = after
        # The plain bound lets PostgreSQL seek the index; the OR alone would make it scan from the start.
        customers = customers.filter(created_at__gte=created_at).filter(
            Q(created_at__gt=created_at) | Q(created_at=created_at, id__gt=last_id)
        )
    rows = customers.order_by("created_at", "id").prefetch_related("issues")[: size + 1]
    if not any(c.status == CustomerStatus.UNDER_REVIEW and c.review_due_at for c in rows):
        return rows
    now = clock.now()  # one clock read for the page
    return [review_settle_if_due(customer, now=now) for customer in rows]
