"""Case work to the end: each decision and its effect on the queue, the home figures and the
timeline; escalations; bulk assignment and claiming."""

import datetime as dt

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from audit.records import audit_record
from backoffice.rollups import compliance_data
from customers.models import CaseDecision, Customer
from customers.services_cases import latest_decision_id
from customers.upserts import customers_upsert
from tests.conftest import ROLES
from tests.customers.access import EDITORS, LEADS
from tests.customers.test_mirror_upsert import T0, item
from tests.factories import CustomerFactory
from upstream.mirrored import Source

pytestmark = pytest.mark.django_db
QUEUE = reverse("customers-list-customers")
ESCALATIONS = reverse("customers-list-escalations")


@pytest.fixture
def reviewer(client_as):
    return client_as("compliance")


def decide(client, customer, kind, reason="Checked against the registry.", seen=None):
    """The decision form as the customer page sends it: naming the newest decision it shows."""
    return client.post(
        reverse("customers-decide-customer", args=[customer.customer_id]),
        {"kind": kind, "reason": reason, "seen": latest_decision_id(customer) if seen is None else seen},
    )


def queue_names(client, **params) -> set[str]:
    return {c.name for c in client.get(QUEUE, params).context["page"].items}


@pytest.mark.parametrize("kind", ["approved", "offboarded", "waiting_on_customer", "escalated"])
def test_each_decision_takes_a_rejected_case_out_of_the_queue(reviewer, kind):
    rejected = CustomerFactory(name="Rex Rejected", status="REJECTED")
    CustomerFactory(name="Una Undecided", status="UNDER_REVIEW")
    assert queue_names(reviewer) == {"Rex Rejected", "Una Undecided"}

    response = decide(reviewer, rejected, kind)

    assert response.status_code == 302
    assert queue_names(reviewer) == {"Una Undecided"}
    # Still there under "All customers", marked decided rather than "within SLA".
    page = reviewer.get(QUEUE, {"view": "all"}).content.decode()
    assert "decided: " in page and "Rex Rejected" in page
    rejected.refresh_from_db()
    assert rejected.case_decision == kind
    decision = CaseDecision.objects.get(customer=rejected)
    assert (decision.kind, decision.reason, decision.status_at_decision) == (
        kind,
        "Checked against the registry.",
        "REJECTED",
    )
    event = AuditEvent.objects.get(action="customer.decide", target_id=rejected.customer_id)
    assert event.details["decision"] == kind
    assert "registry" not in str(event.details)  # the reason stays out of the audit


def test_a_decided_case_leaves_the_home_figures_too(reviewer):
    rejected = CustomerFactory(status="REJECTED")
    now = timezone.now()
    assert compliance_data(now, now.date())["needs_person"] == {"REJECTED": 1}
    decide(reviewer, rejected, "offboarded")
    assert compliance_data(now, now.date())["needs_person"] == {}


def test_the_case_returns_when_the_status_changes(reviewer):
    customers_upsert(items=[item("c-1", status="UNDER_REVIEW")], seen_by=Source.SYNC)
    customer = Customer.objects.get(customer_id="c-1")
    decide(reviewer, customer, "waiting_on_customer")
    assert "Ada Lovelace" not in queue_names(reviewer)

    # Same status, nothing new: still decided.
    customers_upsert(items=[item("c-1", status="UNDER_REVIEW", at=T0 + dt.timedelta(seconds=1))], seen_by=Source.SYNC)
    assert "Ada Lovelace" not in queue_names(reviewer)

    customers_upsert(
        items=[item("c-1", status="NEEDS_ADDITIONAL_INFORMATION", at=T0 + dt.timedelta(seconds=2))],
        seen_by=Source.WEBHOOK,
    )
    customer.refresh_from_db()
    assert customer.case_decision == ""
    assert "Ada Lovelace" in queue_names(reviewer)


def test_the_case_returns_when_the_issues_change(reviewer):
    customers_upsert(items=[item("c-1", status="REJECTED", issues=["SANCTIONED_COUNTRY"])], seen_by=Source.SYNC)
    decide(reviewer, Customer.objects.get(customer_id="c-1"), "offboarded")
    assert "Ada Lovelace" not in queue_names(reviewer)
    customers_upsert(
        items=[item("c-1", status="REJECTED", issues=["DOCUMENT_MISSING"], at=T0 + dt.timedelta(seconds=1))],
        seen_by=Source.WEBHOOK,
    )
    assert "Ada Lovelace" in queue_names(reviewer)


def test_a_decision_needs_a_reason_and_keeps_what_was_typed(reviewer):
    customer = CustomerFactory(status="UNDER_REVIEW")
    response = decide(reviewer, customer, "approved", reason="   ")
    assert response.status_code == 400
    assert "Say why" in response.content.decode()
    assert not CaseDecision.objects.exists()
    response = reviewer.post(
        reverse("customers-decide-customer", args=[customer.customer_id]),
        {"kind": "bogus", "reason": "Kept text", "seen": "0"},
    )
    assert response.status_code == 400
    assert "Kept text" in response.content.decode()
    customer.refresh_from_db()
    assert customer.case_decision == ""


def test_a_decision_sent_again_is_recorded_once(reviewer):
    customer = CustomerFactory(status="UNDER_REVIEW")
    answers = [decide(reviewer, customer, "escalated", seen=0) for _ in range(2)]
    assert [a.status_code for a in answers] == [302, 302]
    customer.refresh_from_db()
    assert (customer.case_decision, customer.escalation_level) == ("escalated", 1)
    assert CaseDecision.objects.count() == 1
    assert AuditEvent.objects.filter(action="customer.decide").count() == 1


def test_a_decision_on_a_page_out_of_date_says_what_changed_and_records_nothing(reviewer, make_staff):
    customer = CustomerFactory(status="UNDER_REVIEW")
    colleague = Client()
    colleague.force_login(make_staff("compliance", "colleague"))
    assert decide(colleague, customer, "waiting_on_customer", seen=0).status_code == 302
    stale = decide(reviewer, customer, "approved", reason="Looks fine.", seen=0)
    assert stale.status_code == 400
    html = stale.content.decode()
    assert "colleague recorded “Waiting on the customer” on this case a moment ago" in html
    assert "Looks fine." in html  # what was typed is kept
    # The form shown again names the case as it is now: sent again, it is recorded.
    latest = CaseDecision.objects.get()
    assert f'name="seen" value="{latest.pk}"' in html
    assert decide(reviewer, customer, "approved", reason="Looks fine.", seen=latest.pk).status_code == 302
    assert list(CaseDecision.objects.order_by("id").values_list("kind", flat=True)) == [
        "waiting_on_customer",
        "approved",
    ]
    # A form without its mark of the case (an old page) is refused, nothing recorded.
    missing = reviewer.post(
        reverse("customers-decide-customer", args=[customer.customer_id]), {"kind": "approved", "reason": "x"}
    )
    assert missing.status_code == 400 and "The page was out of date" in missing.content.decode()
    assert CaseDecision.objects.count() == 2


def test_escalation_levels_and_the_escalations_view(reviewer, make_staff):
    customer = CustomerFactory(name="Esme Escalated", status="UNDER_REVIEW")
    CustomerFactory(name="Otto Other", status="UNDER_REVIEW")
    assert decide(reviewer, customer, "returned").status_code == 400  # not escalated yet
    assert decide(reviewer, customer, "escalated").status_code == 302
    lead = Client()
    lead.force_login(make_staff("compliance_lead"))
    decide(lead, customer, "escalated", reason="Needs the head of compliance on the source of funds.")
    customer.refresh_from_db()
    assert (customer.case_decision, customer.escalation_level) == ("escalated", 2)

    page = reviewer.get(ESCALATIONS)
    assert [c.name for c in page.context["page"].items] == ["Esme Escalated"]
    assert "Level 2" in page.content.decode()

    decide(lead, customer, "returned", reason="Lead agrees: approve when the documents arrive.")
    assert "Esme Escalated" in queue_names(reviewer)
    assert reviewer.get(ESCALATIONS).context["page"].items == []


@pytest.mark.parametrize("kind", ["approved", "escalated", "returned", "offboarded", "waiting_on_customer"])
@pytest.mark.parametrize("role", [*ROLES, None])
def test_only_a_compliance_lead_works_an_escalated_case(client_as, role, kind):
    customer = CustomerFactory(status="REJECTED", case_decision="escalated", escalation_level=1)
    client = client_as(role)

    response = decide(client, customer, kind, reason="Lead's call.")

    customer.refresh_from_db()
    if role in LEADS:
        assert response.status_code == 302
        assert customer.escalation_level == (2 if kind == "escalated" else 1)
        assert customer.case_decision == ("" if kind == "returned" else kind)
        return
    assert response.status_code == 403
    assert (customer.case_decision, customer.escalation_level) == ("escalated", 1)
    assert not CaseDecision.objects.exists()
    if role in EDITORS:
        # A reviewer who may escalate but not work the escalation: told who may, and kept.
        assert (
            'needs the role <strong><span title="compliance_lead">Compliance lead</span> or <span title="admin">Admin</span></strong>'
            in response.content.decode()
        )
        event = AuditEvent.objects.get(action="customer.decide", target_id=customer.customer_id)
        assert (event.outcome, event.details) == ("denied", {"decision": kind, "escalation_level": 1})


@pytest.mark.parametrize(("role", "form_shown"), [("compliance", False), ("compliance_lead", True), ("admin", True)])
def test_the_customer_page_offers_the_decision_on_an_escalated_case_to_leads_only(client_as, role, form_shown):
    customer = CustomerFactory(status="REJECTED", case_decision="escalated", escalation_level=2)
    page = client_as(role).get(reverse("customers-view-customer", args=[customer.customer_id])).content.decode()
    decide_url = reverse("customers-decide-customer", args=[customer.customer_id])
    assert (f'action="{decide_url}"' in page) == form_shown
    assert ("a compliance lead works the case now" in page) != form_shown


def test_escalations_view_is_read_by_every_role_with_fixed_queries(client_as, django_assert_max_num_queries):
    for i in range(30):
        CustomerFactory(status="REJECTED", case_decision="escalated", escalation_level=1 + i % 3)
    auditor = client_as("auditor")
    auditor.get(ESCALATIONS)
    with django_assert_max_num_queries(8):
        response = auditor.get(ESCALATIONS)
    levels = [c.escalation_level for c in response.context["page"].items]
    assert levels == sorted(levels, reverse=True) and len(levels) == 30
    assert 'action="/customers/' not in response.content.decode().split("<main")[-1]  # no forms for readers


def test_the_timeline_shows_the_case_history_in_staff_words(reviewer):
    customers_upsert(items=[item("c-1", status="UNDER_REVIEW")], seen_by=Source.SYNC)
    customers_upsert(
        items=[item("c-1", status="NEEDS_ADDITIONAL_INFORMATION", at=T0 + dt.timedelta(seconds=1))],
        seen_by=Source.WEBHOOK,
    )
    customer = Customer.objects.get(customer_id="c-1")
    decide(reviewer, customer, "waiting_on_customer", reason="Asked for the back of the ID by phone.")
    timeline = [
        (e.title, e.detail) for e in reviewer.get(reverse("customers-view-customer", args=["c-1"])).context["timeline"]
    ]
    titles = [t for t, _ in timeline]
    assert titles[0] == "Decision: Waiting on the customer"
    assert (
        "“Asked for the back of the ID by phone.” (customer was needs additional information)"
        in dict(timeline).values()
    )
    assert "Under review → Needs additional information" in titles
    assert "New customer → Under review" in titles
    assert not any("NEEDS_ADDITIONAL_INFORMATION" in t or "UNDER_REVIEW" in t for t in titles)


@pytest.mark.parametrize("role", ["compliance", "compliance_lead", "admin"])
def test_bulk_claim_and_assign(client_as, make_staff, role):
    client = client_as(role)
    colleague = make_staff("compliance", username="colleague")
    a, b, c = (CustomerFactory(status="UNDER_REVIEW") for _ in range(3))
    url = reverse("customers-bulk-assign")

    response = client.post(url, {"customers": [a.customer_id, b.customer_id], "claim": "1", "back": "view=all"})
    assert response.status_code == 302 and response["Location"] == QUEUE + "?view=all"
    user = response.wsgi_request.user
    assert {x.assignee_id for x in Customer.objects.filter(pk__in=[a.pk, b.pk])} == {user.pk}
    assert Customer.objects.get(pk=c.pk).assignee_id is None

    client.post(url, {"customers": [b.customer_id, c.customer_id], "assignee": str(colleague.pk)})
    assert Customer.objects.get(pk=b.pk).assignee_id == colleague.pk
    assert Customer.objects.get(pk=c.pk).assignee_id == colleague.pk
    assert AuditEvent.objects.filter(action="customer.assign", details__bulk=True).count() == 4


def test_bulk_assign_refuses_without_cases_or_assignee(reviewer, make_staff):
    operator = make_staff("operations", username="not-a-reviewer")
    customer = CustomerFactory(status="UNDER_REVIEW")
    url = reverse("customers-bulk-assign")
    response = reviewer.post(url, {"customers": [customer.customer_id]}, follow=True)
    assert "Choose a colleague" in response.content.decode()
    reviewer.post(url, {"customers": [customer.customer_id], "assignee": str(operator.pk)})
    response = reviewer.post(url, {"claim": "1"}, follow=True)
    assert "Tick the cases" in response.content.decode()
    # An offsite "back" is ignored.
    assert reviewer.post(url, {"claim": "1", "back": "//evil.example/x"})["Location"] == QUEUE
    customer.refresh_from_db()
    assert customer.assignee_id is None


@pytest.mark.parametrize("role", ["operations", "auditor"])
def test_readers_cannot_decide_or_bulk_assign(client_as, role):
    client = client_as(role)
    customer = CustomerFactory(status="REJECTED")
    assert decide(client, customer, "approved").status_code == 403
    bulk = client.post(reverse("customers-bulk-assign"), {"customers": [customer.customer_id], "claim": "1"})
    assert bulk.status_code == 403
    customer.refresh_from_db()
    assert (customer.case_decision, customer.assignee_id) == ("", None)


def test_the_compliance_home_counts_escalated_cases_and_leaves_decided_ones_out(reviewer):
    from backoffice import rollups
    from tests.backoffice.home_helpers import figures, home

    escalated, offboarded = CustomerFactory(status="UNDER_REVIEW"), CustomerFactory(status="REJECTED")
    CustomerFactory(status="UNDER_REVIEW")
    decide(reviewer, escalated, "escalated")
    decide(reviewer, offboarded, "offboarded")
    rollups.refresh()
    shown = figures(home(reviewer))
    assert shown["Escalated cases"] == ("1", ESCALATIONS)
    assert shown["All cases needing a person"][0] == "1"
    assert shown["Rejected"][0] == "0"


def test_customers_of_one_name_are_told_apart_by_their_e_mail_in_the_escalations(reviewer):
    for email in ("finance@helix.example", "finance@helixanalytics.example"):
        CustomerFactory(name="Helix Analytics", email=email, status="REJECTED", case_decision="escalated")
    page = reviewer.get(ESCALATIONS).content.decode()
    for email in ("finance@helix.example", "finance@helixanalytics.example"):
        assert f'Helix Analytics</a><br><span class="kv">{email}</span>' in page


def test_a_refused_decision_is_marked_refused_on_the_timeline_and_in_the_audit_log(client, make_staff):
    # A reviewer decides a case a lead has escalated meanwhile: the attempt is refused.
    customer = CustomerFactory(status="REJECTED", case_decision="escalated", escalation_level=1)
    client.force_login(make_staff("compliance", "rita"))
    assert decide(client, customer, "approved", reason="Looks fine.").status_code == 403

    client.force_login(make_staff("admin", "ada"))
    page = client.get(reverse("customers-view-customer", args=[customer.customer_id]))
    refused = [e for e in page.context["timeline"] if e.kind == "audit" and e.who == "rita"]
    assert [(e.title, e.refused) for e in refused] == [("Refused: Decided the case", True)]
    html = page.content.decode()
    assert "<strong>Refused: Decided the case</strong>" in html
    assert 'class="badge outcome-denied" title="denied">refused</span>' in html

    audit = client.get(reverse("audit-list-events"), {"actor": "rita"}).content.decode()
    assert 'title="customer.decide">Refused: Decided the case</td>' in audit
    # A decision that went through reads as done.
    with transaction.atomic():
        audit_record(actor=None, action="customer.decide", target_kind="customer", target_id=customer.customer_id)
    audit = client.get(reverse("audit-list-events"), {"action": "customer.decide"}).content.decode()
    assert 'title="customer.decide">Decided the case</td>' in audit
