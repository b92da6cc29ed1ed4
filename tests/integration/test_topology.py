"""The production topology of the README, run whole on one machine: gunicorn with several
worker processes, a Celery worker and Celery beat, each a separate process on PostgreSQL and
Redis, production settings (DEBUG off) on plain HTTP.

A customer created through the sandbox (mounted in the same gunicorn) with complete KYC data
goes UNDER_REVIEW and then ACTIVE on the sandbox's own timer (its review task runs in the
worker); the signed customer.update webhooks reach gunicorn's receiver, the inbox, the
worker, and the mirror. Beat proves itself by the transaction refresh it schedules every few
seconds (a SyncRun row written by the worker). Every process is stopped at the end, whole."""

import os
import socket
import subprocess
from pathlib import Path

import httpx
import pytest

from backoffice.celery import app
from customers.models import Customer
from mirror.models import SyncRun, WebhookEvent, WebhookSecret
from sandbox.auth import create_key

from .conftest import PYTHON, ROOT, database_url, requires_services, start, stop, wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True), requires_services]

GUNICORN = str(Path(PYTHON).with_name("gunicorn"))
IMAGE = "data:image/png;base64,SU1BR0U="
# Complete KYC data: the sandbox's review rules make this customer ACTIVE
# (docs/decisions/sandbox-verification.md).
KYC = {
    "legalFirstName": "Mary",
    "legalLastName": "Jackson",
    "phoneNumber": "+12025550123",
    "dateOfBirth": "1991-04-09",
    "nationalIdType": "ssn",
    "nationalIdNumber": "123-45-6789",
    "nationalIdIssuingCountry": "US",
    "nationality": "US",
    "documents": [
        {
            "type": "GOVERNMENT_ID",
            "subtype": "NATIONAL_ID",
            "countryCode": "US",
            "frontIdImage": IMAGE,
            "backIdImage": IMAGE,
            "proofOfAddressImage": IMAGE,
        }
    ],
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def test_gunicorn_worker_and_beat_carry_a_sandbox_change_to_the_mirror(tmp_path):
    _, plain = create_key()
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    env = {
        # Production settings, on plain HTTP on loopback (TLS would end at a load balancer).
        "DEBUG": "0",
        "SECRET_KEY": "topology-test-" + "x" * 50,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": os.environ["CELERY_BROKER_URL"],
        "PAYMENTS_API_BASE_URL": f"{origin}/sandbox",
        "SANDBOX_MOUNTED": "1",
        # Where gunicorn.conf.py sees it: a server that is its own API gets threads.
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "PAYMENTS_API_KEY": plain,
        "PAYMENTS_WEBHOOK_SECRET": "",  # register_webhook stores the secret in the database
        # Beat's proof: the transaction refresh every 5 s. The full sync keeps its 15 minutes,
        # so only the webhook brings the customer's changes into the mirror.
        "TRANSACTION_REFRESH_SECONDS": "5",
        "LOG_LEVEL": "INFO",
        "DJANGO_ALLOW_ASYNC_UNSAFE": "",
    }
    app.conf.task_always_eager = False  # the autouse _eager_celery fixture restores it
    app.control.purge()  # nothing queued by an earlier run reaches this test's worker

    celery = [PYTHON, "-m", "celery", "-A", "backoffice"]
    commands = {
        "gunicorn": [GUNICORN, "backoffice.wsgi", "--workers", "3", "--timeout", "30"],
        "worker": [*celery, "worker", "--pool", "prefork", "--concurrency", "2", "--loglevel", "INFO"],
        "beat": [*celery, "beat", "--loglevel", "INFO", "--schedule", str(tmp_path / "beat-schedule")],
    }
    processes: dict[str, subprocess.Popen] = {}
    logs: dict[str, str] = {}
    try:
        for name, args in commands.items():
            processes[name] = start(args, env)
        wait_for(lambda: healthy(f"{origin}/healthz"), timeout=30, what="gunicorn to answer /healthz")
        # A process that died at start-up (a settings error, say) fails here, with its log.
        assert all(p.poll() is None for p in processes.values()), "a process exited at start-up"

        registered = subprocess.run(
            [PYTHON, "manage.py", "register_webhook", "--url", f"{origin}/webhooks/payments"],
            cwd=ROOT,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert registered.returncode == 0, registered.stdout + registered.stderr
        assert WebhookSecret.objects.count() == 1

        http = httpx.Client(base_url=f"{origin}/sandbox", headers={"Authorization": f"Bearer {plain}"}, timeout=10)
        created = http.post(
            "/customers",
            json={
                "customerType": "INDIVIDUAL",
                "email": "mary@example.com",
                "firstName": "Mary",
                "lastName": "Jackson",
                "kycData": KYC,
            },
        )
        assert created.status_code == 201, created.text
        cid = created.json()["customerId"]

        mirrored = wait_for(
            lambda: Customer.objects.filter(customer_id=cid, status="ACTIVE").first(),
            timeout=60,
            what="the ACTIVE customer to reach the mirror through webhook, inbox and worker",
        )
        assert mirrored.status_changes.filter(new_status="ACTIVE", seen_by="webhook").exists()
        assert WebhookEvent.objects.filter(event_type="customer.update", state="processed").exists()
        wait_for(
            lambda: SyncRun.objects.filter(kind="transactions", outcome="succeeded").exists(),
            timeout=20,
            what="beat's transaction refresh to run in the worker",
        )
    finally:
        for name, process in processes.items():
            logs[name] = stop(process)

    for name, process in processes.items():
        assert process.poll() is not None, f"{name} outlived the test"
    # Nothing of a process group may outlive the test (gunicorn's and the worker's children).
    for process in processes.values():
        with pytest.raises(ProcessLookupError):
            os.killpg(process.pid, 0)
    for name, log in logs.items():
        assert "Traceback" not in log, f"{name} logged a traceback:\n{log[-4000:]}"
    assert "Booting worker" in logs["gunicorn"]
    assert "process_webhook_event" in logs["worker"]
    assert "Sending due task refresh-transactions" in logs["beat"]
