"""Staff actions on customers. Those that change the API's record write through it
(upstream.write_through: the API first, then the mirror and the audit event together), once per
submitted form (its one-time mark, upstream.claims). Case work (assignment, decisions, notes, link
handouts) is the back-office's own and writes only here (services_cases.py)."""

from paymentsapi import types as api
from paymentsapi.pagination import MAX_PAGE_SIZE
from upstream import claims
from upstream.client import get_client, lookup_client
from upstream.mirrored import Source
from upstream.write_through import AuditTarget, CannotTell, Once, write_through_api

from .models import Customer, CustomerStatus
from .upserts import customers_upsert


def _store(answer: api.Customer) -> Customer:
    """The API's answer into the mirror; the row as it now is."""
    customers_upsert(items=[answer], seen_by=Source.STAFF)
    return Customer.objects.get(customer_id=answer.customer_id)


def _by_id(customer_id: str) -> Customer:
    return Customer.objects.get(customer_id=customer_id)


def _once(key: str) -> Once:
    return Once(key, remember=lambda customer: customer.customer_id, replay=_by_id)


def _update(*, actor, customer: Customer, action: str, sections: set[str], submission: str, **data) -> Customer:
    """PATCH the customer with `data` (only what staff filled in), once for the form's
    `submission`; the audit names the sections."""

    def under_review() -> api.Customer | None:
        # The API keeps no KYC/KYB values to compare: a review running now means the update
        # went through (an update is refused while a review runs, so it could not go again).
        answer = lookup_client().customers.get(customer_id=customer.customer_id, include_payment_methods=True)
        return answer if answer.status == CustomerStatus.UNDER_REVIEW else None

    return write_through_api(
        actor=actor,
        action=action,
        target=AuditTarget("customer", customer.customer_id, {"sections": sorted(sections)}),
        call=lambda: get_client().customers.update(customer_id=customer.customer_id, **data),
        store=_store,
        reconcile=under_review,
        once=_once(f"{action}:{actor.pk}:{submission}"),
    )


def customer_update_kyc(*, actor, customer: Customer, data: dict, sections: set[str], submission: str) -> Customer:
    """PATCH kycData with `data`; the answer enters the mirror."""
    kyc = api.KycData.model_validate(data)
    sent = {"sections": sections, "submission": submission}
    return _update(actor=actor, customer=customer, action="customer.update_kyc", kyc_data=kyc, **sent)


def customer_update_kyb(*, actor, customer: Customer, data: dict, sections: set[str], submission: str) -> Customer:
    """PATCH kybData with `data`; ownership fractions go as JSON numbers (the client's KybData does that)."""
    kyb = api.KybData.model_validate(data)
    sent = {"sections": sections, "submission": submission}
    return _update(actor=actor, customer=customer, action="customer.update_kyb", kyb_data=kyb, **sent)


def customer_refresh(*, actor, customer: Customer) -> Customer:
    return write_through_api(
        actor=actor,
        action="customer.refresh",
        target=AuditTarget("customer", customer.customer_id),
        call=lambda: get_client().customers.get(customer_id=customer.customer_id, include_payment_methods=True),
        store=_store,
    )


class EmailKnown(Exception):
    """The mirror knows customers with this e-mail already: creating another needs a yes."""

    def __init__(self, customers: list[Customer]):
        super().__init__("A customer with this e-mail exists already")
        self.customers = customers


SAME_EMAIL_SHOWN = 5


def customer_create(
    *,
    actor,
    submission: str,
    same_email_confirmed: bool = False,
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
    UNDER_REVIEW). The audit names the sections sent, never their values.

    One form (its one-time mark `submission`) creates one customer however often it is sent:
    a resend answers with the customer the first made. A new e-mail the mirror knows already
    is refused with EmailKnown (the customers that have it) until `same_email_confirmed`."""
    details = {"type": customer_type, "sections": sorted(sections)}
    key = f"customer.create:{actor.pk}:{submission}"
    since = claims.first_tried(key)
    same_email = Customer.objects.filter(email__iexact=email)
    if since is None and not same_email_confirmed:
        shown = list(same_email.order_by("-first_seen_at", "-id")[:SAME_EMAIL_SHOWN])
        if shown:
            raise EmailKnown(shown)
    # Customers with this e-mail the mirror knew before the first try: not one a lost answer made.
    known = set(
        (same_email.filter(first_seen_at__lt=since) if since else same_email).values_list("customer_id", flat=True)
    )
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
        once=_once(key),
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
