import contextlib
import datetime as dt
import time
import uuid

from django.db import IntegrityError, models, transaction
from django.utils import timezone

from .access import PERMISSIONS


class StaffPermission(models.Model):
    """Anchor for the staff permissions of ROLE_PERMISSIONS; it has no table."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = list(PERMISSIONS.items())

    def __str__(self):
        return "staff permission"


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
    """`extend()` after each step of long work (a sync calls it for each page): the lock is
    renewed once a tenth of its `ttl` has passed since it was last set, so that a live holder's
    lock never comes within nine tenths of lapsing."""

    def __init__(self, name, holder, ttl):
        self.name, self.holder, self.ttl = name, holder, ttl
        self.renewed = time.monotonic()

    def extend(self) -> None:
        if time.monotonic() - self.renewed < self.ttl.total_seconds() / 10:
            return
        Lock.objects.filter(name=self.name, holder=self.holder).update(expires_at=timezone.now() + self.ttl)
        self.renewed = time.monotonic()
