"""What the mirror keeps of its own work: the webhook inbox, signing secrets and sync runs."""

from django.db import models

# The staff word of each kind of webhook event the API sends (core.labels, vocabulary EVENT).
EVENT_LABELS = {
    "customer.update": "Customer changed",
    "transaction.update": "Transaction changed",
    "payment_account.update": "Payment account changed",
}


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
