"""The daily digest: for each member who chose it for some kinds, one e-mail listing what
those kinds told them since the last digest (read or not), sent as a Delivery like any other."""

from django.db import transaction
from django.utils import timezone

from .models import Choice, Delivery, Notification, NotificationPreference
from .services import send_after_commit, with_link

# One digest lists this many at most (the rest: "and N more" with the list's address).
DIGEST_LIMIT = 50


def send_all() -> int:
    """Queue each member's digest; how many were queued."""
    members = (
        NotificationPreference.objects.filter(choice=Choice.DIGEST)
        .values_list("member", flat=True)
        .distinct()
        .order_by("member")
    )
    return sum(_digest(member_id) for member_id in members)


@transaction.atomic
def _digest(member_id: int) -> bool:
    kinds = list(
        NotificationPreference.objects.filter(member_id=member_id, choice=Choice.DIGEST).values_list("kind", flat=True)
    )
    waiting = Notification.objects.filter(recipient_id=member_id, kind__in=kinds, digested_at__isnull=True)
    rows = list(waiting.select_for_update().order_by("id")[: DIGEST_LIMIT + 1])
    if not rows:
        return False
    shown, more = rows[:DIGEST_LIMIT], len(rows) > DIGEST_LIMIT
    lines = [f"- {with_link(n.sentence, n.link)}" for n in shown]
    if more:
        lines.append("- … and more: open your notifications in the back-office.")
    now = timezone.now()
    if Delivery.objects.filter(member_id=member_id, dedupe_key=f"digest:{now:%Y-%m-%d}").exists():
        return False  # today's went out already
    delivery = Delivery.objects.create(
        member_id=member_id,
        kind="digest",
        title=f"Your daily digest: {len(shown)}{'+' if more else ''} notification{'s' if len(rows) != 1 else ''}",
        body="\n".join(lines),
        dedupe_key=f"digest:{now:%Y-%m-%d}",
    )
    Notification.objects.filter(pk__in=[n.pk for n in shown]).update(digested_at=now)
    send_after_commit([delivery.pk])
    return True
