"""Where notifications start: a staff action's audit event (core.models.AuditEvent) and, once
the monitoring app exists, a new monitoring alert. Nothing is worked out in the request: the
event's id goes to the worker once the action's transaction commits (never if it rolls back),
and a worker that cannot be reached costs the request a log line, not an error."""

import logging

from django.apps import apps
from django.db import transaction
from django.db.models.signals import post_save

from core.models import AuditEvent

from .kinds import AUDIT_ACTIONS

log = logging.getLogger(__name__)


def _after_commit(task, pk: int) -> None:
    def send():
        try:
            task.delay(pk)
        except Exception:
            log.exception("notifications: %s(%s) could not be queued", task.name, pk)

    transaction.on_commit(send)


def audit_event_saved(sender, instance: AuditEvent, created: bool, **kwargs) -> None:
    if created and instance.action in AUDIT_ACTIONS:
        from .tasks import notify_audit_event

        _after_commit(notify_audit_event, instance.pk)


def alert_saved(sender, instance, created: bool, **kwargs) -> None:
    if created:
        from .tasks import notify_monitoring_alert

        _after_commit(notify_monitoring_alert, instance.pk)


def connect() -> None:
    post_save.connect(audit_event_saved, sender=AuditEvent, dispatch_uid="notifications.audit_event")
    if apps.is_installed("monitoring"):
        post_save.connect(alert_saved, sender=apps.get_model("monitoring", "Alert"), dispatch_uid="notifications.alert")
