"""Out of the app: a member's e-mail at once or daily digest (Django's locmem backend), and a
team destination reached through apprise: a local HTTP server receives its message; a failing
one is tried NOTIFY_DELIVERY_ATTEMPTS times, recorded, shown to the admins with its error
(never its URL) and told to them; sent again from their page."""

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from django.core import mail
from django.urls import reverse

from audit.models import AuditEvent
from notifications import digest
from notifications.kinds import APPROVAL_WAITING, TRANSFER_STUCK
from notifications.models import Delivery, Notification, NotificationPreference, TeamDestination
from notifications.services import destination_url
from tests.notifications.conftest import tell

pytestmark = pytest.mark.django_db


class Receiver:
    """A tiny HTTP server on 127.0.0.1 in a thread: the bodies it was sent, and the status it answers."""

    def __init__(self, status: int = 200):
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"json://127.0.0.1:{self.server.server_port}/hooks/T0SECRET/B0SECRET"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.close()


@pytest.fixture
def failing_receiver():
    server = Receiver(status=500)
    yield server
    server.close()


@pytest.fixture
def admin_client(signed_in_as):
    return signed_in_as("admin", "ada-admin")[0]


def add_destination(client, name, url, kinds):
    return client.post(
        reverse("notifications-list-destinations"), {"name": name, "url": url, "kinds": kinds, "active": "on"}
    )


# --- Members' e-mails ----------------------------------------------------------------------------


def test_in_the_app_only_by_default_no_mail(make_staff, settings):
    carl = make_staff("compliance", "carl")
    carl.email = "carl@example.com"
    carl.save()
    tell([carl])
    assert Notification.objects.count() == 1
    assert mail.outbox == [] and not Delivery.objects.exists()


def test_email_at_once_sends_one_mail_with_the_link(make_staff, settings, django_capture_on_commit_callbacks):
    settings.NOTIFY_SITE_URL = "https://backoffice.example"
    carl = make_staff("compliance", "carl")
    carl.email = "carl@example.com"
    carl.save()
    NotificationPreference.objects.create(member=carl, kind="case_assigned", choice="email")
    with django_capture_on_commit_callbacks(execute=True):
        tell([carl])
        tell([carl])  # the same occurrence again: nothing more
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["carl@example.com"]
    assert message.subject == "[Back-office] A case assigned to me"
    assert message.body == "lena assigned you the case of Grace Hopper\nhttps://backoffice.example/customers/abc/"
    delivery = Delivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.member_id) == ("sent", 1, carl.pk)


def test_an_email_to_a_member_without_an_address_fails_visibly(
    make_staff, settings, django_capture_on_commit_callbacks
):
    settings.NOTIFY_DELIVERY_ATTEMPTS = 2
    carl = make_staff("compliance", "carl")
    make_staff("admin", "ada-admin")
    NotificationPreference.objects.create(member=carl, kind="case_assigned", choice="email")
    with django_capture_on_commit_callbacks(execute=True):
        tell([carl])
    delivery = Delivery.objects.get()
    assert (delivery.state, delivery.attempts) == ("failed", 2)
    assert "no e-mail address" in delivery.last_error
    assert Notification.objects.get(kind="delivery_failed").recipient.username == "ada-admin"


def test_the_digest_collects_the_chosen_kinds_once_a_day(make_staff, django_capture_on_commit_callbacks):
    olga = make_staff("operations", "olga")
    olga.email = "olga@example.com"
    olga.save()
    NotificationPreference.objects.create(member=olga, kind="transfer_stuck", choice="digest")
    with django_capture_on_commit_callbacks(execute=True):
        tell([olga], kind=TRANSFER_STUCK, key="s1", sentence="Transaction t1 has been processing since …")
        tell([olga], kind=TRANSFER_STUCK, key="s2", sentence="Transaction t2 has been processing since …")
        tell([olga], kind=APPROVAL_WAITING, key="a1", sentence="pavel asks for your approval")  # in the app only
    assert mail.outbox == []  # nothing at once
    with django_capture_on_commit_callbacks(execute=True):
        assert digest.send_all() == 1
    assert len(mail.outbox) == 1
    body = mail.outbox[0].body
    assert "Transaction t1" in body and "Transaction t2" in body and "pavel" not in body
    assert mail.outbox[0].subject == "[Back-office] Your daily digest: 2 notifications"
    with django_capture_on_commit_callbacks(execute=True):
        tell([olga], kind=TRANSFER_STUCK, key="s3", sentence="Transaction t3 …")
        assert digest.send_all() == 0  # one a day
    assert len(mail.outbox) == 1


# --- Team destinations ---------------------------------------------------------------------------


def test_an_admin_adds_a_destination_whose_url_is_never_shown_again(admin_client, receiver):
    response = add_destination(admin_client, "Ops channel", receiver.url, ["transfer_stuck", "approval_waiting"])
    assert response.status_code == 302
    destination = TeamDestination.objects.get()
    assert destination_url(destination) == receiver.url
    assert "B0SECRET" not in destination.url_encrypted and destination.url_ending == "CRET"
    page = admin_client.get(reverse("notifications-list-destinations")).content.decode()
    assert "saved, ending …CRET" in page
    assert "T0SECRET" not in page and "B0SECRET" not in page
    edit = admin_client.get(reverse("notifications-change-destination", args=[destination.pk])).content.decode()
    assert "T0SECRET" not in edit and "B0SECRET" not in edit
    event = AuditEvent.objects.get(action="notification.destination_add")
    assert "SECRET" not in json.dumps(event.details)


def test_a_destination_with_an_unknown_url_is_refused_and_not_echoed(admin_client):
    response = add_destination(admin_client, "Bad", "nothing://secret-token-xyz", ["transfer_stuck"])
    assert response.status_code == 400
    assert "secret-token-xyz" not in response.content.decode()
    assert not TeamDestination.objects.exists()


def test_changing_a_destination_keeps_its_url_when_the_box_is_left_empty(admin_client, receiver):
    add_destination(admin_client, "Ops", receiver.url, ["transfer_stuck"])
    destination = TeamDestination.objects.get()
    admin_client.post(
        reverse("notifications-change-destination", args=[destination.pk]),
        {"name": "Ops (night)", "url": "", "kinds": ["transfer_stuck", "sync_stale"], "active": "on"},
    )
    destination.refresh_from_db()
    assert destination.name == "Ops (night)" and destination.kinds == ["transfer_stuck", "sync_stale"]
    assert destination_url(destination) == receiver.url


def test_only_admins_manage_destinations(client, make_staff):
    client.force_login(make_staff("operations", "olga"))
    assert client.get(reverse("notifications-list-destinations")).status_code == 403
    assert client.post(reverse("notifications-list-destinations"), {"name": "x"}).status_code == 403


def test_a_destination_receives_the_kinds_it_chose_from_a_local_server(
    admin_client, make_staff, receiver, django_capture_on_commit_callbacks
):
    add_destination(admin_client, "Ops channel", receiver.url, ["transfer_stuck"])
    olga = make_staff("operations", "olga")
    with django_capture_on_commit_callbacks(execute=True):
        tell([olga], kind=TRANSFER_STUCK, key="s1", sentence="Transaction t1 has been processing since …")
        tell([olga], kind=TRANSFER_STUCK, key="s1", sentence="Transaction t1 has been processing since …")
        tell([olga], kind=APPROVAL_WAITING, key="a1", sentence="not this kind")
    assert len(receiver.received) == 1
    message = receiver.received[0]
    assert message["title"] == "A transfer stuck (operations)"
    assert message["message"].startswith("Transaction t1 has been processing since …")
    delivery = Delivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.last_error) == ("sent", 1, "")


def test_the_test_button_sends_a_message(admin_client, receiver, django_capture_on_commit_callbacks):
    add_destination(admin_client, "Ops channel", receiver.url, ["transfer_stuck"])
    destination = TeamDestination.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(reverse("notifications-test-destination", args=[destination.pk]))
    assert response.status_code == 302
    assert [m["title"] for m in receiver.received] == ["Test message"]
    assert "ada-admin" in receiver.received[0]["message"]
    assert AuditEvent.objects.filter(action="notification.destination_test").count() == 1


def test_a_failing_destination_is_retried_then_shown_failed_to_admins_and_sent_again(
    admin_client, make_staff, failing_receiver, settings, django_capture_on_commit_callbacks
):
    settings.NOTIFY_DELIVERY_ATTEMPTS = 3
    add_destination(admin_client, "Broken channel", failing_receiver.url, ["transfer_stuck"])
    olga = make_staff("operations", "olga")
    with django_capture_on_commit_callbacks(execute=True):
        tell([olga], kind=TRANSFER_STUCK, key="s1", sentence="Transaction t1 has been processing since …")
    assert len(failing_receiver.received) == 3  # every try reached the server
    delivery = Delivery.objects.get(destination__isnull=False)
    assert (delivery.state, delivery.attempts) == ("failed", 3)
    assert delivery.last_error and "SECRET" not in delivery.last_error
    told = Notification.objects.get(kind="delivery_failed")
    assert told.recipient.username == "ada-admin"
    assert "Broken channel failed 3 times" in told.sentence

    page = admin_client.get(reverse("notifications-list-destinations")).content.decode()
    failed = page.split('id="failed"')[1]
    assert "Broken channel" in failed and "A transfer stuck (operations)" in failed
    assert delivery.last_error[:40] in failed
    assert "SECRET" not in page

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(reverse("notifications-retry-delivery", args=[delivery.pk]))
    assert response.status_code == 302
    assert len(failing_receiver.received) == 6
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts) == ("failed", 3)
    assert AuditEvent.objects.filter(action="notification.delivery_retry").count() == 1


def test_a_retried_delivery_that_goes_through_is_sent(admin_client, receiver, django_capture_on_commit_callbacks):
    add_destination(admin_client, "Ops", receiver.url, ["transfer_stuck"])
    delivery = Delivery.objects.create(
        destination=TeamDestination.objects.get(),
        kind="transfer_stuck",
        title="T",
        body="B",
        state="failed",
        attempts=5,
    )
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(reverse("notifications-retry-delivery", args=[delivery.pk]))
    delivery.refresh_from_db()
    assert delivery.state == "sent"
    assert receiver.received[0]["message"] == "B"


def test_a_lost_task_is_sent_by_the_periodic_check(admin_client, receiver):
    import datetime as dt

    from django.utils import timezone

    from notifications.tasks import check_conditions

    add_destination(admin_client, "Ops", receiver.url, ["transfer_stuck"])
    delivery = Delivery.objects.create(
        destination=TeamDestination.objects.get(), kind="transfer_stuck", title="T", body="B"
    )
    Delivery.objects.filter(pk=delivery.pk).update(updated_at=timezone.now() - dt.timedelta(hours=2))
    check_conditions()
    delivery.refresh_from_db()
    assert delivery.state == "sent" and len(receiver.received) == 1
