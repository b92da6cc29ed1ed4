"""Sending one delivery: a member's e-mail through Django's e-mail backend, a team
destination's message through apprise (one URL per service: slack://, msteams://, mailto://,
json://, ...). Each try is recorded on the Delivery; the worker retries a failed one with a
growing wait (retry_in), up to NOTIFY_DELIVERY_ATTEMPTS tries, then it is failed: shown to the
admins on the team destinations page and told to them as a notification.
"""

import datetime as dt
import logging

import apprise
from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from .models import Delivery

log = logging.getLogger(__name__)

ERROR_LENGTH = 500


def retry_in(attempts: int) -> dt.timedelta:
    """The wait before the next try: 30 s, 1, 2, 4 minutes ..., at most an hour."""
    return dt.timedelta(seconds=min(30 * 2 ** max(attempts - 1, 0), 3600))


def _send_apprise(url: str, title: str, body: str) -> str:
    """'' when sent, else what went wrong (the URL itself never in it)."""
    sender = apprise.Apprise()
    if not sender.add(url):
        return "The destination's URL is not one of a service apprise knows."
    with apprise.LogCapture(level=logging.WARNING) as output:
        sent = sender.notify(title=title, body=body)
    if sent:
        return ""
    return output.getvalue().strip() or "The service did not accept the message."


def _send_email(delivery: Delivery) -> str:
    address = delivery.member.email if delivery.member else ""
    if not address:
        return "The member has no e-mail address: an admin adds it on the staff page."
    send_mail(
        subject=f"[Back-office] {delivery.title}",
        message=delivery.body,
        from_email=None,
        recipient_list=[address],
    )
    return ""


def _scrub(error: str, secret: str) -> str:
    """An error's words without the destination's URL or its parts."""
    for part in {secret, *secret.split("/")} if secret else ():
        if len(part) >= 6:
            error = error.replace(part, "…")
    return " ".join(error.split())[:ERROR_LENGTH]


def attempt(pk: int) -> bool:
    """One try of delivery `pk` (pending only). Whether another try should follow."""
    from .services import destination_url

    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(of=("self",))
            .select_related("destination", "member")
            .filter(pk=pk, state=Delivery.State.PENDING)
            .first()
        )
        if delivery is None:
            return False
        Delivery.objects.filter(pk=pk).update(attempts=delivery.attempts + 1, updated_at=timezone.now())
    delivery.attempts += 1
    url = ""
    try:
        if delivery.destination_id:
            url = destination_url(delivery.destination)
            error = (
                _send_apprise(url, delivery.title, delivery.body)
                if url
                else "The destination's URL can no longer be read (SECRET_KEY changed): save it again."
            )
        else:
            error = _send_email(delivery)
    except Exception as exc:  # any service's failure is recorded, never raised into the worker
        error = f"{type(exc).__name__}: {exc}"
    if not error:
        Delivery.objects.filter(pk=pk).update(state=Delivery.State.SENT, sent_at=timezone.now(), last_error="")
        return False
    error = _scrub(error, url)
    final = delivery.attempts >= settings.NOTIFY_DELIVERY_ATTEMPTS
    Delivery.objects.filter(pk=pk).update(
        last_error=error, state=Delivery.State.FAILED if final else Delivery.State.PENDING
    )
    log.warning("notifications: delivery %s try %s failed", pk, delivery.attempts)
    if final:
        _tell_admins(delivery)
    return not final


# A pending delivery untouched this long lost its task (the longest wait between tries is an hour).
STALLED_AFTER = dt.timedelta(minutes=70)


def stalled(limit: int = 100) -> list[int]:
    """Pending deliveries whose task was lost: the periodic check sends them again."""
    cutoff = timezone.now() - STALLED_AFTER
    rows = Delivery.objects.filter(state=Delivery.State.PENDING, updated_at__lt=cutoff).order_by("id")
    return list(rows.values_list("pk", flat=True)[:limit])


def _tell_admins(delivery: Delivery) -> None:
    from .kinds import DELIVERY_FAILED, Raised
    from .services import raise_notification

    where = delivery.destination.name if delivery.destination_id else f"the e-mail to {delivery.member.get_username()}"
    raise_notification(
        Raised(
            DELIVERY_FAILED,
            f"A message to {where} failed {delivery.attempts} times: “{delivery.title}”",
            reverse("notifications-list-destinations"),
            DELIVERY_FAILED.audience(),
        ),
        key=f"delivery:{delivery.pk}:{delivery.attempts}:{timezone.now():%Y%m%d%H%M%S}",
    )
