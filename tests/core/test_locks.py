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


def test_a_lease_is_renewed_once_a_tenth_of_its_ttl_has_passed(django_assert_num_queries, monkeypatch):
    """Long work calls extend() at each step; the lock is written again only when a tenth of
    its lifetime has gone by, and then lapses a whole ttl after that."""
    import core.models

    clock = [1000.0]
    monkeypatch.setattr(core.models.time, "monotonic", lambda: clock[0])
    with hold_lock("job", ttl=dt.timedelta(minutes=10)) as lease:
        first = Lock.objects.get(name="job").expires_at
        clock[0] += 59  # under a minute: nothing written
        with django_assert_num_queries(0):
            lease.extend()
        assert Lock.objects.get(name="job").expires_at == first
        clock[0] += 2  # past a tenth of ten minutes
        with django_assert_num_queries(1):
            lease.extend()
        renewed = Lock.objects.get(name="job").expires_at
        assert renewed > first
        assert renewed - timezone.now() > dt.timedelta(minutes=9, seconds=50)
        with django_assert_num_queries(0):
            lease.extend()  # just renewed
