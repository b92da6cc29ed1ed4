"""The claims' upkeep: a done claim is kept for the replays of its write (a resend, a second
click, a colleague on the same request), which come within minutes; after KEEP_DONE it only
grows the table. Claims in flight or of unknown outcome are never pruned: the next try needs them."""

import datetime as dt

from celery import shared_task
from django.utils import timezone

from .models import WriteClaim

# Far longer than any replay: the Payments API itself keeps an idempotency key 24 h.
KEEP_DONE = dt.timedelta(days=30)


@shared_task(name="upstream.tasks.prune_write_claims", ignore_result=True)
def prune_write_claims() -> int:
    deleted, _ = WriteClaim.objects.filter(
        state=WriteClaim.State.DONE, created_at__lt=timezone.now() - KEEP_DONE
    ).delete()
    return deleted
