"""One end-to-end run with a real Celery worker process on Redis and PostgreSQL:
a sandbox status change -> signed webhook -> inbox -> worker -> mirror."""

import io

import httpx
import pytest
from django.core.management import call_command

from backoffice.celery import app
from customers.models import Customer
from sandbox.auth import create_key

from .conftest import PYTHON, database_url, requires_services, start, stop, wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True), requires_services]


def test_a_sandbox_review_reaches_the_mirror_through_a_real_worker(live_server, settings):
    _, plain = create_key()
    base = f"{live_server.url}/sandbox"
    env = {
        "DATABASE_URL": database_url(),
        "PAYMENTS_API_BASE_URL": base,
        "SANDBOX_MOUNTED": "1",
        "PAYMENTS_API_KEY": plain,
        "PAYMENTS_WEBHOOK_SECRET": "",
        "DJANGO_ALLOW_ASYNC_UNSAFE": "",
    }
    settings.PAYMENTS_API_BASE_URL, settings.PAYMENTS_API_KEY, settings.PAYMENTS_WEBHOOK_SECRET = base, plain, ""
    # The review's outcome comes from the test helper below, not from the sandbox's timer.
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 3600
    app.conf.task_always_eager = False  # the autouse _eager_celery fixture restores it
    app.control.purge()
    call_command("register_webhook", "--url", f"{live_server.url}/webhooks/payments", stdout=io.StringIO())

    worker = start([PYTHON, "-m", "celery", "-A", "backoffice", "worker", "--pool=solo", "--loglevel=INFO"], env)
    try:
        http = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {plain}"}, timeout=10)
        customer = http.post(
            "/customers",
            json={
                "customerType": "INDIVIDUAL",
                "email": "k@example.com",
                "firstName": "Katherine",
                "lastName": "Johnson",
            },
        ).json()
        cid = customer["customerId"]
        http.patch(f"/customers/{cid}", json={"kycData": {"legalFirstName": "Katherine"}}).raise_for_status()
        http.post(f"/test-helpers/customers/{cid}/review", json={"outcome": "ACTIVE", "issues": []}).raise_for_status()
        mirrored = wait_for(
            lambda: Customer.objects.filter(customer_id=cid, status="ACTIVE").first(),
            timeout=60,
            what="the worker to bring the ACTIVE customer into the mirror",
        )
        assert mirrored.status_changes.filter(new_status="ACTIVE", seen_by="webhook").exists()
    finally:
        log = stop(worker)
    assert "process_webhook_event" in log
