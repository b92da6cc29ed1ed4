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
