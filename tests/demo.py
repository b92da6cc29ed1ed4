"""The demo as `make demo` leaves it, for tests of what staff see on seeded data: seed_demo
against the mounted sandbox, then a week of sandbox time (reviews end, transactions settle,
automation rules fire) with every webhook delivered to the receiver in-process."""

import datetime as dt

import pytest
from django.core.management import call_command

from mirror.inbox import drain
from sandbox import clock
from sandbox.demo.keys import DEMO_API_KEY
from sandbox.services.due import due_work_run
from sandbox.services.webhooks import deliver_due


@pytest.fixture
def seeded_demo(db, settings, in_process):
    settings.DEBUG = True
    settings.PAYMENTS_API_KEY = DEMO_API_KEY
    settings.PAYMENTS_API_BASE_URL = "http://testserver/sandbox"
    settings.PAYMENTS_API_IN_PROCESS = True
    settings.SANDBOX_WEBHOOK_IN_PROCESS = True
    call_command("seed_demo", server="http://testserver", stdout=open("/dev/null", "w"))  # noqa: SIM115
    clock.advance(dt.timedelta(days=8).total_seconds())
    due_work_run()
    while deliver_due():
        pass
    drain()
    call_command("sync_mirror", quiet=True, stdout=open("/dev/null", "w"))  # noqa: SIM115
