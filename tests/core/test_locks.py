import datetime as dt

import pytest
from django.utils import timezone

from core.models import Lock, LockHeld, hold_lock

pytestmark = pytest.mark.django_db


def test_a_held_lock_refuses_a_second_holder_and_is_released():
    with hold_lock("job", ttl=dt.timedelta(minutes=1)), pytest.raises(LockHeld):
        hold_lock("job", ttl=dt.timedelta(minutes=1)).__enter__()
    assert not Lock.objects.exists()
    with hold_lock("job", ttl=dt.timedelta(minutes=1)):
        pass


def test_a_dead_holders_lock_lapses():
    Lock.objects.create(name="job", holder="dead", expires_at=timezone.now() - dt.timedelta(seconds=1))
    with hold_lock("job", ttl=dt.timedelta(minutes=1)) as lease:
        assert Lock.objects.get(name="job").holder == lease.holder
