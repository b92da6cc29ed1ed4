"""Staff actions on customers. Those that change the API's record write through it
(core.write_through: the API first, then the mirror and the audit event together); case work
(assignment, notes, link handouts) is the back-office's own and writes only here."""

from django.db import transaction
from django.utils import timezone

from core.audit import audit_record
from core.mirrored import Source
from core.upstream import get_client, lookup_client
from core.write_through import AuditTarget, CannotTell, write_through_api
from paymentsapi import types as api
from paymentsapi.pagination import MAX_PAGE_SIZE

from .models import CaseDecision, Customer, CustomerNote, HostedLinkHandout
from .selectors import next_case
from .upserts import customers_upsert


def _store(answer: api.Customer) -> Customer:
    """The API's answer into the mirror; the row as it now is."""
    customers_upsert(items=[answer], seen_by=Source.STAFF)
    return Customer.objects.get(customer_id=answer.customer_id)


def _update(*, actor, customer: Customer, action: str, sections: set[str], **data) -> Customer:
    """PATCH the customer with `data` (only what staff filled in); the audit names the sections."""
    return write_through_api(
        actor=actor,
        action=action,
        target=AuditTarget("customer", customer.customer_id, {"sections": sorted(sections)}),
        call=lambda: get_client().customers.update(customer_id=customer.customer_id, **data),
        store=_store,
    )


def customer_update_kyc(*, actor, customer: Customer, kyc_data: dict, sections: set[str]) -> Customer:
    """PATCH kycData; the answer enters the mirror."""
    kyc = api.KycData.model_validate(kyc_data)
    return _update(actor=actor, customer=customer, action="customer.update_kyc", sections=sections, kyc_data=kyc)


def customer_update_kyb(*, actor, customer: Customer, kyb_data: dict, sections: set[str]) -> Customer:
    """PATCH kybData; ownership fractions go as JSON numbers (the client's KybData does that)."""
    kyb = api.KybData.model_validate(kyb_data)
    return _update(actor=actor, customer=customer, action="customer.update_kyb", sections=sections, kyb_data=kyb)


def customer_refresh(*, actor, customer: Customer) -> Customer:
    return write_through_api(
        actor=actor,
        action="customer.refresh",
        target=AuditTarget("customer", customer.customer_id),
        call=lambda: get_client().customers.get(customer_id=customer.customer_id, include_payment_methods=True),
        store=_store,
    )


def customer_create(
    *,
    actor,
    customer_type: str,
    email: str,
    first_name: str = "",
    last_name: str = "",
    business_name: str = "",
    kyc_data: dict | None = None,
    kyb_data: dict | None = None,
    sections: set[str] = frozenset(),
) -> Customer:
    """POST /customers, with the KYC or KYB data when given (the API then starts its review:
    UNDER_REVIEW). The audit names the sections sent, never their values."""
    details = {"type": customer_type, "sections": sorted(sections)}
    # Customers with this e-mail the mirror knows already: not the one a lost answer made.
    known = set(Customer.objects.filter(email__iexact=email).values_list("customer_id", flat=True))
    kyc = api.KycData.model_validate(kyc_data) if kyc_data else None
    kyb = api.KybData.model_validate(kyb_data) if kyb_data else None
    return write_through_api(
        actor=actor,
        action="customer.create",
        target=AuditTarget("customer", "", details),
        call=lambda: get_client().customers.create(
            customer_type=customer_type,
            email=email,
            first_name=first_name or None,
            last_name=last_name or None,
            business_name=business_name or None,
            kyc_data=kyc,
            kyb_data=kyb,
        ),
        store=_store,
        stored=lambda customer: AuditTarget("customer", customer.customer_id, details),
        reconcile=lambda: _created_customer(email=email, customer_type=customer_type, known=known),
    )


# How far the look for a created customer goes (pages of 100): beyond it, it cannot tell.
LOOKUP_PAGES = 20


def _created_customer(*, email: str, customer_type: str, known: set[str]) -> api.Customer | None:
    """After a create whose answer was lost: the customer with this e-mail and type that the
    API has and the mirror did not know before the create (None when there is none). The API
    lists customers without a filter, so the look reads pages until the end, at most
    LOOKUP_PAGES: past that it cannot tell (CannotTell)."""
    wanted = email.casefold()
    token = None
    for _ in range(LOOKUP_PAGES):
        page = lookup_client().customers.list(page_token=token, page_size=MAX_PAGE_SIZE)
        for item in page.items:
            same = (item.email or "").casefold() == wanted and item.customer_type in (None, customer_type)
            if same and item.customer_id not in known:
                return item
        token = page.next_page_token
        if not token:
            return None
    raise CannotTell(f"no customer with that e-mail in the first {LOOKUP_PAGES} pages")


@transaction.atomic
def customer_assign(*, actor, customer: Customer, assignee) -> Customer:
    """Claim (assignee is the actor), hand over, or release (None) a case."""
    Customer.objects.filter(pk=customer.pk).update(assignee=assignee, claimed_at=timezone.now() if assignee else None)
    audit_record(
        actor=actor,
        action="customer.assign" if assignee else "customer.release",
        target_kind="customer",
        target_id=customer.customer_id,
        details={"assignee": assignee.get_username()} if assignee else {},
    )
    return Customer.objects.get(pk=customer.pk)


@transaction.atomic
def customer_claim_next(*, actor, filters: dict) -> Customer | None:
    """Claim the oldest unclaimed case of the queue's current filter."""
    customer = next_case(filters=filters, user=actor)
    if customer is None:
        return None
    return customer_assign(actor=actor, customer=customer, assignee=actor)


@transaction.atomic
def customer_note_add(*, actor, customer: Customer, body: str) -> CustomerNote:
    note = CustomerNote.objects.create(customer=customer, author=actor, author_username=actor.get_username(), body=body)
    # The audit says a note was written, never what it says.
    audit_record(actor=actor, action="customer.note_add", target_kind="customer", target_id=customer.customer_id)
    return note


@transaction.atomic
def customer_link_handout(*, actor, customer: Customer, kind: str) -> HostedLinkHandout:
    handout = HostedLinkHandout.objects.create(
        customer=customer,
        actor=actor,
        actor_username=actor.get_username(),
        kind=kind,
        status_at_handout=customer.status,
    )
    audit_record(
        actor=actor,
        action="customer.hosted_link",
        target_kind="customer",
        target_id=customer.customer_id,
        details={"kind": kind},
    )
    return handout


class DecisionRefused(Exception):
    """The decision does not fit the case as it stands (the message says why)."""


class NeedsLead(Exception):
    """The case is escalated: only a compliance lead (permission work_escalations) works it."""


@transaction.atomic
def customer_decide(*, actor, customer: Customer, kind: str, reason: str) -> CaseDecision:
    """Record a reviewer's decision on the current case, with its reason.

    Any decision but "returned" takes the case out of "Needs a person" until the customer's
    status or issues change; "escalated" raises the escalation level (a case already escalated
    goes one level higher); "returned" sends an escalated case back to the queue.

    Anyone who works on customers escalates a case; once escalated, only a compliance lead
    decides it, returns it or escalates it further (NeedsLead otherwise), as the case stands
    under the row lock: an escalation a moment ago counts.
    """
    customer = Customer.objects.select_for_update().get(pk=customer.pk)
    escalated = customer.case_decision == CaseDecision.Kind.ESCALATED
    if escalated and not actor.has_perm("core.work_escalations"):
        raise NeedsLead()
    if kind == CaseDecision.Kind.RETURNED and not escalated:
        raise DecisionRefused("Only an escalated case can be returned to the queue.")
    level = customer.escalation_level + 1 if kind == CaseDecision.Kind.ESCALATED else customer.escalation_level
    now = timezone.now()
    Customer.objects.filter(pk=customer.pk).update(
        case_decision="" if kind == CaseDecision.Kind.RETURNED else kind,
        case_decided_at=now,
        escalation_level=level,
    )
    decision = CaseDecision.objects.create(
        customer=customer,
        kind=kind,
        reason=reason,
        actor=actor,
        actor_username=actor.get_username(),
        status_at_decision=customer.status,
        escalation_level=level,
    )
    # The audit names the decision, never the reason's text (it may quote personal data).
    audit_record(
        actor=actor,
        action="customer.decide",
        target_kind="customer",
        target_id=customer.customer_id,
        details={"decision": kind, "escalation_level": level},
    )
    return decision


@transaction.atomic
def customers_bulk_assign(*, actor, customer_ids: list[str], assignee) -> int:
    """Assign (or claim, when assignee is the actor) several cases at once: one audit event each."""
    customers = list(Customer.objects.select_for_update().filter(customer_id__in=customer_ids).order_by("id"))
    Customer.objects.filter(pk__in=[c.pk for c in customers]).update(assignee=assignee, claimed_at=timezone.now())
    for customer in customers:
        audit_record(
            actor=actor,
            action="customer.assign",
            target_kind="customer",
            target_id=customer.customer_id,
            details={"assignee": assignee.get_username(), "bulk": True},
        )
    return len(customers)
