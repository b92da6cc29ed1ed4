"""Acknowledgement latency of the webhook receiver on PostgreSQL.

Posts N signed events to /webhooks/payments and prints JSON: p50/p99 of the time until the
receiver answers. The answer comes after verifying, storing in the inbox and queueing the
processing task (an in-memory broker here: the publish, not the processing, is part of the
acknowledgement, as with Redis in production). Measured in-process with Django's handler:
server time, no network.

    .venv/bin/python bench/webhooks.py [--events 1000]
"""

import argparse
import base64
import json
import os
import time
import uuid

SECRET = "whsec_" + base64.b64encode(b"benchmark-secret-of-the-receiver").decode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1000)
    args = parser.parse_args()
    os.environ["PAYMENTS_WEBHOOK_SECRET"] = SECRET
    os.environ["CELERY_BROKER_URL"] = "memory://"
    from _setup import percentile, setup_django, signed_event

    setup_django("bench_webhooks")
    from django.test import Client

    from mirror.models import WebhookEvent

    client = Client()
    timings = []
    for i in range(args.events + 50):
        _, body, headers = signed_event(SECRET, str(uuid.uuid4()), msg_id=f"msg_{i}")
        started = time.perf_counter()
        response = client.post("/webhooks/payments", body, content_type="application/json", headers=headers)
        elapsed = (time.perf_counter() - started) * 1000
        assert response.status_code == 202, response.content
        if i >= 50:  # the first requests warm up imports and connections
            timings.append(elapsed)
    assert WebhookEvent.objects.count() == args.events + 50
    print(
        json.dumps(
            {
                "benchmark": "webhook acknowledgement",
                "database": "postgresql",
                "events": args.events,
                "p50_ms": round(percentile(timings, 0.50), 2),
                "p99_ms": round(percentile(timings, 0.99), 2),
                "max_ms": round(max(timings), 2),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
