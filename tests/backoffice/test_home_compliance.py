"""The compliance home section: each figure against data built for it, and its link to the
queue filtered to what it counts."""

import datetime as dt

import pytest
from django.core.cache import cache
from django.utils import timezone

from backoffice import rollups
from customers.models import CustomerStatus
from tests.factories import CustomerFactory, CustomerStatusChangeFactory

from .home_helpers import figures, home, listed

pytestmark = pytest.mark.django_db


@pytest.fixture
def cases(compliance_user):
    now = timezone.now()
    made = {
        "due": CustomerFactory(
            name="Due Soon",
            status=CustomerStatus.UNDER_REVIEW,
            assignee=compliance_user,
            waiting_on_us_seconds=23 * 3600,
            waiting_on_us_since=now - dt.timedelta(minutes=30),
        ),
        "fresh": CustomerFactory(
            name="Fresh Review", status=CustomerStatus.UNDER_REVIEW, waiting_on_us_seconds=0, waiting_on_us_since=now
        ),
        "late": CustomerFactory(name="Late Rejected", status=CustomerStatus.REJECTED, waiting_on_us_seconds=25 * 3600),
        "info": CustomerFactory(name="Info Asked"),
        "stale": CustomerFactory(
            name="Stale Created", status=CustomerStatus.CREATED, status_since=now - dt.timedelta(hours=2)
        ),
        "new": CustomerFactory(
            name="New Created", status=CustomerStatus.CREATED, status_since=now - dt.timedelta(minutes=5)
        ),
        "done": CustomerFactory(name="Done Active", status=CustomerStatus.ACTIVE),
    }
    # Decided today (whatever the hour the test runs), three hours after the case opened.
    decided = max(now - dt.timedelta(hours=2), now.replace(hour=0, minute=0, second=0, microsecond=0))
    CustomerStatusChangeFactory(
        customer=made["done"], old_status="", new_status="UNDER_REVIEW", changed_at=decided - dt.timedelta(hours=3)
    )
    CustomerStatusChangeFactory(customer=made["done"], changed_at=decided)
    return made


def names(cases, *keys):
    return {cases[k].name for k in keys}


def test_each_figure_counts_its_cases_and_links_to_them(client, compliance_user, cases):
    rollups.refresh()
    client.force_login(compliance_user)
    shown = figures(home(client))
    everyone = [c.name for c in cases.values()]
    expected = {
        "Under review": (2, {"due", "fresh"}),
        "Needs additional information": (1, {"info"}),
        "Rejected": (1, {"late"}),
        "Created": (1, {"stale"}),
        "All cases needing a person": (5, {"due", "fresh", "info", "late", "stale"}),
        "Over SLA": (1, {"late"}),
        "SLA ends within 2 hours": (1, {"due"}),
        "My claimed cases": (1, {"due"}),
        "Unassigned cases": (4, {"fresh", "info", "late", "stale"}),
    }
    for label, (count, keys) in expected.items():
        value, url = shown[label]
        assert value == str(count), label
        assert url.startswith("/customers/"), label
        assert listed(client, url, everyone) == names(cases, *keys), label


def test_decisions_chart_has_a_value_per_day_a_table_and_links(client, compliance_user, cases):
    rollups.refresh()
    client.force_login(compliance_user)
    response = home(client)
    html = response.content.decode()
    today = timezone.now().date()
    assert html.count('<a href="/customers/?view=all&amp;decided=') == 14 * 2  # the bars and the table rows
    assert f'decided={today.isoformat()}">{today:%-d %b}</a></th><td class="num">1</td><td class="num">0</td>' in html
    assert 'role="img"' in html
    assert "<caption>Decisions per day over the last 14 days" in html
    # The day's link lists the customer decided that day.
    assert listed(client, f"/customers/?view=all&decided={today.isoformat()}", ["Done Active", "Info Asked"]) == {
        "Done Active"
    }
    value, _url = figures(response)["Median time to a decision"]
    assert value == "3 h 0 min"


def test_rolled_up_figures_say_their_age_the_live_ones_do_not(client, compliance_user, cases):
    rollups.refresh(timezone.now() - dt.timedelta(minutes=3))
    client.force_login(compliance_user)
    html = home(client).content.decode()
    assert html.count("as of <time") >= 4
    assert "3 min ago" in html
    assert figures(home(client))["My claimed cases"][0] == "1"


def test_an_empty_mirror_shows_zeros(client, compliance_user):
    client.force_login(compliance_user)
    shown = figures(home(client))  # the first view computes the roll-ups once (eager Celery)
    assert shown["All cases needing a person"][0] == "0"
    assert shown["Over SLA"][0] == "0"
    assert shown["Unassigned cases"][0] == "0"
    assert shown["Median time to a decision"][0] == "not known yet"


def test_before_the_first_roll_up_the_section_says_not_computed_yet(client, compliance_user, cases):
    cache.add("home:first-refresh", 1, 60)  # a refresh was asked for and has not run yet
    client.force_login(compliance_user)
    response = home(client)
    assert b"Not computed yet" in response.content
    shown = figures(response)
    assert shown["My claimed cases"][0] == "1"
    assert "Over SLA" not in shown


def test_a_failed_computation_on_demand_leaves_the_live_figures(client, compliance_user, cases, monkeypatch):
    from backoffice import tasks

    def broker_down():
        raise ConnectionError("no broker")

    monkeypatch.setattr(tasks.refresh_home_figures, "delay", broker_down)
    client.force_login(compliance_user)
    response = home(client)
    assert b"Not computed yet" in response.content
    assert figures(response)["My claimed cases"][0] == "1"


def test_a_snapshot_of_an_older_shape_counts_as_not_computed(client, compliance_user, cases):
    from backoffice.models import Snapshot

    rollups.refresh()
    Snapshot.objects.filter(name="compliance").update(data={"needs_person": {}})
    cache.add("home:first-refresh", 1, 60)
    client.force_login(compliance_user)
    assert b"Not computed yet" in home(client).content


@pytest.mark.parametrize("roles", [["compliance_lead"], ["compliance", "compliance_lead"]])
def test_a_compliance_lead_sees_the_compliance_section_once(client, make_staff, cases, roles):
    from django.contrib.auth.models import Group

    rollups.refresh()
    lead = make_staff(roles[0], username="lead")
    lead.groups.add(*Group.objects.filter(name__in=roles))
    client.force_login(lead)
    html = home(client).content.decode()
    assert html.count('<h2 id="home-compliance">Compliance</h2>') == 1
    assert '<span class="badge" title="compliance_lead">Compliance lead</span>' in html
    assert "Escalated cases" in figures(home(client))


def test_open_alerts_by_kind_and_age_link_to_the_alerts_list(client, compliance_user):
    from monitoring.models import Alert, AlertKind
    from monitoring.services import raise_alerts

    customer = CustomerFactory(name="Sam Screened")
    ages = {"fresh": 2, "week": 24 * 3, "old": 24 * 10}
    raise_alerts(
        [Alert(kind=AlertKind.SCREENING, customer=customer, dedupe_key=f"home:{name}", sentence="s") for name in ages]
        + [Alert(kind=AlertKind.MONITORING, customer=customer, dedupe_key="home:m", sentence="m")]
    )
    for name, hours in ages.items():
        Alert.objects.filter(dedupe_key=f"home:{name}").update(created_at=timezone.now() - dt.timedelta(hours=hours))
    Alert.objects.create(
        kind=AlertKind.SCREENING, customer=customer, dedupe_key="home:done", sentence="d", status="decided"
    )
    client.force_login(compliance_user)
    shown = figures(home(client))
    assert shown["Watchlist screening: under 24 hours"][0] == "1"
    assert shown["Watchlist screening: 1 to 7 days"][0] == "1"
    assert shown["Watchlist screening: over 7 days"][0] == "1"
    assert shown["Transaction monitoring: under 24 hours"][0] == "1"
    assert shown["Transaction monitoring: over 7 days"][0] == "0"
    for label in (
        "Watchlist screening: under 24 hours",
        "Watchlist screening: 1 to 7 days",
        "Watchlist screening: over 7 days",
    ):
        url = shown[label][1]
        assert "kind=screening" in url and "status=open" in url
        response = client.get(url)
        assert response.status_code == 200
        assert len(response.context["page"].items) == 1
