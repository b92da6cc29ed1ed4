"""What every mirrored record keeps about its upstream twin."""

from django.db import models
from django.dispatch import Signal

# Sent by the upserts (customers/upserts.py, payments/upserts.py) after mirrored rows were
# inserted or changed, whoever saw the change (sync, webhook drain, staff write-through):
# sender = the model, pks = the primary keys of the rows, seen_by = a Source. Sent inside the
# upsert's database transaction: a receiver that queues work does it on commit.
mirror_changed = Signal()


def announce_changes(model, pks, seen_by) -> None:
    """Tell the receivers of mirror_changed which rows of `model` changed (none: nothing sent)."""
    pks = sorted({pk for pk in pks if pk is not None})
    if pks:
        mirror_changed.send(sender=model, pks=pks, seen_by=seen_by)


class Source(models.TextChoices):
    """Who saw a change: a full sync, a webhook event, or a staff action (with its refresh)."""

    SYNC = "sync", "Sync"
    WEBHOOK = "webhook", "Webhook"
    STAFF = "staff", "Staff action"


class MirroredModel(models.Model):
    # The upstream record's own last change, to refuse rolling back to an older copy.
    upstream_updated_at = models.DateTimeField(null=True, blank=True)
    synced_at = models.DateTimeField(null=True, blank=True)
    # Records that vanish upstream are marked, never deleted.
    missing_upstream = models.BooleanField(default=False)
    missing_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class StatusChange(models.Model):
    """One status change of a mirrored record: old -> new, when, and who saw it."""

    old_status = models.CharField(max_length=40, blank=True)
    new_status = models.CharField(max_length=40)
    # The upstream updatedAt of the record that showed the change, when it had one.
    changed_at = models.DateTimeField()
    seen_by = models.CharField(max_length=16, choices=Source)
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True

    def __str__(self):
        return f"{self.old_status or '—'} → {self.new_status}"
