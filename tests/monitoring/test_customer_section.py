"""The customer page's alerts section (monitoring.templatetags.monitoring_sections): open
alerts and the latest decided ones, in staff words, each linking to its page; read in the
page's one query and followed by its live version."""

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from monitoring.models import Alert, AlertDecision, AlertKind, AlertStatus
from monitoring.services import alert_decide, raise_alerts
from tests.customers.test_live import assert_nothing_typed_is_replaced, poller_url
from tests.factories import CustomerFactory, StaffUserFactory
from tests.monitoring.helpers import live_rule

pytestmark = pytest.mark.django_db


def _section(html: str) -> str:
    start = html.index('id="customer-alerts"')
    return html[start : html.index("</section>", start)]


@pytest.fixture
def ada():
    return CustomerFactory(name="Ada Alerted")


@pytest.fixture
def alerts(ada):
    rule = live_rule("structuring", name="Split below the threshold")
    other = CustomerFactory(name="Other Person")
    raise_alerts(
        [
            Alert(
                kind=AlertKind.MONITORING,
                customer=ada,
                rule=rule,
                rule_version=rule.live_version,
                dedupe_key="sec:structuring",
                sentence="3 payouts of 9,900-9,990 USD in 20 h",
            ),
            Alert(
                kind=AlertKind.SCREENING,
                customer=ada,
                dedupe_key="sec:screening",
                sentence="Name matches a watch-list entry",
                matched="ADA ALERTED",
                score=96,
            ),
            Alert(kind=AlertKind.SCREENING, customer=other, dedupe_key="sec:other", sentence="Someone else's hit"),
        ]
    )
    decided = Alert.objects.get(dedupe_key="sec:screening")
    alert_decide(user=StaffUserFactory(), alert=decided, decision=AlertDecision.FALSE_POSITIVE, reason="Born 1815")
    Alert.objects.filter(pk=decided.pk).update(created_at=timezone.now() - dt.timedelta(days=3))
    return {"open": Alert.objects.get(dedupe_key="sec:structuring"), "decided": decided, "rule": rule}


def test_the_section_shows_open_and_decided_alerts_in_staff_words(client_as, ada, alerts):
    html = client_as("compliance").get(reverse("customers-view-customer", args=[ada.customer_id])).content.decode()
    section = _section(html)

    opened, decided = alerts["open"], alerts["decided"]
    assert f'href="{reverse("monitoring-view-alert", args=[opened.pk])}">3 payouts of 9,900-9,990 USD in 20 h</a>' in (
        section
    )
    assert (
        f'href="{reverse("monitoring-view-alert", args=[decided.pk])}">Name matches a watch-list entry</a>' in section
    )
    assert '<span title="monitoring">Transaction monitoring</span>' in section
    assert '<span title="screening">Watchlist screening</span>' in section
    assert 'Split below the threshold</a> <span class="kv">v1</span>' in section
    assert "ADA ALERTED" in section and "(score 96)" in section
    assert '<span title="false_positive">False positive</span>' in section
    assert re.search(r'<td><time datetime="[^"]+">3\xa0days ago</time></td>', section)
    assert "Someone else" not in section
    # Open first, then the decided one.
    assert section.index("3 payouts") < section.index("Name matches")
    assert f'href="{reverse("monitoring-list-alerts")}?customer={ada.customer_id}"' in section


def test_the_link_to_all_alerts_lists_the_customers_alerts_only(client_as, ada, alerts):
    page = client_as("compliance").get(reverse("monitoring-list-alerts"), {"customer": ada.customer_id})
    assert {alert.pk for alert in page.context["page"].items} == {alerts["open"].pk, alerts["decided"].pk}


def test_staff_who_may_not_read_monitoring_see_no_alerts(client_as, ada, alerts):
    html = client_as("operations").get(reverse("customers-view-customer", args=[ada.customer_id])).content.decode()
    assert "h-alerts" not in html and "3 payouts" not in html


def test_a_customer_without_alerts_reads_none(client_as, ada):
    html = client_as("auditor").get(reverse("customers-view-customer", args=[ada.customer_id])).content.decode()
    assert "No alerts." in _section(html)


def test_the_open_page_follows_a_new_alert_and_a_decision(client_as, ada, alerts):
    client = client_as("compliance")
    url = poller_url(client.get(reverse("customers-view-customer", args=[ada.customer_id])).content.decode())
    assert client.get(url).status_code == 304

    raise_alerts([Alert(kind=AlertKind.SCREENING, customer=CustomerFactory(), dedupe_key="sec:x", sentence="x")])
    assert client.get(url).status_code == 304  # another customer's alert

    raise_alerts([Alert(kind=AlertKind.SCREENING, customer=ada, dedupe_key="sec:new", sentence="A wallet on the list")])
    changed = client.get(url)
    assert changed.status_code == 200
    html = changed.content.decode()
    assert '<section aria-labelledby="h-alerts" id="customer-alerts" hx-swap-oob="true">' in html
    assert "A wallet on the list" in _section(html)
    assert_nothing_typed_is_replaced(html)
    url = poller_url(html)
    assert client.get(url).status_code == 304

    alert_decide(user=StaffUserFactory(), alert=alerts["open"], decision=AlertDecision.TRUE_MATCH, reason="Confirmed")
    changed = client.get(url)
    assert changed.status_code == 200
    assert '<span title="true_match">True match</span>' in _section(changed.content.decode())
    assert Alert.objects.get(pk=alerts["open"].pk).status == AlertStatus.DECIDED


@pytest.mark.parametrize("role", ["compliance", "operations"])
def test_the_section_costs_the_page_no_query(client_as, ada, alerts, role, django_assert_num_queries):
    client = client_as(role)
    url = reverse("customers-view-customer", args=[ada.customer_id])
    client.get(url)
    with django_assert_num_queries(6):
        client.get(url)


def test_the_rows_show_at_most_the_newest_open_ones(client_as, ada):
    raise_alerts(
        [Alert(kind=AlertKind.MONITORING, customer=ada, dedupe_key=f"many:{i}", sentence=f"hit {i}") for i in range(25)]
    )
    html = client_as("compliance").get(reverse("customers-view-customer", args=[ada.customer_id])).content.decode()
    section = _section(html)
    assert len(re.findall(r">hit \d+</a>", section)) == 20
    assert "The newest 20 open alerts" in section


def test_an_alerts_kind_reads_in_the_queues_words_on_every_page(client_as, ada, alerts):
    from core import labels
    from customers.models import CaseKind

    assert dict(AlertKind.choices) == {k: v for k, v in CaseKind.choices if k in AlertKind.values}
    assert labels.label(labels.CASE_KIND, "screening") == "Watchlist screening"
    client = client_as("compliance")
    listed = client.get(reverse("monitoring-list-alerts")).content.decode()
    shown = client.get(reverse("monitoring-view-alert", args=[alerts["decided"].pk])).content.decode()
    queue = client.get(reverse("customers-list-customers"), {"kind": "monitoring"}).content.decode()
    for html in (listed, shown):
        assert '<span title="screening">Watchlist screening</span>' in html
    assert '<span title="monitoring">Transaction monitoring</span>' in listed
    assert '<option value="screening">Watchlist screening</option>' in listed  # the filter
    assert "1 Transaction monitoring" in queue
    for html in (listed, shown, queue):
        assert not re.search(r">\s*(Monitoring|Screening)\s*<", html.replace(">Monitoring</summary>", ""))


def test_the_case_card_of_a_customer_with_only_alerts_names_them(client_as):
    active = CustomerFactory(name="Ava Active", status="ACTIVE")
    rule = live_rule("large_transfer", name="Large")
    raise_alerts(
        [
            Alert(
                kind=AlertKind.MONITORING,
                customer=active,
                rule=rule,
                rule_version=rule.live_version,
                dedupe_key="case:large",
                sentence="A 50,000 USD payout",
            ),
            Alert(kind=AlertKind.SCREENING, customer=active, dedupe_key="case:screen", sentence="Name on a list"),
            Alert(kind=AlertKind.SCREENING, customer=active, dedupe_key="case:screen2", sentence="Wallet on a list"),
        ]
    )
    html = client_as("compliance").get(reverse("customers-view-customer", args=[active.customer_id])).content.decode()
    start = html.index('id="case-facts"')
    case = html[start : html.index("</dl>", start)]
    assert "Open alerts: 1 transaction monitoring, 2 watchlist screening (" in case
    assert 'href="#h-alerts"' in case and "verification active." in case
    assert "No open case" not in case


def test_the_case_card_says_no_open_case_without_alerts(client_as):
    quiet = CustomerFactory(name="Quiet Person", status="ACTIVE")
    html = client_as("compliance").get(reverse("customers-view-customer", args=[quiet.customer_id])).content.decode()
    assert "No open case: active." in html
    assert "Open alerts" not in html
