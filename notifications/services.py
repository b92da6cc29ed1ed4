"""Raising notifications, reading them, the members' choices and the team destinations.

A raised occurrence becomes one Notification per recipient (never the actor), once per
occurrence (its dedupe key); a member who chose "e-mail at once" for its kind gets a Delivery
by e-mail, and each active team destination of its kind a Delivery of its own. The worker
sends deliveries (notifications.delivery); this module only records what is to be sent.
"""

import base64
import logging

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac

from audit.records import audit_record

from .kinds import KINDS, Kind, Raised
from .models import Choice, Delivery, Notification, NotificationPreference, TeamDestination

log = logging.getLogger(__name__)


# --- Raising -------------------------------------------------------------------------------------


def raise_notification(raised: Raised, *, key: str, actor_id: int | None = None) -> list[Notification]:
    """Tell `raised.recipients` (but never `actor_id`) of one occurrence, once per `key`:
    the notifications made now (a recipient told already is left out), their e-mails and the
    team destinations' messages queued as deliveries (sent once the transaction commits)."""
    kind = raised.kind
    recipients = raised.recipients.filter(is_active=True)
    if actor_id is not None:
        recipients = recipients.exclude(pk=actor_id)
    made = []
    with transaction.atomic():
        for member in recipients:
            notification, created = _get_or_create(member, kind, raised, key)
            if created:
                made.append(notification)
        deliveries = [] if kind.app_only else _member_emails(made, kind, key) + _team_messages(kind, raised, key)
    send_after_commit([d.pk for d in deliveries])
    remember_unread_after_commit({n.recipient_id for n in made})
    return made


def _get_or_create(member, kind: Kind, raised: Raised, key: str) -> tuple[Notification, bool]:
    try:
        with transaction.atomic():
            return Notification.objects.get_or_create(
                recipient=member,
                dedupe_key=key,
                defaults={"kind": kind.code, "sentence": raised.sentence[:500], "link": raised.link[:300]},
            )
    except IntegrityError:  # raised at once by another worker
        return Notification.objects.get(recipient=member, dedupe_key=key), False


def choices_of(member) -> dict[str, str]:
    """The member's choice for each kind (the kind's default where they chose nothing)."""
    chosen = dict(NotificationPreference.objects.filter(member=member).values_list("kind", "choice"))
    return {code: chosen.get(code, kind.default) for code, kind in KINDS.items()}


def _member_emails(made: list[Notification], kind: Kind, key: str) -> list[Delivery]:
    if not made:
        return []
    chosen = dict(
        NotificationPreference.objects.filter(member__in=[n.recipient_id for n in made], kind=kind.code).values_list(
            "member", "choice"
        )
    )
    return [
        Delivery.objects.create(
            member_id=n.recipient_id,
            kind=kind.code,
            title=kind.label,
            body=with_link(n.sentence, n.link),
            dedupe_key=key,
        )
        for n in made
        if chosen.get(n.recipient_id, kind.default) == Choice.EMAIL
    ]


def _team_messages(kind: Kind, raised: Raised, key: str) -> list[Delivery]:
    made = []
    for destination in TeamDestination.objects.filter(active=True):
        if kind.code not in destination.kinds:
            continue
        delivery, created = Delivery.objects.get_or_create(
            destination=destination,
            dedupe_key=key,
            defaults={"kind": kind.code, "title": kind.label, "body": with_link(raised.sentence, raised.link)},
        )
        if created:
            made.append(delivery)
    return made


def with_link(sentence: str, link: str) -> str:
    if not link:
        return sentence
    return f"{sentence}\n{settings.NOTIFY_SITE_URL.rstrip('/')}{link}" if settings.NOTIFY_SITE_URL else sentence


def send_after_commit(pks: list[int]) -> None:
    if not pks:
        return

    def send():
        from .tasks import deliver

        for pk in pks:
            try:
                deliver.delay(pk)
            except Exception:  # the broker away: the periodic check sends what waits
                log.warning("notifications: delivery %s left waiting: the worker could not be reached", pk)

    transaction.on_commit(send)


# --- Reading -------------------------------------------------------------------------------------

# The bell counts this many unread at most ("99+").
BELL_LIMIT = 100


# The member's unread count as the last write or poll saw it: what a page's bell shows without
# a query (it follows with the live poll). Kept by the writes below; gone with Redis, then the
# bell asks its first poll for the count.
BELL_CACHE_SECONDS = 3600


def _bell_key(member_id: int) -> str:
    return f"notifications:unread:{member_id}"


def unread_ids(member_id: int) -> list[int]:
    """The newest unread notifications' ids (at most BELL_LIMIT): one query on the partial index."""
    return list(
        Notification.objects.filter(recipient_id=member_id, read_at__isnull=True)
        .order_by("-id")
        .values_list("id", flat=True)[:BELL_LIMIT]
    )


def remembered_unread_ids(member_id: int) -> list[int]:
    """`unread_ids`, their count remembered for the bell of the member's next page
    (cached_unread_count). Not on the unchanged poll: its count is the one remembered."""
    ids = unread_ids(member_id)
    cache.set(_bell_key(member_id), len(ids), BELL_CACHE_SECONDS)
    return ids


def cached_unread_count(member_id: int) -> int | None:
    """The member's unread count as last seen (None: not known, the bell's poll will tell)."""
    return cache.get(_bell_key(member_id))


def remember_unread_after_commit(member_ids) -> None:
    """Once the change is committed, count again the unread of those it concerned: one query
    each, on the writer's side rather than on every page of theirs."""
    member_ids = sorted(member_ids)
    if member_ids:
        transaction.on_commit(lambda: [remembered_unread_ids(member_id) for member_id in member_ids])


@transaction.atomic
def notification_open(*, actor, notification: Notification) -> None:
    """Mark one of the actor's notifications read (once)."""
    if Notification.objects.filter(pk=notification.pk, read_at__isnull=True).update(read_at=timezone.now()):
        audit_record(actor=actor, action="notification.read", target_kind="notification", target_id=notification.pk)
        remember_unread_after_commit([actor.pk])


@transaction.atomic
def notifications_read_all(*, actor) -> int:
    done = Notification.objects.filter(recipient=actor, read_at__isnull=True).update(read_at=timezone.now())
    if done:
        audit_record(
            actor=actor, action="notification.read_all", target_kind="user", target_id=actor.pk, details={"count": done}
        )
        remember_unread_after_commit([actor.pk])
    return done


@transaction.atomic
def preferences_save(*, actor, choices: dict[str, str]) -> list[str]:
    """Keep the actor's choice per kind; the kinds whose choice changed (audited by name)."""
    before = choices_of(actor)
    changed = [code for code, choice in choices.items() if code in KINDS and choice and before.get(code) != choice]
    for code in changed:
        NotificationPreference.objects.update_or_create(member=actor, kind=code, defaults={"choice": choices[code]})
    if changed:
        audit_record(
            actor=actor,
            action="notification.preferences",
            target_kind="user",
            target_id=actor.pk,
            details={"kinds": changed},
        )
    return changed


# --- Team destinations ---------------------------------------------------------------------------


def _cipher() -> MultiFernet:
    """The key of destination URLs: derived from SECRET_KEY (and its fallbacks while a
    rotation lasts), for this use only."""
    keys = [settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS]
    return MultiFernet(
        [
            Fernet(
                base64.urlsafe_b64encode(
                    salted_hmac(
                        "notifications.TeamDestination", "destination url", secret=key, algorithm="sha256"
                    ).digest()
                )
            )
            for key in keys
        ]
    )


def destination_url(destination: TeamDestination) -> str:
    """The URL as typed; '' when SECRET_KEY changed past its fallbacks (type it again)."""
    try:
        return _cipher().decrypt(destination.url_encrypted.encode()).decode()
    except InvalidToken:
        return ""


@transaction.atomic
def destination_save(*, actor, destination: TeamDestination, url: str = "") -> TeamDestination:
    """Create or change a destination; a new `url` replaces the kept one (blank keeps it)."""
    created = destination.pk is None
    if url:
        destination.url_encrypted = _cipher().encrypt(url.encode()).decode()
        destination.url_ending = url[-4:]
    if created:
        destination.created_by = actor
    destination.save()
    audit_record(
        actor=actor,
        action="notification.destination_add" if created else "notification.destination_change",
        target_kind="team_destination",
        target_id=destination.pk,
        details={"kinds": destination.kinds, "active": destination.active, "new_url": bool(url)},
    )
    return destination


@transaction.atomic
def destination_test(*, actor, destination: TeamDestination) -> Delivery:
    delivery = Delivery.objects.create(
        destination=destination,
        kind="test",
        title="Test message",
        body=f"A test message from the payments back-office, sent by {actor.get_username()}.",
    )
    audit_record(
        actor=actor, action="notification.destination_test", target_kind="team_destination", target_id=destination.pk
    )
    send_after_commit([delivery.pk])
    return delivery


@transaction.atomic
def delivery_retry(*, actor, delivery: Delivery) -> bool:
    """Send a failed delivery again, with its tries counted anew."""
    again = Delivery.objects.filter(pk=delivery.pk, state=Delivery.State.FAILED).update(
        state=Delivery.State.PENDING, attempts=0
    )
    if again:
        audit_record(actor=actor, action="notification.delivery_retry", target_kind="delivery", target_id=delivery.pk)
        send_after_commit([delivery.pk])
    return bool(again)
