"""Case work: the back-office's own records of a case, never sent to the API (assignment,
decisions, notes, link handouts).

Each holds when sent twice or by two people at once. A decision or an assignment names the
case as the page showed it (`seen`) and is checked against the case under its row lock: the
first wins, a resend of the same finds it done (nothing recorded again), and a colleague's
other choice meanwhile is refused with what changed. What has no state to compare (a handout,
"claim the next case") is done once per one-time mark of its form (upstream.claims).
"""

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from audit.records import audit_record
from upstream import claims

from .models import CaseDecision, Customer, CustomerNote, HostedLinkHandout
from .selectors import next_case

# The assignee as the page showed it was not sent: nothing to compare.
UNCHECKED = object()


class AssignmentChanged(Exception):
    """The case's assignee changed since the page was shown; the message says to whom."""


def _audit(actor, action: str, customer: Customer, details: dict | None = None) -> None:
    """The audit event of a case action: its target is the customer."""
    audit_record(actor=actor, action=action, target_kind="customer", target_id=customer.customer_id, details=details)


def _assignee_words(customer: Customer) -> str:
    return customer.assignee.get_username() if customer.assignee else "nobody"


@transaction.atomic
def customer_assign(*, actor, customer: Customer, assignee, seen=UNCHECKED) -> Customer:
    """Claim (assignee is the actor), hand over, or release (None) a case. `seen` is the
    assignee's pk the page showed (None: unassigned): another assignee now is
    AssignmentChanged. The case already with `assignee` is left as it is (not audited again)."""
    locked = Customer.objects.select_for_update().get(pk=customer.pk)
    if locked.assignee_id == (assignee.pk if assignee else None):
        return locked
    if seen is not UNCHECKED and locked.assignee_id != seen:
        raise AssignmentChanged(
            f"The case was assigned to {_assignee_words(locked)} a moment ago: the page now shows it. "
            "Assign it again if you still mean to."
        )
    Customer.objects.filter(pk=locked.pk).update(assignee=assignee, claimed_at=timezone.now() if assignee else None)
    action = "customer.assign" if assignee else "customer.release"
    _audit(actor, action, locked, {"assignee": assignee.get_username()} if assignee else None)
    return Customer.objects.get(pk=customer.pk)


def customer_claim_next(*, actor, cases: QuerySet, submission: str) -> Customer | None:
    """Claim the oldest unclaimed case of the queue's current filter (`cases`, the rows of a
    customers.filters.QueueFilter): one case per press of the button (its form's
    `submission`), however often that is sent."""

    def claim_one() -> Customer | None:
        customer = next_case(cases)
        if customer is None:
            return None
        return customer_assign(actor=actor, customer=customer, assignee=actor, seen=None)

    return claims.once(
        f"customer.claim_next:{actor.pk}:{submission}",
        actor=actor,
        do=claim_one,
        remember=lambda customer: customer.customer_id if customer else "",
        replay=lambda customer_id: Customer.objects.filter(customer_id=customer_id).first() if customer_id else None,
    )


@transaction.atomic
def customer_note_add(*, actor, customer: Customer, body: str) -> CustomerNote:
    note = CustomerNote.objects.create(customer=customer, author=actor, author_username=actor.get_username(), body=body)
    # The audit says a note was written, never what it says.
    _audit(actor, "customer.note_add", customer)
    return note


def customer_link_handout(*, actor, customer: Customer, kind: str, submission: str) -> HostedLinkHandout:
    """Record who opened, refilled or copied the hosted form: once per press (`submission`)."""

    def record() -> HostedLinkHandout:
        handout = HostedLinkHandout.objects.create(
            customer=customer,
            actor=actor,
            actor_username=actor.get_username(),
            kind=kind,
            status_at_handout=customer.status,
        )
        _audit(actor, "customer.hosted_link", customer, {"kind": kind})
        return handout

    return claims.once(
        f"customer.hosted_link:{kind}:{actor.pk}:{submission}",
        actor=actor,
        do=record,
        remember=lambda handout: str(handout.pk),
        replay=lambda pk: HostedLinkHandout.objects.get(pk=pk),
    )


class DecisionRefused(Exception):
    """The decision does not fit the case as it stands (the message says why)."""


class CaseChanged(DecisionRefused):
    """Someone decided the case since the page was shown: the message says who and what."""

    def __init__(self, message: str, latest: CaseDecision):
        super().__init__(message)
        self.latest = latest


class NeedsLead(Exception):
    """The case is escalated: only a compliance lead (permission work_escalations) works it."""


def latest_decision_id(customer: Customer) -> int:
    """The newest decision of the case (0: none): what a decision form names as `seen`."""
    return customer.decisions.order_by("-id").values_list("id", flat=True).first() or 0


@transaction.atomic
def customer_decide(*, actor, customer: Customer, kind: str, reason: str, seen: int) -> CaseDecision:
    """Record a reviewer's decision on the current case, with its reason.

    Any decision but "returned" takes the case out of "Needs a person" until the customer's
    status or issues change; "escalated" raises the escalation level (a case already escalated
    goes one level higher); "returned" sends an escalated case back to the queue.

    Anyone who works on customers escalates a case; once escalated, only a compliance lead
    decides it, returns it or escalates it further (NeedsLead otherwise), as the case stands
    under the row lock: an escalation a moment ago counts.

    `seen` is the newest decision the page showed (latest_decision_id): a decision made since
    is CaseChanged, unless it is this one sent again (the same person, kind and reason), which
    is answered as recorded and not recorded twice.
    """
    customer = Customer.objects.select_for_update().get(pk=customer.pk)
    latest = customer.decisions.order_by("-id").first()
    if (latest.pk if latest else 0) != seen:
        if latest is None:
            raise DecisionRefused("The page was out of date: reload it and decide again.")
        if (latest.actor_id, latest.kind, latest.reason) == (actor.pk, kind, reason):
            return latest
        raise CaseChanged(
            f"{latest.actor_username} recorded “{latest.get_kind_display()}” on this case a moment ago: "
            "the page now shows it. Decide again if you still mean to.",
            latest,
        )
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
    _audit(actor, "customer.decide", customer, {"decision": kind, "escalation_level": level})
    return decision


@transaction.atomic
def customers_bulk_assign(*, actor, customer_ids: list[str], assignee) -> int:
    """Assign (or claim, when assignee is the actor) several cases at once: one audit event
    for each case that changed hands; those already with `assignee` stay as they are (a
    resend changes nothing). The number that changed."""
    customers = list(
        Customer.objects.select_for_update()
        .filter(customer_id__in=customer_ids)
        .exclude(assignee=assignee)
        .order_by("id")
    )
    Customer.objects.filter(pk__in=[c.pk for c in customers]).update(assignee=assignee, claimed_at=timezone.now())
    for customer in customers:
        _audit(actor, "customer.assign", customer, {"assignee": assignee.get_username(), "bulk": True})
    return len(customers)
