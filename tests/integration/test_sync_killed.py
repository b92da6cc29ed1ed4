"""A real `sync_mirror` process killed half-way (SIGKILL: no cleanup runs), then a rerun."""

import datetime as dt
import os
import signal
import uuid

import pytest
from django.utils import timezone

from core.models import Lock, hold_lock
from customers.models import Customer
from mirror.models import SyncRun
from mirror.sync import sync_customers
from sandbox import models as sbx
from sandbox.auth import create_key

from .conftest import PYTHON, database_url, requires_services, start, stop, wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True), requires_services]

COUNT = 4000


def test_a_killed_sync_leaves_a_lapsing_lock_and_the_rerun_mirrors_exactly(settings):
    key, plain = create_key()
    now = timezone.now()
    sbx.Customer.objects.bulk_create(
        sbx.Customer(
            organization_id=key.organization_id,
            customer_type="INDIVIDUAL",
            status="ACTIVE",
            email=f"p{i}@example.com",
            first_name=f"F{i}",
            last_name=f"L{i}",
            verification_token=uuid.uuid4().hex,
            created_at=now + dt.timedelta(microseconds=i),
            updated_at=now,
        )
        for i in range(COUNT)
    )
    env = {
        "DATABASE_URL": database_url(),
        "PAYMENTS_API_BASE_URL": "http://127.0.0.1:8000/sandbox",
        "PAYMENTS_API_IN_PROCESS": "1",  # the child reaches the mounted sandbox in its own process
        "SANDBOX_MOUNTED": "1",
        "PAYMENTS_API_KEY": plain,
        "DJANGO_ALLOW_ASYNC_UNSAFE": "",
    }
    child = start([PYTHON, "manage.py", "sync_mirror", "--customers", "--quiet"], env)
    try:
        wait_for(
            lambda: Customer.objects.count() >= 300 or child.poll() is not None,
            timeout=60,
            what="the sync to store some pages",
        )
        assert child.poll() is None, child.stdout.read().decode(errors="replace")[-3000:]
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            stop(child)
    stored = Customer.objects.count()
    assert 0 < stored < COUNT, "the kill must land half-way"
    dead = SyncRun.objects.get()
    assert dead.outcome == SyncRun.Outcome.RUNNING  # nothing ran to close it
    assert Lock.objects.filter(name="mirror-sync").exists()  # nor to release the lock

    # While the dead holder's lease has not lapsed, nobody else may sync.
    from core.models import LockHeld

    with pytest.raises(LockHeld), hold_lock("mirror-sync", ttl=dt.timedelta(minutes=1)):
        pass
    # Once it lapses, the next run takes over, closes the dead run and mirrors everything once.
    Lock.objects.filter(name="mirror-sync").update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    settings.PAYMENTS_API_KEY, settings.PAYMENTS_API_IN_PROCESS = plain, True
    settings.PAYMENTS_API_BASE_URL = "http://testserver/sandbox"
    run = sync_customers()
    assert run.outcome == SyncRun.Outcome.SUCCEEDED, run.error
    assert Customer.objects.count() == COUNT
    assert Customer.objects.values("customer_id").distinct().count() == COUNT
    # The rows the dead run stored are found again, not made twice.
    assert run.counts["created"] == COUNT - stored
    assert run.counts["updated"] + run.counts["unchanged"] == stored
    dead.refresh_from_db()
    assert dead.outcome == SyncRun.Outcome.FAILED
