"""Case work and customer writes sent twice or by two people at once: one effect (upstream
where the write reaches the API), one audit event of its success, and a final state that
matches what was done."""

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from customers.models import CaseDecision, Customer, HostedLinkHandout
from tests.customers.test_create import individual
from tests.factories import CustomerFactory
from tests.marks import marked
from tests.payments.account_fixtures import make_customer
from tests.race import at_once

pytestmark = pytest.mark.django_db(transaction=True)


def _successes(action: str) -> int:
    return AuditEvent.objects.filter(action=action, outcome="success").count()


@pytest.fixture
def reviewers(racing, make_staff):
    return racing.member(make_staff("compliance", "rosa")), racing.member(make_staff("compliance_lead", "lena"))


@pytest.mark.parametrize("how", ["double-click", "two reviewers"])
def test_an_escalation_sent_at_once_raises_the_case_one_level(racing, reviewers, how):
    customer = CustomerFactory(status="UNDER_REVIEW")
    url = reverse("customers-decide-customer", args=[customer.customer_id])
    data = {"kind": "escalated", "reason": "Source of funds unclear.", "seen": "0"}
    senders = [reviewers[0]] * 2 if how == "double-click" else list(reviewers)

    answers = at_once(*[lambda member=member: member.post(url, data) for member in senders], gap=0.05)

    customer.refresh_from_db()
    assert (customer.case_decision, customer.escalation_level) == ("escalated", 1)
    assert CaseDecision.objects.count() == 1 and _successes("customer.decide") == 1
    codes = sorted(answer.status_code for answer in answers)
    # A double click answers as recorded twice; a colleague's is refused with what changed.
    assert codes == ([302, 302] if how == "double-click" else [302, 400])


@pytest.mark.parametrize("how", ["claim at once", "assign double-click"])
def test_an_assignment_at_once_changes_hands_once(racing, reviewers, make_staff, how):
    customer = CustomerFactory(status="UNDER_REVIEW")
    url = reverse("customers-assign-customer", args=[customer.customer_id])
    if how == "claim at once":
        sends = [lambda member=member: member.post(url, {"claim": "1", "seen": ""}) for member in reviewers]
    else:
        colleague = make_staff("compliance", "carl")
        sends = [lambda: reviewers[0].post(url, {"assignee": str(colleague.pk), "seen": ""})] * 2

    answers = at_once(*sends, gap=0.05 if how == "assign double-click" else 0.0)

    assert [answer.status_code for answer in answers] == [302, 302]
    customer.refresh_from_db()
    assert customer.assignee is not None
    events = AuditEvent.objects.filter(action="customer.assign")
    assert [(e.outcome, e.details["assignee"]) for e in events] == [("success", customer.assignee.username)]


def test_a_bulk_assignment_sent_twice_assigns_each_case_once(racing, reviewers):
    cases = [CustomerFactory(status="UNDER_REVIEW") for _ in range(3)]
    data = {"customers": [c.customer_id for c in cases], "claim": "1"}
    url = reverse("customers-bulk-assign")

    at_once(*[lambda: reviewers[0].post(url, data)] * 2, gap=0.05)

    assert set(Customer.objects.values_list("assignee__username", flat=True)) == {"rosa"}
    assert sorted(AuditEvent.objects.filter(action="customer.assign").values_list("target_id", flat=True)) == sorted(
        c.customer_id for c in cases
    )


def test_next_case_sent_twice_claims_one_case(racing, reviewers):
    CustomerFactory(status="UNDER_REVIEW")
    CustomerFactory(status="UNDER_REVIEW")
    data = marked(status=["UNDER_REVIEW"])

    answers = at_once(*[lambda: reviewers[0].post(reverse("customers-claim-next-case"), data)] * 2, gap=0.05)

    claimed = Customer.objects.filter(assignee__isnull=False)
    assert claimed.count() == 1 and _successes("customer.assign") == 1
    assert {answer.headers["location"] for answer in answers} == {
        reverse("customers-view-customer", args=[claimed.get().customer_id])
    }


def test_opening_the_hosted_form_with_a_double_click_records_it_once(racing, reviewers):
    customer = CustomerFactory(status="NEEDS_ADDITIONAL_INFORMATION")
    data = marked(kind="opened")
    url = reverse("customers-record-handout", args=[customer.customer_id])

    answers = at_once(*[lambda: reviewers[0].post(url, data)] * 2, gap=0.05)

    assert [answer.headers["location"] for answer in answers] == [customer.verification_link] * 2
    assert HostedLinkHandout.objects.count() == 1 and _successes("customer.hosted_link") == 1


@pytest.mark.parametrize(("sends", "gap"), [(2, 0.05), (4, 0.0)], ids=["double-click", "four-at-once"])
def test_one_create_form_sent_at_once_makes_one_customer(racing, reviewers, sends, gap):
    from sandbox.models import Customer as UpstreamCustomer

    data = individual()  # one filled-in form, its one-time mark with it
    start = len(racing.calls)

    answers = at_once(*[lambda: reviewers[0].post(reverse("customers-create-customer"), data)] * sends, gap=gap)

    (made,) = UpstreamCustomer.objects.filter(email="grace@example.com")
    assert racing.sent("POST", "/customers", since=start) == 1
    assert Customer.objects.get().customer_id == str(made.id)
    assert _successes("customer.create") == 1
    assert {answer.headers["location"] for answer in answers} == {
        reverse("customers-view-customer", args=[str(made.id)])
    }


def test_a_kyc_update_sent_twice_is_sent_once(racing, reviewers):
    from sandbox.models import Customer as UpstreamCustomer

    customer_id = make_customer(racing.sandbox, status="NEEDS_ADDITIONAL_INFORMATION")
    data = marked(legal_first_name="Augusta", legal_last_name="King")
    url = reverse("customers-edit-kyc", args=[customer_id])
    start = len(racing.calls)

    answers = at_once(*[lambda: reviewers[0].post(url, data)] * 2, gap=0.05)

    assert racing.sent("PATCH", f"/customers/{customer_id}", since=start) == 1
    assert UpstreamCustomer.objects.get(id=customer_id).status == "UNDER_REVIEW"
    assert Customer.objects.get(customer_id=customer_id).status == "UNDER_REVIEW"
    events = AuditEvent.objects.filter(action="customer.update_kyc")
    assert [event.outcome for event in events] == ["success"]
    assert [answer.headers["location"] for answer in answers] == [
        reverse("customers-view-customer", args=[customer_id])
    ] * 2
