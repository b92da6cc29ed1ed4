from django.conf import settings
from django.db import models


class AuditEvent(models.Model):
    """Who did what to which record, with what outcome. Never holds personal data values."""

    class Outcome(models.TextChoices):
        SUCCESS = "success", "Success"
        FAILURE = "failure", "Failure"
        DENIED = "denied", "Denied"

    created_at = models.DateTimeField(auto_now_add=True)  # indexed by audit_keyset
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
        db_table = "core_auditevent"
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["-created_at", "-id"], name="audit_keyset"),
            models.Index(fields=["actor_username", "-created_at"], name="audit_actor"),
            models.Index(fields=["action", "-created_at"], name="audit_action"),
            models.Index(fields=["target_kind", "target_id", "-created_at"], name="audit_target"),
            # A kind of target alone (the transactions' events are 0.1 % of the log).
            models.Index(fields=["target_kind", "-created_at", "-id"], name="audit_kind_keyset"),
            # A target id without its kind (ids are unique across kinds), in keyset order.
            models.Index(fields=["target_id", "-created_at", "-id"], name="audit_target_id"),
        ]

    def __str__(self):
        return f"{self.actor_username or 'system'} {self.action} {self.target_kind}:{self.target_id}"

    @property
    def refused(self) -> bool:
        """An attempt that did not happen: denied (the role, a case escalated meanwhile) or failed
        (the API refused it). Pages show it as refused, never as the action done."""
        return self.outcome != self.Outcome.SUCCESS
