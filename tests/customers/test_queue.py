"""The review queue: every filter, the search, keyset pages, counts, case work."""

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from customers.models import Customer
from tests.factories import CustomerFactory, VerificationIssueFactory
from tests.marks import marked

URL = reverse("customers-list-customers")
pytestmark = pytest.mark.django_db


def names(response) -> list[str]:
    return [c.name for c in response.context["page"].items]


@pytest.fixture
def reviewer(client_as):
    return client_as("compliance")


@pytest.fixture
def mix():
    now = timezone.now()
    rows = {
        "review": CustomerFactory(name="Rita Review", status="UNDER_REVIEW", email="rita@acme.test"),
        "nai": CustomerFactory(name="Nina Needs", status="NEEDS_ADDITIONAL_INFORMATION", organization_id="org-2"),
        "rejected": CustomerFactory(name="Rex Rejected", status="REJECTED", customer_type="BUSINESS"),
        "active": CustomerFactory(name="Alma Active", status="ACTIVE"),
        "fresh": CustomerFactory(name="Fred Fresh", status="CREATED", status_since=now - dt.timedelta(minutes=5)),
        "stale": CustomerFactory(name="Stan Stale", status="CREATED", status_since=now - dt.timedelta(days=2)),
    }
    VerificationIssueFactory(customer=rows["nai"], code="DOCUMENT_MISSING_BACK")
    return rows


def test_queue_shows_who_needs_a_person_and_stale_created(reviewer, mix):
    shown = set(names(reviewer.get(URL)))
    assert shown == {"Rita Review", "Nina Needs", "Rex Rejected", "Stan Stale"}


def test_created_threshold_is_a_setting(reviewer, mix, settings):
    settings.CUSTOMERS_CREATED_STALE_MINUTES = 1
    assert "Fred Fresh" in names(reviewer.get(URL))


def test_all_customers_view(reviewer, mix):
    assert len(names(reviewer.get(URL, {"view": "all"}))) == 6


def test_several_statuses_at_once(reviewer, mix):
    response = reviewer.get(URL, {"status": ["ACTIVE", "REJECTED"]})
    assert set(names(response)) == {"Alma Active", "Rex Rejected"}


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"type": "BUSINESS"}, {"Rex Rejected"}),
        ({"organization": "org-2"}, {"Nina Needs"}),
        ({"issue": "document_missing_back"}, {"Nina Needs"}),
        ({"q": "ri"}, {"Rita Review"}),
        ({"q": "RITA@ACME"}, {"Rita Review"}),
        ({"q": "eview"}, set()),  # a prefix search, not "contains"
    ],
)
def test_filters_and_search(reviewer, mix, params, expected):
    assert set(names(reviewer.get(URL, params))) == expected


def test_updated_since(reviewer, mix):
    Customer.objects.filter(pk=mix["review"].pk).update(upstream_updated_at=timezone.now() - dt.timedelta(days=10))
    since = (timezone.now() - dt.timedelta(days=3)).date().isoformat()
    shown = set(names(reviewer.get(URL, {"updated_since": since})))
    assert "Rita Review" not in shown and "Nina Needs" in shown


def test_assignee_filter_me_and_unassigned(reviewer, mix):
    me = reviewer.get(URL).wsgi_request.user
    Customer.objects.filter(pk=mix["nai"].pk).update(assignee=me)
    assert names(reviewer.get(URL, {"assignee": "me"})) == ["Nina Needs"]
    assert "Nina Needs" not in names(reviewer.get(URL, {"assignee": "none"}))


def test_sort_by_age_is_oldest_first_and_by_update_newest_first(reviewer, mix):
    by_age = names(reviewer.get(URL, {"sort": "age"}))
    assert by_age[0] == "Stan Stale"
    Customer.objects.filter(pk=mix["rejected"].pk).update(upstream_updated_at=timezone.now())
    assert names(reviewer.get(URL, {"sort": "updated"}))[0] == "Rex Rejected"


def test_invalid_filter_says_so(reviewer, mix):
    response = reviewer.get(URL, {"updated_since": "yesterday"})
    assert "Check the filters" in response.content.decode()


def test_htmx_request_gets_the_table_only(reviewer, mix):
    response = reviewer.get(URL, {"status": "REJECTED"}, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="results">')
    assert "Rex Rejected" in html and "<html" not in html


def test_filters_live_in_the_url_of_the_form(reviewer, mix):
    html = reviewer.get(URL).content.decode()
    assert 'hx-push-url="true"' in html and f'action="{URL}"' in html and 'method="get"' in html


class TestPages:
    def make(self, n):
        base = timezone.now() - dt.timedelta(days=1)
        for i in range(n):
            CustomerFactory(name=f"P{i:03}", status="UNDER_REVIEW", status_since=base + dt.timedelta(seconds=i))

    def test_exactly_one_page_has_no_next_link(self, reviewer):
        self.make(50)
        response = reviewer.get(URL)
        assert len(response.context["page"].items) == 50 and response.context["page"].next_cursor is None

    def test_next_page_continues_without_overlap(self, reviewer):
        self.make(51)
        first = reviewer.get(URL)
        cursor = first.context["page"].next_cursor
        second = reviewer.get(URL, {"cursor": cursor})
        assert names(second) == ["P050"]
        assert not set(names(first)) & set(names(second))

    def test_a_broken_cursor_starts_again(self, reviewer):
        self.make(3)
        assert names(reviewer.get(URL, {"cursor": "!!nonsense"})) == ["P000", "P001", "P002"]

    def test_empty_queue(self, reviewer):
        assert "No customers match these filters." in reviewer.get(URL).content.decode()

    def test_query_count_is_fixed(self, reviewer, django_assert_max_num_queries):
        self.make(60)
        for customer in Customer.objects.all()[:30]:
            VerificationIssueFactory(customer=customer, code="DOCUMENT_MISSING")
        reviewer.get(URL)  # warm-up: the counts are cached for a minute
        with django_assert_max_num_queries(6):
            reviewer.get(URL, {"status": ["UNDER_REVIEW"], "q": "P", "sort": "age"})


def test_counts_per_status_are_labelled(reviewer, mix):
    from django.core.cache import cache

    cache.clear()
    response = reviewer.get(URL)
    counts = response.context["counts"]
    assert counts.counts["CREATED"] == 2 and not counts.estimated
    assert "Counts as of" in response.content.decode()


def test_next_case_claims_the_oldest_unclaimed_of_the_filter(reviewer, mix):
    response = reviewer.post(reverse("customers-claim-next-case"), marked({"status": ["UNDER_REVIEW", "REJECTED"]}))
    oldest = min([mix["review"], mix["rejected"]], key=lambda c: (c.status_since, c.id))
    assert response["Location"] == reverse("customers-view-customer", args=[oldest.customer_id])
    oldest.refresh_from_db()
    assert oldest.assignee.username == "compliance-user" and oldest.claimed_at
    assert AuditEvent.objects.filter(action="customer.assign", target_id=oldest.customer_id).exists()
    # The next press takes the other one, then there is none left.
    reviewer.post(reverse("customers-claim-next-case"), marked({"status": ["UNDER_REVIEW", "REJECTED"]}))
    response = reviewer.post(reverse("customers-claim-next-case"), marked({"status": ["UNDER_REVIEW", "REJECTED"]}))
    assert response["Location"].startswith(URL)


def test_operations_reads_the_queue_without_case_buttons(client_as, mix):
    html = client_as("operations").get(URL).content.decode()
    assert "Nina Needs" in html and "Next case" not in html


def test_sla_label_in_rows(reviewer, mix, settings):
    settings.CUSTOMERS_REVIEW_SLA_HOURS = 1  # rows are two hours in their state
    html = reviewer.get(URL).content.decode()
    assert "over SLA" in html and "waiting on customer" in html


def test_assignee_filter_a_named_colleague(reviewer, mix, make_staff):
    colleague = make_staff("compliance", username="colleague")
    admin = make_staff("admin", username="boss")
    make_staff("operations", username="not-a-reviewer")
    Customer.objects.filter(pk=mix["review"].pk).update(assignee=colleague)
    Customer.objects.filter(pk=mix["nai"].pk).update(assignee=admin)
    response = reviewer.get(URL, {"assignee": str(colleague.pk)})
    assert names(response) == ["Rita Review"]
    assert names(reviewer.get(URL, {"assignee": str(admin.pk)})) == ["Nina Needs"]
    html = response.content.decode()
    # Those who work on customers, in one select, the chosen one selected; operations is not offered.
    assert '<optgroup label="Colleagues">' in html
    assert f'<option value="{colleague.pk}" selected>colleague</option>' in html
    assert f'<option value="{admin.pk}">boss</option>' in html and "not-a-reviewer" not in html
    assert "compliance-user" in html


def test_the_colleagues_offered_are_the_active_members_who_work_on_customers_by_name(make_staff):
    from customers.forms.casework import colleague_names, colleagues

    for role, name in [("compliance", "zoe"), ("admin", "adam"), ("operations", "otto"), ("compliance", "gone")]:
        make_staff(role, username=name)
    get_user_model().objects.filter(username="gone").update(is_active=False)
    offered = colleague_names()
    assert [name for _, name in offered] == ["adam", "zoe"]
    assert offered == list(colleagues().values_list("pk", "username"))


def test_assignee_filter_refuses_someone_outside_the_team(reviewer, mix, make_staff):
    operator = make_staff("operations", username="not-a-reviewer")
    Customer.objects.filter(pk=mix["review"].pk).update(assignee=operator)
    response = reviewer.get(URL, {"assignee": str(operator.pk)})
    assert "Check the filters" in response.content.decode()
    assert response.status_code == 200


def test_colleagues_cost_one_query_however_many(reviewer, make_staff, django_assert_max_num_queries):
    for i in range(8):
        make_staff("compliance", username=f"reviewer-{i}")
    TestPages().make(60)
    reviewer.get(URL)
    with django_assert_max_num_queries(6):
        html = reviewer.get(URL, {"sort": "age"}).content.decode()
    # Listed twice (the assignee filter and the bulk assignment), from the one query.
    assert html.count("reviewer-") == 16


# --- The SLA clock of the rows: time waiting on the customer does not count --------------


@pytest.fixture
def clock(monkeypatch, settings):
    """Django's clock, set by the test: clock.at(hours) moves it to T0 + hours. The session
    outlives the hours the clock jumps between two pages (staff sessions end after 30 idle minutes)."""
    from django.utils import timezone as django_timezone

    settings.SESSION_COOKIE_AGE = 2 * 24 * 3600

    class Clock:
        t0 = timezone.now().replace(microsecond=0) - dt.timedelta(days=1)
        now = t0

        def at(self, hours: float):
            self.now = self.t0 + dt.timedelta(hours=hours)
            return self.now

    c = Clock()
    monkeypatch.setattr(django_timezone, "now", lambda: c.now)
    return c


def seen(customer_id: str, status: str, at: dt.datetime) -> None:
    """The API's copy of a customer at `at`, through the one write path of the mirror."""
    from customers.upserts import customers_upsert
    from paymentsapi import types as api
    from upstream.mirrored import Source

    item = api.Customer.model_validate(
        {
            "customerId": customer_id,
            "customerStatus": status,
            "customerType": "INDIVIDUAL",
            "name": customer_id.title(),
            "updatedAt": at.isoformat(),
            "organizationId": "org-1",
        }
    )
    customers_upsert(items=[item], seen_by=Source.SYNC)


def row(response, name):
    return next(c for c in response.context["page"].items if c.name == name)


def test_time_waiting_on_the_customer_is_not_on_our_clock(reviewer, clock, settings):
    settings.CUSTOMERS_REVIEW_SLA_HOURS = 3
    seen("paused", "CREATED", clock.at(0))
    seen("paused", "UNDER_REVIEW", clock.at(1))
    seen("paused", "NEEDS_ADDITIONAL_INFORMATION", clock.at(2))  # 2 h on us so far
    seen("paused", "UNDER_REVIEW", clock.at(7))  # 5 h on the customer
    seen("fresh", "UNDER_REVIEW", clock.at(6))
    seen("waiting", "UNDER_REVIEW", clock.at(4))
    seen("waiting", "NEEDS_ADDITIONAL_INFORMATION", clock.at(5))
    clock.at(8.5)
    response = reviewer.get(URL)
    paused, fresh, waiting = row(response, "Paused"), row(response, "Fresh"), row(response, "Waiting")
    # 2 h + 1.5 h on us: over the 3 h SLA, although only 1.5 h in this state.
    assert paused.clock["on_us"] == dt.timedelta(hours=3.5) and paused.age == dt.timedelta(hours=1.5)
    assert paused.clock["state"] == "overdue" and paused.clock["label"] == "over SLA by 30 min"
    assert fresh.clock["on_us"] == dt.timedelta(hours=2.5) and fresh.clock["state"] == "ok"
    # Paused while the customer works: 1 h on us, however long they take.
    assert waiting.clock["on_us"] == dt.timedelta(hours=1) and waiting.clock["state"] == "customer"
    html = response.content.decode()
    assert html.count('class="over-sla"') == 1
    assert '3 h 30 min <span class="sla sla-overdue">over SLA by 30 min</span>' in html
    # The customer page shows the same clock, from the history.
    page = reviewer.get(reverse("customers-view-customer", args=["paused"]))
    assert page.context["clock"].on_us == dt.timedelta(hours=3.5)
    assert page.context["clock"].on_customer == dt.timedelta(hours=5)


def test_a_closed_case_has_no_clock_and_a_reopened_one_starts_again(reviewer, clock, settings):
    settings.CUSTOMERS_REVIEW_SLA_HOURS = 3
    seen("again", "UNDER_REVIEW", clock.at(0))
    seen("again", "ACTIVE", clock.at(5))
    response = reviewer.get(URL, {"view": "all"})
    assert row(response, "Again").clock["state"] == "none"
    seen("again", "UNDER_REVIEW", clock.at(6))  # e.g. new data after activation
    clock.at(7)
    response = reviewer.get(URL)
    assert row(response, "Again").clock["on_us"] == dt.timedelta(hours=1)
    assert row(response, "Again").clock["state"] == "ok"
    page = reviewer.get(reverse("customers-view-customer", args=["again"]))
    assert page.context["clock"].on_us == dt.timedelta(hours=1)


def test_an_unchanged_status_keeps_the_clock_running(reviewer, clock, settings):
    seen("steady", "UNDER_REVIEW", clock.at(0))
    seen("steady", "UNDER_REVIEW", clock.at(2))  # a later copy, same status (e.g. a new issue)
    clock.at(4)
    assert row(reviewer.get(URL), "Steady").clock["on_us"] == dt.timedelta(hours=4)


def test_an_issue_code_raised_twice_is_named_once_per_row(reviewer):
    """The API may raise one code on several fields: a row names it once, on the page and in
    the export, and keeps the other codes."""
    rejected = CustomerFactory(name="Sam Sanctioned", status="REJECTED")
    VerificationIssueFactory(customer=rejected, code="SANCTIONED_COUNTRY")
    VerificationIssueFactory(customer=rejected, code="SANCTIONED_COUNTRY")
    VerificationIssueFactory(customer=rejected, code="DOCUMENT_MISSING_BACK")
    other = CustomerFactory(name="Sue Sanctioned", status="REJECTED")
    VerificationIssueFactory(customer=other, code="SANCTIONED_COUNTRY")
    response = reviewer.get(URL, {"status": "REJECTED"})
    rows = {c.name: [i.code for i in c.issue_list] for c in response.context["page"].items}
    assert rows == {
        "Sam Sanctioned": ["SANCTIONED_COUNTRY", "DOCUMENT_MISSING_BACK"],
        "Sue Sanctioned": ["SANCTIONED_COUNTRY"],
    }
    assert response.content.decode().count(">Sanctioned country</span>") == 2
    export = reviewer.get(reverse("customers-export-customers"), {"status": "REJECTED"})
    lines = b"".join(export.streaming_content if export.streaming else [export.content]).decode()
    sam = next(line for line in lines.splitlines() if "Sam Sanctioned" in line)
    assert sam.count("Sanctioned country") == 1 and sam.count("SANCTIONED_COUNTRY") == 1


def test_customers_of_one_name_are_told_apart_by_their_e_mail_in_the_queue(reviewer):
    for email in ("finance@helix.example", "finance@helixanalytics.example"):
        CustomerFactory(name="Helix Analytics", email=email, status="UNDER_REVIEW")
    page = reviewer.get(URL).content.decode()
    for email in ("finance@helix.example", "finance@helixanalytics.example"):
        assert f'Helix Analytics</a><br><span class="kv">{email}</span>' in page


def test_the_filter_form_class_is_made_once_and_each_form_has_its_own_fields(make_staff):
    from customers.filters import QueueFilter

    first, second = QueueFilter({}), QueueFilter({})
    assert type(first.form) is type(second.form)
    make_staff("compliance", username="newcomer")
    third = QueueFilter({})
    assert "newcomer" not in str(first.form["assignee"]) and "newcomer" in str(third.form["assignee"])
    assert first.form.fields["assignee"] is not third.form.fields["assignee"]
