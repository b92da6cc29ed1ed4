"""The notifications' work in the worker: what a staff action tells, sending deliveries,
the periodic check and the daily digest."""

import logging

from celery import shared_task
from django.apps import apps
from django.conf import settings
from django.utils import timezone

from . import conditions, delivery, digest
from .kinds import AUDIT_ACTIONS, monitoring_alert
from .models import Delivery
from .services import raise_notification

log = logging.getLogger(__name__)


@shared_task
def notify_audit_event(event_id: int) -> int:
    """The notifications a staff action's audit event raises (notifications.kinds.AUDIT_ACTIONS)."""
    from audit.models import AuditEvent

    event = AuditEvent.objects.filter(pk=event_id).first()
    if event is None or event.action not in AUDIT_ACTIONS:
        return 0
    raised = AUDIT_ACTIONS[event.action](event)
    if raised is None:
        return 0
    return len(raise_notification(raised, key=f"audit:{event.pk}", actor_id=event.actor_id))


@shared_task
def notify_monitoring_alert(alert_id: int) -> int:
    alert = apps.get_model("monitoring", "Alert").objects.filter(pk=alert_id).first()
    if alert is None:
        return 0
    return len(raise_notification(monitoring_alert(alert), key=f"alert:{alert.pk}"))


@shared_task(acks_late=True)
def deliver(delivery_id: int) -> None:
    """One try; a failed one is tried again after delivery.retry_in, up to NOTIFY_DELIVERY_ATTEMPTS."""
    if delivery.attempt(delivery_id):
        attempts = Delivery.objects.filter(pk=delivery_id).values_list("attempts", flat=True).first() or 1
        deliver.apply_async((delivery_id,), countdown=delivery.retry_in(attempts).total_seconds())


@shared_task
def check_conditions() -> dict:
    """Beat: the conditions without an event (notifications.conditions), then any delivery
    left waiting (its task lost: the broker away when it was queued)."""
    told = conditions.check_all()
    for pk in delivery.stalled():
        deliver.delay(pk)
    return told


@shared_task
def send_digests() -> int:
    """Beat, hourly: in the hour NOTIFY_DIGEST_HOUR (UTC), each member's digest of the kinds
    they chose it for, once that day."""
    if timezone.now().hour != settings.NOTIFY_DIGEST_HOUR:
        return 0
    return digest.send_all()
