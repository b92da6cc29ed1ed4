"""The member's pages: the list (keyset pages, a fixed number of queries), opening one, all
read, the bell and its poll, and the choices per kind."""

import re

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from notifications.kinds import APPROVAL_WAITING
from notifications.models import Notification, NotificationPreference
from tests.notifications.conftest import tell as tell_members

pytestmark = pytest.mark.django_db


def tell(user, n: int = 1, link="/customers/"):
    """`n` notifications for `user`."""
    start = Notification.objects.count()
    for i in range(n):
        tell_members([user], key=f"test:{start}:{i}", sentence=f"Something waits {i}", link=link)


@pytest.fixture
def signed_in_carl(signed_in_as):
    return signed_in_as("compliance", "carl")


@pytest.fixture
def carl(signed_in_carl):
    return signed_in_carl[1]


@pytest.fixture
def signed_in(signed_in_carl):
    return signed_in_carl[0]


def test_the_list_pages_by_keyset_in_a_fixed_number_of_queries(signed_in, carl, django_assert_max_num_queries):
    tell(carl, 60)
    signed_in.get(reverse("home"))  # the top bar's cached figures, read once
    with django_assert_max_num_queries(6):
        first = signed_in.get(reverse("notifications-list-notifications"))
    html = first.content.decode()
    assert "Something waits 59" in html and "Something waits 10" in html and "Something waits 9<" not in html
    cursor = html.split("cursor=")[1].split('"')[0]
    with django_assert_max_num_queries(6):
        second = signed_in.get(reverse("notifications-list-notifications") + f"?cursor={cursor}")
    assert "Something waits 9<" in second.content.decode()


def test_a_member_sees_only_their_own(client, carl, make_staff):
    tell(carl)
    other = make_staff("compliance", "cora")
    client.force_login(other)
    assert "Something waits" not in client.get(reverse("notifications-list-notifications")).content.decode()
    notification = Notification.objects.get()
    response = client.post(reverse("notifications-open-notification", args=[notification.pk]))
    assert response.status_code == 404
    notification.refresh_from_db()
    assert notification.read_at is None


def test_opening_marks_it_read_audited_and_goes_to_the_work(signed_in, carl):
    tell(carl, link="/customers/abc/")
    notification = Notification.objects.get()
    response = signed_in.post(reverse("notifications-open-notification", args=[notification.pk]))
    assert response.status_code == 302 and response["Location"] == "/customers/abc/"
    notification.refresh_from_db()
    assert notification.read_at is not None
    assert AuditEvent.objects.filter(action="notification.read", actor=carl).count() == 1
    signed_in.post(reverse("notifications-open-notification", args=[notification.pk]))  # again: not audited again
    assert AuditEvent.objects.filter(action="notification.read").count() == 1


def test_opening_never_leaves_the_site(signed_in, carl):
    tell(carl, link="//evil.example/")
    notification = Notification.objects.get()
    response = signed_in.post(reverse("notifications-open-notification", args=[notification.pk]))
    assert response["Location"] == reverse("notifications-list-notifications")


def test_opening_and_reading_all_are_posts_with_csrf(carl):
    from django.test import Client

    tell(carl, 2)
    client = Client(enforce_csrf_checks=True)
    client.force_login(carl)
    notification = Notification.objects.first()
    assert client.get(reverse("notifications-open-notification", args=[notification.pk])).status_code == 405
    assert client.post(reverse("notifications-read-all")).status_code == 403
    assert not Notification.objects.filter(read_at__isnull=False).exists()


def test_mark_all_read(signed_in, carl):
    tell(carl, 3)
    response = signed_in.post(reverse("notifications-read-all"), follow=True)
    assert "3 notifications marked read." in response.content.decode()
    assert not Notification.objects.filter(read_at__isnull=True).exists()
    event = AuditEvent.objects.get(action="notification.read_all")
    assert event.details == {"count": 3}


def test_the_list_needs_a_login(client):
    response = client.get(reverse("notifications-list-notifications"))
    assert response.status_code == 302 and "/login/" in response["Location"]


# --- The bell ------------------------------------------------------------------------------------


def _bell(html: str) -> str:
    return html.split('id="bell"')[1].split("</a>")[0]


def _poll_url(html: str) -> str:
    return _bell(html).split('hx-get="')[1].split('"')[0].replace("&amp;", "&")


def _polled(client) -> str:
    """The bell's first poll from the home page: the bell with its count."""
    response = client.get(_poll_url(client.get(reverse("home")).content.decode()))
    assert response.status_code == 200
    return response.content.decode()


def test_every_page_has_the_bell_and_its_first_poll_brings_the_count(signed_in, carl):
    bell = _bell(signed_in.get(reverse("home")).content.decode())
    assert 'hx-trigger="load, every 4s"' in bell  # asked for as soon as the page has loaded
    assert 'class="bell-count"></span>' in bell  # the page itself reads no count
    tell(carl, 2)
    polled = _polled(signed_in)
    assert 'id="bell-count" class="bell-count">2<' in polled
    assert 'hx-trigger="every 4s"' in polled and 'class="bell unread"' in polled


def test_the_bell_costs_a_page_no_query(signed_in, carl, django_assert_num_queries):
    tell(carl, 2)
    signed_in.get(reverse("notifications-preferences"))
    with django_assert_num_queries(0):
        from django.template import Context, Template
        from django.test import RequestFactory

        request = RequestFactory().get("/")
        request.user, request.COOKIES["sessionid"] = carl, "s"
        html = Template('{% include "notifications/_bell.html" %}').render(Context({"request": request, "user": carl}))
    assert 'id="bell"' in html


def test_the_page_shows_the_count_the_writes_left_in_the_cache_without_a_query(
    signed_in, carl, django_capture_on_commit_callbacks, django_assert_num_queries
):
    """Without script the bell still says how many: the raise and the reads count the member's
    unread once committed (services.remember_unread_after_commit), and the page's bell reads
    that from the cache, not the database."""
    url = reverse("notifications-preferences")
    signed_in.get(url)  # the session seen once
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as before:
        signed_in.get(url)
    with django_capture_on_commit_callbacks(execute=True):
        tell(carl, 2)
    with django_assert_num_queries(len(before)):
        bell = _bell(signed_in.get(url).content.decode())
    assert 'id="bell-count" class="bell-count">2<' in bell and 'class="bell unread"' in bell
    assert 'hx-trigger="every 4s"' in bell  # no first poll needed: it only follows

    with django_capture_on_commit_callbacks(execute=True):
        signed_in.post(reverse("notifications-read-all"))
    bell = _bell(signed_in.get(url).content.decode())
    assert 'id="bell-count" class="bell-count">0<' in bell and 'class="bell unread"' not in bell


def test_without_the_cached_count_the_page_asks_its_first_poll(signed_in, carl, django_capture_on_commit_callbacks):
    from django.core.cache import cache

    with django_capture_on_commit_callbacks(execute=True):
        tell(carl, 3)
    cache.clear()  # Redis away, or restarted
    bell = _bell(signed_in.get(reverse("home")).content.decode())
    assert 'class="bell-count"></span>' in bell and 'hx-trigger="load, every 4s"' in bell
    assert 'id="bell-count" class="bell-count">3<' in _polled(signed_in)
    # The poll counted: the next page shows it.
    assert 'id="bell-count" class="bell-count">3<' in _bell(signed_in.get(reverse("home")).content.decode())


def test_the_bell_poll_answers_304_while_unchanged_with_one_query_and_no_session_write(
    signed_in, carl, django_assert_num_queries
):
    tell(carl)
    url = _poll_url(_polled(signed_in))
    signed_in.get(url)  # the session seen alive once (core.live)
    with django_assert_num_queries(1):
        response = signed_in.get(url)
    assert response.status_code == 304
    assert "sessionid" not in response.cookies

    tell(carl)  # a new one: the poll answers the new bell (the version, the session, the member, the count)
    with django_assert_num_queries(4):
        changed = signed_in.get(url)
    assert changed.status_code == 200
    assert 'id="bell-count" class="bell-count">2<' in changed.content.decode()


def test_the_bell_poll_of_another_member_or_session_gets_no_304(carl, make_staff, signed_in):
    from django.test import Client

    tell(carl)
    url = _poll_url(_polled(signed_in))
    other = Client()
    other.force_login(make_staff("compliance", "cora"))
    response = other.get(url)
    # Their own bell (0 unread), through the view: never carl's "unchanged".
    assert response.status_code == 200
    assert 'id="bell-count" class="bell-count">0<' in response.content.decode()


def test_the_bell_counts_ninety_nine_plus(signed_in, carl):
    tell(carl, 101)
    assert 'class="bell-count">100+<' in _polled(signed_in)


# --- Preferences ---------------------------------------------------------------------------------


def test_preferences_offer_the_kinds_of_the_members_role_and_save_them_audited(signed_in, carl):
    html = signed_in.get(reverse("notifications-preferences")).content.decode()
    assert "A case assigned to me" in html and "A case past its SLA" in html
    assert "A transfer stuck" not in html  # operations' only
    assert "A case escalated" not in html  # leads' only
    response = signed_in.post(
        reverse("notifications-preferences"),
        {"case_assigned": "email", "case_past_sla": "digest", "monitoring_alert": "app"},
        follow=True,
    )
    assert "Your choices are saved." in response.content.decode()
    assert dict(NotificationPreference.objects.filter(member=carl).values_list("kind", "choice")) == {
        "case_assigned": "email",
        "case_past_sla": "digest",
    }
    assert AuditEvent.objects.get(action="notification.preferences").details == {
        "kinds": ["case_assigned", "case_past_sla"]
    }


def test_a_choice_outside_the_list_is_refused(signed_in, carl):
    response = signed_in.post(
        reverse("notifications-preferences"),
        {"case_assigned": "sms", "case_past_sla": "app", "monitoring_alert": "app"},
    )
    assert response.status_code == 400
    assert not NotificationPreference.objects.exists()


def test_an_operations_member_is_offered_approvals_and_stuck_transfers(client, make_staff):
    client.force_login(make_staff("operations", "olga"))
    html = client.get(reverse("notifications-preferences")).content.decode()
    assert APPROVAL_WAITING.label in html and "A transfer stuck" in html
    assert "A case assigned to me" not in html


def test_the_preferences_of_a_member_in_every_role_take_a_fixed_number_of_queries(
    client, make_staff, django_assert_max_num_queries
):
    from django.utils.html import escape

    from core.access import Role
    from notifications.kinds import KINDS
    from tests.conftest import role_group

    member = make_staff("admin", "every-role")
    member.groups.add(*(role_group(role) for role in Role.values if role != "admin"))
    NotificationPreference.objects.create(member=member, kind="case_assigned", choice="email")
    client.force_login(member)
    client.get(reverse("home"))  # the top bar's cached figures, read once
    # The session, the member, their permissions, the kinds they receive (one query whatever the
    # number of kinds) and their choices.
    with django_assert_max_num_queries(6):
        html = client.get(reverse("notifications-preferences")).content.decode()
    for kind in KINDS.values():
        assert escape(kind.label) in html
    assert re.search(r'name="case_assigned" value="email"[^>]*checked', html)


def test_the_bell_poll_carries_none_of_the_pages_own_query(signed_in):
    html = signed_in.get(reverse("notifications-list-notifications") + "?cursor=abc&assignee=me").content.decode()
    url = _poll_url(html)
    assert url.startswith("/notifications/live?v=&t=")
    assert "cursor" not in url and "assignee" not in url
