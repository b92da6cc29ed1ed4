from django.conf import settings
from django.db import models

from .roles import PERMISSIONS


class StaffPermission(models.Model):
    """Anchor for the staff permissions of ROLE_PERMISSIONS; it has no table."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = list(PERMISSIONS.items())

    def __str__(self):
        return "staff permission"


class AuditEvent(models.Model):
    """Who did what to which record, with what outcome. Never holds personal data values."""

    class Outcome(models.TextChoices):
        SUCCESS = "success", "Success"
        FAILURE = "failure", "Failure"
        DENIED = "denied", "Denied"

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Kept as text too, so the record survives the user's deletion or rename.
    actor_username = models.CharField(max_length=150, blank=True)
    action = models.CharField(max_length=64)
    target_kind = models.CharField(max_length=32, blank=True)
    target_id = models.CharField(max_length=64, blank=True)
    outcome = models.CharField(max_length=16, choices=Outcome, default=Outcome.SUCCESS)
    request_id = models.CharField(max_length=64, blank=True)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["-created_at", "-id"], name="audit_keyset"),
            models.Index(fields=["actor_username", "-created_at"], name="audit_actor"),
            models.Index(fields=["action", "-created_at"], name="audit_action"),
            models.Index(fields=["target_kind", "target_id", "-created_at"], name="audit_target"),
        ]

    def __str__(self):
        return f"{self.actor_username or 'system'} {self.action} {self.target_kind}:{self.target_id}"


class WebhookEvent(models.Model):
    """The inbox: every signed event, stored before it is processed (dedupe by event id)."""

    class State(models.TextChoices):
        RECEIVED = "received", "Received"
        PROCESSED = "processed", "Processed"
        FAILED = "failed", "Failed"
        IGNORED = "ignored", "Ignored"

    event_id = models.CharField(max_length=128, unique=True)
    event_type = models.CharField(max_length=64)
    payload = models.JSONField()
    # The event's own createdAt, to order events of one record.
    occurred_at = models.DateTimeField(null=True, blank=True)
    received_at = models.DateTimeField(auto_now_add=True)
    state = models.CharField(max_length=16, choices=State, default=State.RECEIVED)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=500, blank=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    # Not to be taken before this moment: the lease of the run that took it (a run that dies
    # lets it go when the lease ends), or the backoff after a failed attempt.
    not_before = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["-received_at", "-id"], name="inbox_keyset"),
            models.Index(fields=["state", "-received_at", "-id"], name="inbox_state_keyset"),
            # The work left: a small index however many events were processed.
            models.Index(fields=["id"], condition=models.Q(state__in=["received", "failed"]), name="inbox_pending"),
        ]

    def __str__(self):
        return f"{self.event_type} {self.event_id} ({self.state})"


class SyncRun(models.Model):
    """One run of a mirror sync: what it saw, and whether it finished."""

    class Outcome(models.TextChoices):
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=32)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=16, choices=Outcome, default=Outcome.RUNNING)
    # created, updated, unchanged, missing, failed
    counts = models.JSONField(default=dict)
    error = models.CharField(max_length=500, blank=True)

    class Meta:
        indexes = [models.Index(fields=["kind", "outcome", "-finished_at"], name="syncrun_last")]

    def __str__(self):
        return f"{self.kind} sync {self.started_at:%Y-%m-%d %H:%M} {self.outcome}"


class Lock(models.Model):
    """A named lock across processes and machines: the row exists while someone holds it.

    A holder that died leaves its row behind; it is taken over once `expires_at` passes.
    """

    name = models.CharField(max_length=64, primary_key=True)
    holder = models.CharField(max_length=64)
    expires_at = models.DateTimeField()

    def __str__(self):
        return self.name


class WebhookSecret(models.Model):
    """A signing secret of an endpoint registered with the Payments API (register_webhook).

    PAYMENTS_WEBHOOK_SECRET, when set, is tried first; several rows allow a rotation.
    """

    webhook_id = models.CharField(max_length=64, unique=True)
    url = models.URLField(max_length=1000)
    secret = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"webhook {self.webhook_id}"


class Counter(models.Model):
    """Named counters for what is refused without storing it (bad webhook signatures, ...)."""

    name = models.CharField(max_length=64, primary_key=True)
    value = models.BigIntegerField(default=0)

    def __str__(self):
        return f"{self.name}={self.value}"

    @classmethod
    def bump(cls, name: str) -> None:
        if not cls.objects.filter(name=name).update(value=models.F("value") + 1):
            cls.objects.get_or_create(name=name)
            cls.objects.filter(name=name).update(value=models.F("value") + 1)
