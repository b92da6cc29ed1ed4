"""The simulated KYC/KYB review: start, deterministic outcome, completion when due; and the
customer.update event every status change emits.

CREATED or NEEDS_ADDITIONAL_INFORMATION --data--> UNDER_REVIEW (review_due_at = now + delay)
--due--> ACTIVE | NEEDS_ADDITIONAL_INFORMATION | REJECTED, decided by `review_outcome` from the
data alone, so that an integrator can steer a test customer to any outcome by what they send.
The rules, issue codes and messages are listed in docs/decisions/sandbox-verification.md.

A due review is completed by whichever comes first: the `sandbox.complete_review` task queued
after commit with the delay as countdown (on signals.review_started), the periodic
`sandbox.complete_due_reviews` task, or a read of the customer (`review_settle_if_due`), so that
an embedded sandbox with eager Celery and no beat still moves on. Every path claims the row with a conditional UPDATE: a review
is applied once, whoever runs it and however often.
"""

import datetime as dt
from urllib.parse import urljoin, urlsplit

from django.conf import settings
from django.db import transaction

from .. import clock, signals
from ..models import Customer, CustomerStatus, CustomerType, VerificationIssue
from ..serializers.customers import CustomerSerializer
from .webhooks import emit

DEFAULT_REVIEW_DELAY_SECONDS = 5
# Comprehensively embargoed countries (modelled on the OFAC programmes for Cuba, Iran,
# North Korea and Syria). A sandbox simulation, not a compliance list.
SANCTIONED_COUNTRIES = {"CU": "Cuba", "IR": "Iran", "KP": "North Korea", "SY": "Syria"}
# A passport has a single photo page: no back image is asked for.
SINGLE_SIDED_ID_SUBTYPES = {"PASSPORT"}
# How many due reviews one sweep completes, so that a backlog never holds one long transaction.
SWEEP_BATCH = 500

MESSAGES = {
    "DOCUMENT_MISSING": (
        "No government ID was sent. Send a document of type GOVERNMENT_ID with frontIdImage and "
        "backIdImage (a passport needs only frontIdImage)."
    ),
    "DOCUMENT_MISSING_FRONT": (
        "The front of the government ID is missing. Send the GOVERNMENT_ID document again with frontIdImage."
    ),
    "DOCUMENT_MISSING_BACK": (
        "The back of the government ID is missing. Send the GOVERNMENT_ID document again with backIdImage."
    ),
    "PROOF_OF_ADDRESS_MISSING": (
        "No proof of address was sent. Send a document with proofOfAddressImage: a utility bill or bank "
        "statement from the last 3 months showing the customer's name and address."
    ),
    "CONTROL_PERSON_MISSING": (
        "No associated person is a control person. Send associatedPersons with at least one person "
        "with isControlPerson true (someone who directs the business, such as its CEO)."
    ),
    "BUSINESS_DOCUMENT_MISSING": (
        "No business document was sent. Send businessDocuments with at least one document carrying "
        "documentImage, such as the ARTICLES_OF_INCORPORATION."
    ),
}


def review_delay() -> dt.timedelta:
    return dt.timedelta(seconds=getattr(settings, "SANDBOX_REVIEW_DELAY_SECONDS", DEFAULT_REVIEW_DELAY_SECONDS))


# --- Events --------------------------------------------------------------------------------------


def emit_customer_update(customer: Customer) -> None:
    """The customer.update event of a status change (customer saved, its issues written)."""
    emit(organization_id=customer.organization_id, event_type="customer.update", data=customer_event_data(customer))


class _SandboxOrigin:
    """Stands in for the request CustomerSerializer builds verificationLink from, when an event
    has no request (a review that finishes in a worker, say)."""

    def build_absolute_uri(self, location: str) -> str:
        return urljoin(sandbox_origin(), location)


def sandbox_origin() -> str:
    """scheme://host[:port] where the sandbox is reached: SANDBOX_PUBLIC_URL if set, else the
    origin of PAYMENTS_API_BASE_URL (the sandbox mounted in this server is the upstream)."""
    url = getattr(settings, "SANDBOX_PUBLIC_URL", "") or settings.PAYMENTS_API_BASE_URL
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/"


def customer_event_data(customer: Customer) -> dict:
    """The customer as the single read with includePaymentMethods=true shows it, read afresh
    from the database, with verificationIssues always present ([] when none apply)."""
    stored = Customer.objects.prefetch_related("issues").get(pk=customer.pk)
    data = CustomerSerializer(stored, context={"request": _SandboxOrigin(), "payment_methods": True}).data
    data.setdefault("verificationIssues", [])
    return dict(data)


# --- Start ---------------------------------------------------------------------------------------


@transaction.atomic
def review_start(customer: Customer) -> Customer:
    """Data arrived (API or hosted form): the customer goes UNDER_REVIEW with no issues and a
    review due after the delay. The caller has saved the data and holds the row."""
    now = clock.now()
    delay = review_delay()
    customer.issues.all().delete()
    customer.status = CustomerStatus.UNDER_REVIEW
    customer.review_due_at = now + delay
    customer.updated_at = now
    customer.save(update_fields=["status", "review_due_at", "updated_at"])
    emit_customer_update(customer)
    signals.review_started.send(sender=Customer, customer_id=str(customer.pk), countdown=delay.total_seconds())
    return customer


# --- Outcome -------------------------------------------------------------------------------------


def review_outcome(customer: Customer) -> tuple[str, list[dict]]:
    """(status, issues) the review reaches from the submitted data; issues are {code, message}.
    A sanctions hit rejects whatever else is missing; otherwise any missing item asks for more."""
    if customer.customer_type == CustomerType.BUSINESS:
        rejections, missing = _kyb_findings(customer.kyb_data or {})
    else:
        rejections, missing = _kyc_findings(customer.kyc_data or {})
    if rejections:
        return CustomerStatus.REJECTED, rejections
    if missing:
        return CustomerStatus.NEEDS_ADDITIONAL_INFORMATION, missing
    return CustomerStatus.ACTIVE, []


def _issue(code: str, message: str | None = None) -> dict:
    return {"code": code, "message": message or MESSAGES[code]}


def _sanctioned(country, who: str) -> dict | None:
    if country in SANCTIONED_COUNTRIES:
        return _issue(
            "SANCTIONED_COUNTRY",
            f"{who} {country} ({SANCTIONED_COUNTRIES[country]}), a sanctioned country. The service cannot "
            "serve this customer; the decision is final.",
        )
    return None


def _id_document_issues(documents: list) -> list[dict]:
    """One complete government ID suffices; otherwise what the first one lacks."""
    ids = [doc for doc in documents if isinstance(doc, dict) and doc.get("type") == "GOVERNMENT_ID"]
    if not ids:
        return [_issue("DOCUMENT_MISSING")]
    missing_by_doc = []
    for doc in ids:
        missing = []
        if not doc.get("frontIdImage"):
            missing.append(_issue("DOCUMENT_MISSING_FRONT"))
        if not doc.get("backIdImage") and doc.get("subtype") not in SINGLE_SIDED_ID_SUBTYPES:
            missing.append(_issue("DOCUMENT_MISSING_BACK"))
        if not missing:
            return []
        missing_by_doc.append(missing)
    return missing_by_doc[0]


def _kyc_findings(data: dict) -> tuple[list[dict], list[dict]]:
    rejections = [
        issue
        for issue in (
            _sanctioned(data.get("nationality"), "The customer's nationality is"),
            _sanctioned(data.get("nationalIdIssuingCountry"), "The customer's national ID was issued by"),
        )
        if issue
    ]
    documents = data.get("documents") or []
    missing = _id_document_issues(documents)
    if not any(isinstance(doc, dict) and doc.get("proofOfAddressImage") for doc in documents):
        missing.append(_issue("PROOF_OF_ADDRESS_MISSING"))
    return rejections, missing


def _kyb_findings(data: dict) -> tuple[list[dict], list[dict]]:
    info = data.get("businessInfo") or {}
    persons = [person for person in data.get("associatedPersons") or [] if isinstance(person, dict)]
    checks = [_sanctioned(info.get("registrationCountry"), "The business is registered in")]
    for index, person in enumerate(persons):
        name = " ".join(filter(None, [person.get("legalFirstName"), person.get("legalLastName")]))
        who = f"associatedPersons[{index}]" + (f" ({name})" if name else "")
        checks.append(_sanctioned(person.get("nationality"), f"The nationality of {who} is"))
    rejections = [issue for issue in checks if issue]

    missing = []
    if not any(person.get("isControlPerson") is True for person in persons):
        missing.append(_issue("CONTROL_PERSON_MISSING"))
    documents = data.get("businessDocuments") or []
    if not any(isinstance(doc, dict) and doc.get("documentImage") for doc in documents):
        missing.append(_issue("BUSINESS_DOCUMENT_MISSING"))
    return rejections, missing


# --- Completion ----------------------------------------------------------------------------------


@transaction.atomic
def review_complete(*, customer_id) -> Customer | None:
    """Apply the outcome to this customer if its review is due; None when there was nothing to do
    (not under review, not yet due, or another worker got there first)."""
    customer = Customer.objects.filter(pk=customer_id).first()
    if customer is None or customer.status != CustomerStatus.UNDER_REVIEW or customer.review_due_at is None:
        return None
    now = clock.now()
    if customer.review_due_at > now:
        return None
    # The data cannot change while UNDER_REVIEW (updates are refused), so deciding before the
    # claim is safe. The claim matches only the review read above: exactly one runner wins.
    status, issues = review_outcome(customer)
    claimed = Customer.objects.filter(
        pk=customer.pk, status=CustomerStatus.UNDER_REVIEW, review_due_at=customer.review_due_at
    ).update(status=status, review_due_at=None, updated_at=now)
    if not claimed:
        return None
    VerificationIssue.objects.filter(customer=customer).delete()
    VerificationIssue.objects.bulk_create(
        VerificationIssue(customer=customer, code=issue["code"], message=issue["message"], timestamp=now)
        for issue in issues
    )
    customer.refresh_from_db()
    emit_customer_update(customer)
    return customer


def review_complete_due() -> int:
    """Complete every review that is due (the periodic sweep); answers how many were completed.
    Each customer in its own transaction, so one failure does not undo the others."""
    due = (
        Customer.objects.filter(status=CustomerStatus.UNDER_REVIEW, review_due_at__lte=clock.now())
        .order_by("review_due_at", "pk")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    return sum(1 for customer_id in list(due) if review_complete(customer_id=customer_id))


def review_settle_if_due(customer: Customer, *, now=None) -> Customer:
    """On a read: the customer as it is once a due review is applied. Costs no query unless the
    customer is under review with a due time (pass `now` when settling a whole page)."""
    if customer.status != CustomerStatus.UNDER_REVIEW or customer.review_due_at is None:
        return customer
    if customer.review_due_at > (now or clock.now()):
        return customer
    review_complete(customer_id=customer.pk)
    return Customer.objects.prefetch_related("issues").get(pk=customer.pk)
