"""This app's URLs in the role matrix (see tests/access.py). Every member reads and sets their
own notifications; the team destinations are the admins'."""

from tests.access import ANY_STAFF, Access


def _own_notification():
    """A notification of the member the matrix signed in (the newest user; a member of its own
    where a test asks for the URL before signing anyone in)."""
    from django.contrib.auth import get_user_model

    from notifications.models import Notification

    member = get_user_model().objects.order_by("-pk").first() or get_user_model().objects.create_user("reader")
    return {
        "pk": Notification.objects.create(
            recipient=member, kind="case_assigned", sentence="x", link="/", dedupe_key="m"
        ).pk
    }


def _destination():
    from notifications.models import TeamDestination

    return {"pk": TeamDestination.objects.create(name="Ops", url_encrypted="-", url_ending="abcd", kinds=[]).pk}


def _destination_data():
    return {"name": "Ops", "url": "json://127.0.0.1:9/hook", "kinds": ["transfer_stuck"], "active": "on"}


def _failed_delivery():
    from notifications.models import Delivery

    delivery = Delivery.objects.create(kind="test", title="t", body="b", state=Delivery.State.FAILED, attempts=5)
    return {"pk": delivery.pk}


ADMIN = frozenset({"admin"})

ACCESS = {
    "notifications-list-notifications": Access(ANY_STAFF),
    "notifications-bell": Access(ANY_STAFF),
    "notifications-read-all": Access(ANY_STAFF, method="post"),
    "notifications-open-notification": Access(ANY_STAFF, method="post", kwargs=_own_notification),
    "notifications-preferences": Access(ANY_STAFF, method="post", data=dict, form=True),
    "notifications-list-destinations": Access(ADMIN, method="post", data=_destination_data, form=True),
    "notifications-change-destination": Access(
        ADMIN, method="post", kwargs=_destination, data=_destination_data, form=True
    ),
    "notifications-test-destination": Access(ADMIN, method="post", kwargs=_destination),
    "notifications-retry-delivery": Access(ADMIN, method="post", kwargs=_failed_delivery),
}
