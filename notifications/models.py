"""What tells a member of staff that work waits for them, and what carried it elsewhere.

A Notification is one member's line in their list (the bell counts the unread ones); a
Delivery is one try-and-retry of carrying a notification out of the app: an e-mail to a
member or a message to a team destination (a Slack or Teams channel, an e-mail list).
The kinds and who receives each are in notifications/kinds.py.
"""

from django.conf import settings
from django.db import models


class Choice(models.TextChoices):
    """How a member hears of one kind of notification."""

    APP = "app", "In the app only"
    EMAIL = "email", "E-mail at once"
    DIGEST = "digest", "Daily digest e-mail"


class Notification(models.Model):
    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=32)
    # In staff words, whole: "olga asks for approval: Execute 20000 USD → …".
    sentence = models.CharField(max_length=500)
    # A path of this site (never another host): where the work is.
    link = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)
    # The occurrence it tells of ("audit:123", "sla:<customer>:<since>"): raised once per member.
    dedupe_key = models.CharField(max_length=200)
    # Set once a daily digest carried it (members who chose the digest for its kind).
    digested_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["recipient", "dedupe_key"], name="notification_once_per_recipient"),
        ]
        indexes = [
            # The list, newest first, in keyset order.
            models.Index(fields=["recipient", "-id"], name="notification_list"),
            # The bell: the member's unread ones only.
            models.Index(
                fields=["recipient", "-id"], condition=models.Q(read_at__isnull=True), name="notification_unread"
            ),
        ]

    def __str__(self):
        return f"{self.recipient_id}: {self.sentence}"


class NotificationPreference(models.Model):
    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=32)
    choice = models.CharField(max_length=16, choices=Choice, default=Choice.APP)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["member", "kind"], name="notification_preference_once")]

    def __str__(self):
        return f"{self.member_id} {self.kind}: {self.choice}"


class TeamDestination(models.Model):
    """A team's channel: an apprise URL (slack://…, msteams://…, mailto://…, json://…). The URL
    holds its secret, so it is kept encrypted and never shown again: pages show its ending."""

    name = models.CharField(max_length=100)
    url_encrypted = models.TextField()
    url_ending = models.CharField(max_length=8)
    # The kinds it receives (codes of notifications/kinds.py).
    kinds = models.JSONField(default=list)
    active = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self):
        return self.name


class Delivery(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", "Waiting to be sent"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed"

    # One of the two: a team destination, or a member's e-mail address.
    destination = models.ForeignKey(
        TeamDestination, null=True, blank=True, on_delete=models.CASCADE, related_name="deliveries"
    )
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    kind = models.CharField(max_length=32)
    title = models.CharField(max_length=200)
    body = models.TextField()
    attempts = models.PositiveIntegerField(default=0)
    state = models.CharField(max_length=16, choices=State, default=State.PENDING)
    # What the last try answered, without the destination's URL.
    last_error = models.CharField(max_length=500, blank=True)
    # The occurrence it carries (the notification's key): sent once per destination or member.
    dedupe_key = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["state", "-id"], name="delivery_state")]
        constraints = [
            models.UniqueConstraint(
                fields=["destination", "dedupe_key"],
                condition=models.Q(destination__isnull=False) & ~models.Q(dedupe_key=""),
                name="delivery_once_per_destination",
            ),
            models.UniqueConstraint(
                fields=["member", "dedupe_key"],
                condition=models.Q(member__isnull=False) & ~models.Q(dedupe_key=""),
                name="delivery_once_per_member",
            ),
        ]

    def __str__(self):
        return f"{self.kind} → {self.destination_id or self.member_id}: {self.state}"


class OpenCondition(models.Model):
    """A condition found by the periodic check (a sync stale, the inbox backlogged, the
    breaker open) while it holds: its members are told once when it appears, and again only
    after it cleared (the row is deleted) and came back."""

    key = models.CharField(max_length=100, unique=True)
    raised_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.key
