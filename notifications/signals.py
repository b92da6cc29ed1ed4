"""Where notifications start: a staff action's audit event (audit.models.AuditEvent) and a new
monitoring alert (monitoring.services.alerts_raised). Nothing is worked out in the request: the
event's id goes to the worker once the action's transaction commits (never if it rolls back),
and a worker that cannot be reached costs the request a log line, not an error."""

import logging

from django.db import transaction
from django.db.models.signals import post_save

from audit.models import AuditEvent
from monitoring import services as monitoring_services

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


def alerts_raised(sender, dedupe_keys: list[str], **kwargs) -> None:
    from .tasks import notify_monitoring_alert

    for pk in sender.objects.filter(dedupe_key__in=dedupe_keys).values_list("pk", flat=True):
        _after_commit(notify_monitoring_alert, pk)


def connect() -> None:
    post_save.connect(audit_event_saved, sender=AuditEvent, dispatch_uid="notifications.audit_event")
    monitoring_services.alerts_raised.connect(alerts_raised, dispatch_uid="notifications.alerts")
