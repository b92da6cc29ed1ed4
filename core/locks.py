import contextlib
import datetime as dt
import uuid

from django.db import IntegrityError, transaction
from django.utils import timezone

from .models import Lock


class LockHeld(Exception):
    pass


@contextlib.contextmanager
def hold_lock(name: str, *, ttl: dt.timedelta):
    """Hold `name` for the block, or raise LockHeld when another live holder has it.

    Works on every database (a row per lock, no advisory locks), and a crashed holder's lock
    lapses after `ttl`; `extend()` on the yielded object renews it during long work.
    """
    holder = uuid.uuid4().hex
    now = timezone.now()
    # Take over a lapsed lock, or create it.
    taken = Lock.objects.filter(name=name, expires_at__lt=now).update(holder=holder, expires_at=now + ttl)
    if not taken:
        try:
            with transaction.atomic():
                Lock.objects.create(name=name, holder=holder, expires_at=now + ttl)
        except IntegrityError:
            raise LockHeld(name) from None
    lease = _Lease(name, holder, ttl)
    try:
        yield lease
    finally:
        Lock.objects.filter(name=name, holder=holder).delete()


class _Lease:
    def __init__(self, name, holder, ttl):
        self.name, self.holder, self.ttl = name, holder, ttl

    def extend(self) -> None:
        Lock.objects.filter(name=self.name, holder=self.holder).update(expires_at=timezone.now() + self.ttl)
