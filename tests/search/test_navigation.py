"""The top bar's menus: each role's groups hold exactly the links it may follow, the current
place is marked, the member's own menu names what it holds."""

import re

import pytest
from django.urls import reverse

from tests.conftest import ROLES

pytestmark = pytest.mark.django_db

CUSTOMERS = ["Customers", "Escalations"]
PAYMENTS = [
    "Payment accounts",
    "Automation rules",
    "Exchange rates",
    "Open quotes",
    "Transactions",
    "Stuck",
    "Waiting for approval",
]
MONITORING = ["Alerts", "Rules", "Watch lists"]
EXPECTED = {
    "compliance": {"Customers and cases": [*CUSTOMERS, "New customer"], "Payments": PAYMENTS, "Monitoring": MONITORING},
    "compliance_lead": {
        "Customers and cases": [*CUSTOMERS, "New customer"],
        "Payments": PAYMENTS,
        "Monitoring": MONITORING,
    },
    "operations": {"Customers and cases": CUSTOMERS, "Payments": [*PAYMENTS[:3], "New quote", *PAYMENTS[3:]]},
    "admin": {
        "Customers and cases": [*CUSTOMERS, "New customer"],
        "Payments": [*PAYMENTS[:3], "New quote", *PAYMENTS[3:]],
        "Monitoring": MONITORING,
        "Administration": ["Audit log", "Webhook inbox", "Staff"],
    },
    "auditor": {
        "Customers and cases": CUSTOMERS,
        "Payments": PAYMENTS,
        "Monitoring": MONITORING,
        "Administration": ["Audit log", "Webhook inbox"],
    },
    None: {},
}


def menus(html: str) -> dict[str, list[str]]:
    """{group: [link texts]} of the main navigation."""
    nav = html.split('<nav aria-label="Main">', 1)[1].split("</nav>", 1)[0]
    groups = {}
    for block in nav.split("<details")[1:]:
        summary = re.search(r"<summary[^>]*>(.*?)</summary>", block, re.S).group(1).strip()
        groups[summary] = [text.strip() for text in re.findall(r"<a [^>]*>(.*?)</a>", block, re.S)]
    return groups


def current(html: str) -> tuple[list[str], list[str]]:
    """(groups marked current, links marked as the page)."""
    groups = re.findall(r'<summary aria-current="true">(.*?)</summary>', html)
    links = re.findall(r'<a [^>]*aria-current="page"[^>]*>(.*?)</a>', html)
    return groups, links


@pytest.mark.parametrize("role", [*ROLES, None])
def test_each_role_s_menus_hold_the_links_it_may_follow(client_as, role):
    client = client_as(role)
    assert menus(client.get(reverse("home")).content.decode()) == EXPECTED[role]


@pytest.mark.parametrize("role", [*ROLES, None])
def test_every_link_of_the_menus_opens_for_the_role(client_as, role):
    client = client_as(role)
    nav = client.get(reverse("home")).content.decode().split('<nav aria-label="Main">', 1)[1].split("</nav>", 1)[0]
    for href in re.findall(r'href="([^"]+)"', nav):
        assert client.get(href).status_code == 200, (role, href)


@pytest.mark.parametrize(
    ("url_name", "group", "link"),
    [
        ("payments-list-transactions", "Payments", "Transactions"),
        ("customers-list-escalations", "Customers and cases", "Escalations"),
        ("staff-list-staff", "Administration", "Staff"),
        ("audit-list-events", "Administration", "Audit log"),
    ],
)
def test_the_current_place_is_marked(client_as, url_name, group, link):
    html = client_as("admin").get(reverse(url_name)).content.decode()
    assert current(html) == ([group], [link])


def test_pages_outside_the_groups_mark_none(client_as):
    client = client_as("admin")
    assert current(client.get(reverse("search"), {"q": "x"}).content.decode())[0] == []
    groups, links = current(client.get(reverse("staff-set-time-zone")).content.decode())
    assert groups == []
    assert links == ["Time zone: UTC"]


def test_the_member_s_own_menu_names_security_and_time_zone(client_as):
    html = client_as("auditor").get(reverse("home")).content.decode()
    own = html.split('<ul class="menus own">', 1)[1].split("</ul>", 1)[0]
    assert "<summary>auditor-user</summary>" in own
    assert f'<a href="{reverse("mfa_index")}">Security: second factor and passkeys</a>' in own
    assert f'<a href="{reverse("staff-set-time-zone")}">Time zone: UTC</a>' in own
    assert "Log out" in own


@pytest.mark.parametrize(
    ("role", "shown"), [("admin", True), ("auditor", True), ("compliance", True), ("operations", False)]
)
def test_the_monitoring_group_shows_to_those_who_read_alerts(client_as, role, shown):
    html = client_as(role).get(reverse("home")).content.decode()
    assert ("Monitoring" in menus(html)) == shown
    if shown:
        assert menus(html)["Monitoring"] == ["Alerts", "Rules", "Watch lists"]


def test_a_monitoring_page_marks_its_group(client_as):
    html = client_as("compliance").get(reverse("monitoring-list-alerts")).content.decode()
    assert current(html)[0] == ["Monitoring"]
