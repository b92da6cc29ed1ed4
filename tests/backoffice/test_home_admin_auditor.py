"""The admin and auditor home sections, sections for several roles, and the queries each home
page costs."""

import datetime as dt

import pytest
from django.utils import timezone

from backoffice import rollups
from mirror.models import WebhookEvent
from tests.factories import ApprovalRequestFactory, AuditEventFactory, SyncRunFactory, WebhookEventFactory
from upstream.client import get_client

from .home_helpers import figures, home, listed

pytestmark = pytest.mark.django_db


def test_admin_sees_syncs_inbox_breaker_and_staff(client, admin_user):
    now = timezone.now()
    SyncRunFactory(kind="customers", finished_at=now - dt.timedelta(minutes=7))
    SyncRunFactory(kind="customers", finished_at=now - dt.timedelta(hours=3))
    SyncRunFactory(kind="transactions", failed=True)
    waiting = [WebhookEventFactory(), WebhookEventFactory()]
    WebhookEvent.objects.filter(pk=waiting[0].pk).update(received_at=now - dt.timedelta(minutes=42))
    failed = WebhookEventFactory(state=WebhookEvent.State.FAILED)
    WebhookEventFactory(state=WebhookEvent.State.PROCESSED)
    client.force_login(admin_user)

    response = home(client)

    html = response.content.decode()
    assert '<th scope="row">customers</th>' in html
    assert "7 min ago" in html
    assert '<th scope="row">transactions</th><td colspan="2">never</td>' in html
    shown = figures(response)
    assert shown["Webhook events waiting"] == ("2", "/inbox/?state=received")
    assert shown["Failed events"] == ("1", "/inbox/?state=failed")
    events = [e.event_id for e in [*waiting, failed]]
    assert listed(client, "/inbox/?state=failed", events) == {failed.event_id}
    assert "Oldest waiting: <strong>received 42 min ago</strong>" in html
    assert 'Circuit breaker: <span class="badge ok">closed</span>' in html
    assert shown["Staff without a second factor"] == ("1", "/staff/")
    assert shown["Approvals waiting"] == ("0", "/payments/approvals/")


def test_admin_sees_an_open_breaker(client, admin_user):
    client.force_login(admin_user)
    breaker = get_client().breaker
    breaker.open()
    try:
        assert b'Circuit breaker: <span class="badge bad">open</span>' in home(client).content
    finally:
        breaker.close()


def test_admin_sees_staff_without_a_second_factor_and_approvals_waiting(client, admin_user, make_staff):
    from allauth.mfa.models import Authenticator

    enrolled = make_staff("operations", username="with-totp")
    Authenticator.objects.create(user=enrolled, type=Authenticator.Type.TOTP, data={"secret": "x"})
    make_staff("compliance", username="without")
    ApprovalRequestFactory(maker=enrolled)
    ApprovalRequestFactory(maker=enrolled, expires_at=timezone.now() - dt.timedelta(minutes=1))  # lapsed
    ApprovalRequestFactory(maker=enrolled, status="rejected")
    client.force_login(admin_user)
    shown = figures(home(client))
    # The admin and "without" have no second factor; "with-totp" has one.
    assert shown["Staff without a second factor"][0] == "2"
    assert shown["Approvals waiting"][0] == "1"
    assert client.get(shown["Approvals waiting"][1]).status_code == 200
    assert client.get(shown["Staff without a second factor"][1]).status_code == 200


def test_an_empty_mirror_gives_the_admin_nothing_waiting(client, admin_user):
    client.force_login(admin_user)
    response = home(client)
    shown = figures(response)
    assert shown["Webhook events waiting"][0] == "0"
    assert shown["Failed events"][0] == "0"
    assert b"Oldest waiting: none" in response.content
    assert response.content.count(b'<td colspan="2">never</td>') == 4  # every kind of sync


def test_auditor_sees_the_latest_audit_events_linked_to_the_log(client, auditor_user):
    client.force_login(auditor_user)  # itself an audit event (auth.login)
    events = [AuditEventFactory(action=f"customer.action_{i}") for i in range(12)]
    html = home(client).content.decode()
    for event in events[2:]:  # the newest ten, in words (an action no vocabulary names), the code on hover
        words = event.action.replace(".", " ").replace("_", " ").capitalize()
        assert f'<a href="/audit/?action={event.action}" title="{event.action}">{words}</a>' in html
    for event in events[:2]:
        assert f'?action={event.action}"' not in html
    assert '<a href="/audit/">The whole audit log</a>' in html
    assert "Latest approvals" in html and "No approval yet." in html


def test_an_empty_audit_log(client, auditor_user):
    client.force_login(auditor_user)
    from audit.models import AuditEvent

    AuditEvent.objects.all().delete()
    assert b"No audit event yet." in home(client).content


def test_several_roles_see_each_of_their_sections(client, make_staff):
    from django.contrib.auth.models import Group

    user = make_staff("compliance", username="two-hats")
    user.groups.add(Group.objects.get(name="auditor"))
    client.force_login(user)
    html = home(client).content.decode()
    assert '<h2 id="home-compliance">Compliance</h2>' in html
    assert '<h2 id="home-auditor">Auditor</h2>' in html
    assert "home-operations" not in html and "home-admin" not in html
    assert html.index("home-compliance") < html.index("home-auditor")


def test_every_section_finds_every_variable_it_reads(client, make_staff, caplog, settings):
    # A variable missing from the context costs the template language an exception, per item
    # in a loop; the sections give every one they read.
    from django.contrib.auth.models import Group

    rollups.refresh()
    SyncRunFactory()
    WebhookEventFactory()
    AuditEventFactory(target_kind="", actor_username="")
    user = make_staff("compliance", username="all-hats")
    user.groups.add(*Group.objects.filter(name__in=["operations", "admin", "auditor"]))
    client.force_login(user)
    with caplog.at_level("DEBUG", logger="django.template"):
        html = home(client).content.decode()
    assert html.count('class="home-section"') == 4
    missing = [r.getMessage() for r in caplog.records if "backoffice/" in r.getMessage()]
    assert missing == []


def test_a_user_without_a_role_sees_no_section(client, make_staff):
    client.force_login(make_staff(None))
    response = home(client)
    assert b"You have no staff role yet" in response.content
    assert b"home-section" not in response.content


# Session, user, the user's groups (roles) and permissions (the navigation): 4; then every live
# figure and snapshot of the sections in one query (home_figures.live_figures: compliance's open
# alerts by kind and age too; none for the auditor, who has no live figure).
@pytest.mark.parametrize(
    ("role", "queries"),
    # The auditor's two lists in one query, then their names (the events' targets and the
    # approvals' makers, of every kind) in one more.
    [("compliance", 4 + 1), ("operations", 4 + 1), ("admin", 4 + 1), ("auditor", 4 + 1 + 1), (None, 4)],
)
def test_each_home_page_costs_a_fixed_number_of_queries(client, make_staff, django_assert_num_queries, role, queries):
    rollups.refresh()
    SyncRunFactory()
    WebhookEventFactory()
    AuditEventFactory()
    client.force_login(make_staff(role))
    home(client)  # the first request after a login also records it
    with django_assert_num_queries(queries):
        home(client)


def test_the_home_page_of_a_member_with_every_role_costs_at_most_eight_queries(
    client, make_staff, django_assert_max_num_queries
):
    from core.access import Role
    from tests.conftest import role_group

    rollups.refresh()
    SyncRunFactory()
    WebhookEventFactory()
    AuditEventFactory()
    ApprovalRequestFactory()
    member = make_staff(None, username="everything")
    member.groups.add(*(role_group(role) for role in Role.values))
    client.force_login(member)
    home(client)  # the first request after a login also records it
    # Session, user, roles, permissions; every figure and snapshot; the auditor's two lists;
    # the names of their records (a customer, the members): 8.
    with django_assert_max_num_queries(8):
        response = home(client)
    assert [s.role for s in response.context["sections"]] == ["compliance", "operations", "admin", "auditor"]
