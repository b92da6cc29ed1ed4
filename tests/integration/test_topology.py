"""The production topology of the README, run whole on one machine: gunicorn with several
worker processes, a Celery worker and Celery beat, each a separate process on PostgreSQL and
Redis, production settings (DEBUG off) on plain HTTP.

A customer created through the sandbox (mounted in the same gunicorn) with complete KYC data
goes UNDER_REVIEW and then ACTIVE on the sandbox's own timer (its review task runs in the
worker); the signed customer.update webhooks reach gunicorn's receiver, the inbox, the
worker, and the mirror. Beat proves itself by the transaction refresh it schedules every few
seconds (a SyncRun row written by the worker). Every process is started as the image starts
it, `deploy/run NAME` running the Procfile's line, with JSON logs; /readyz sees the worker's
and beat's heartbeats, /metrics answers the scraper, a webhook's request id reaches the
worker's log lines, and every process is stopped at the end, whole."""

import json
import os
import subprocess
import uuid
from pathlib import Path

import httpx
import pytest

from backoffice.celery import app
from customers.models import Customer
from mirror.models import SyncRun, WebhookEvent, WebhookSecret
from sandbox.auth import create_key
from tests.webhooks import signed

from .conftest import PYTHON, ROOT, database_url, free_port, requires_services, start, stop, wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True), requires_services]

RUN = str(ROOT / "deploy" / "run")
METRICS_TOKEN = "topology-metrics-token-0123456789"
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
        "LOG_FORMAT": "json",
        # No static files were collected for this test (the image collects them at build time).
        "PYTHONWARNINGS": "ignore:No directory at",
        "DJANGO_ALLOW_ASYNC_UNSAFE": "",
        # The Procfile's commands find this virtualenv's gunicorn and celery first.
        "PATH": f"{Path(PYTHON).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "WEB_CONCURRENCY": "3",
        "CELERY_CONCURRENCY": "2",
        "BEAT_SCHEDULE_FILE": str(tmp_path / "beat-schedule"),
        "HEARTBEAT_SECONDS": "2",
        "METRICS_TOKEN": METRICS_TOKEN,
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prometheus"),
    }
    app.conf.task_always_eager = False  # the autouse _eager_celery fixture restores it
    app.control.purge()  # nothing queued by an earlier run reaches this test's worker

    release = subprocess.run([RUN, "release"], cwd=ROOT, env={**os.environ, **env}, capture_output=True, timeout=120)
    assert release.returncode == 0, release.stdout + release.stderr
    processes: dict[str, subprocess.Popen] = {}
    logs: dict[str, str] = {}
    try:
        for name in ("web", "worker", "beat"):
            processes[name] = start([RUN, name], env)
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

        # A delivery of our own, with a request id: the drain it queues logs under that id.
        secret = WebhookSecret.objects.get().secret
        event_id = f"evt_{uuid.uuid4().hex}"
        event = {
            "eventId": event_id,
            "eventType": "customer.update",
            "createdAt": "2026-01-01T00:00:00Z",
            "data": {"customerId": cid},
        }
        body, headers = signed(event, secret)
        delivered = httpx.post(
            f"{origin}/webhooks/payments",
            content=body,
            headers={**headers, "Content-Type": "application/json", "X-Request-ID": "topology-delivery-0001"},
        )
        assert delivered.status_code == 202, delivered.text
        wait_for(
            lambda: WebhookEvent.objects.filter(event_id=event_id, state="processed").exists(),
            timeout=30,
            what="our delivery to be processed",
        )

        # Readiness: the heartbeats are seen; the full syncs have not run (15 minutes), so
        # /readyz is 503 and says so.
        def heartbeats_seen():
            answer = httpx.get(f"{origin}/readyz", timeout=5).json()
            return (
                answer if answer["checks"]["worker"]["status"] == answer["checks"]["beat"]["status"] == "ok" else None
            )

        ready = wait_for(heartbeats_seen, timeout=30, what="/readyz to see the worker's and beat's heartbeats")
        assert ready["checks"]["database"]["status"] == ready["checks"]["broker"]["status"] == "ok"
        assert ready["ready"] is False
        assert ready["checks"]["sync"]["customers"]["status"] == "missing"
        for process in ("web", "worker", "beat"):
            check = subprocess.run(
                [PYTHON, "deploy/healthcheck.py", process],
                cwd=ROOT,
                env={**os.environ, **env},
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert check.returncode == 0, (process, check.stderr)

        assert httpx.get(f"{origin}/metrics", timeout=5).status_code == 401
        scraped = httpx.get(f"{origin}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=5)
        assert scraped.status_code == 200
        assert (
            'backoffice_request_seconds_count{method="POST",status="2xx",view="mirror-receive-webhook"}' in scraped.text
        )
        assert 'backoffice_heartbeat_age_seconds{process="worker"}' in scraped.text
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
    assert "Booting worker" in logs["web"]
    assert "mirror.tasks.drain_webhook_inbox" in logs["worker"]
    # Every line of gunicorn is JSON, its own included; Celery prints no banner (--quiet).
    assert all(line.startswith("{") for line in logs["web"].splitlines() if line.strip()), logs["web"][-3000:]
    assert "[tasks]" not in logs["worker"] and "celery beat v" not in logs["beat"]
    assert "Sending due task refresh-transactions" in logs["beat"]
    # The application's lines are JSON (a warning printed by Python itself is not logging's).
    worker_lines = [json.loads(line) for line in logs["worker"].splitlines() if line.startswith("{")]
    assert worker_lines, logs["worker"][-3000:]
    assert {"time", "level", "logger", "event", "request_id"} <= set(worker_lines[0])
    carried = [line for line in worker_lines if line["request_id"] == "topology-delivery-0001"]
    assert any(line["logger"] == "paymentsapi" for line in carried), "the drain's upstream call carries the id"
