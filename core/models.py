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


class Lock(models.Model):
    """A named lock across processes and machines: the row exists while someone holds it.

    A holder that died leaves its row behind; it is taken over once `expires_at` passes.
    """

    name = models.CharField(max_length=64, primary_key=True)
    holder = models.CharField(max_length=64)
    expires_at = models.DateTimeField()

    def __str__(self):
        return self.name


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


class WriteClaim(models.Model):
    """Who carries out a write that must happen once (core.claims): an approved request, a
    quote's execute, a form's submission. The request whose row commits first carries it out;
    the others wait for the outcome it records here instead of writing themselves."""

    class State(models.TextChoices):
        IN_FLIGHT = "in_flight", "In flight"
        DONE = "done", "Done"
        # The last try's answer was lost: the next one reads the API before writing again.
        UNKNOWN = "unknown", "Outcome unknown"

    key = models.CharField(max_length=200, unique=True)
    holder = models.CharField(max_length=32)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    state = models.CharField(max_length=16, choices=State, default=State.IN_FLIGHT)
    # A holder that died leaves its claim in flight: it is taken over once this passes.
    lease_until = models.DateTimeField()
    # What the write made (the id its replay is rebuilt from), once done.
    result = models.CharField(max_length=200, blank=True)
    # The first try: a read-back looks for what was made since then.
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.key} ({self.state})"
