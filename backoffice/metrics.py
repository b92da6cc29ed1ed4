"""`/metrics` for Prometheus, behind METRICS_TOKEN, and the figures read at scrape time.

Recorded as they happen (core/middleware.py): request latency by view, upstream calls by
operation and outcome, the circuit breaker's state, Celery task runtimes and failures.
Read from the database and the shared cache when scraped (here): the inbox backlog and its
oldest waiting event, the age of the last successful sync of each kind, and the age of the
worker's and beat's heartbeats. docs/operations.md says what each one means.
"""

import hmac

from django.conf import settings
from django.http import Http404, HttpResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from core.middleware import registry

from .health import heartbeat_age, sync_ages


class MirrorCollector(Collector):
    def collect(self):
        from django.db.models import Count, Min

        from mirror.inbox import MAX_ATTEMPTS, PENDING
        from mirror.models import WebhookEvent

        pending = WebhookEvent.objects.filter(state__in=PENDING)
        waiting = pending.filter(attempts__lt=MAX_ATTEMPTS).aggregate(n=Count("id"), oldest=Min("received_at"))
        yield GaugeMetricFamily(
            "backoffice_inbox_backlog", "Webhook events waiting to be processed (with tries left).", value=waiting["n"]
        )
        yield GaugeMetricFamily(
            "backoffice_inbox_given_up",
            "Webhook events that failed every try: replay them from /inbox/ once the cause is fixed.",
            value=pending.filter(attempts__gte=MAX_ATTEMPTS).count(),
        )
        oldest = (timezone.now() - waiting["oldest"]).total_seconds() if waiting["oldest"] else 0.0
        yield GaugeMetricFamily(
            "backoffice_inbox_oldest_waiting_seconds",
            "Age of the oldest webhook event waiting (0: none).",
            value=oldest,
        )
        syncs = GaugeMetricFamily(
            "backoffice_sync_last_success_age_seconds",
            "Seconds since the last successful sync of each kind (absent: never).",
            labels=["kind"],
        )
        for kind, age in sync_ages().items():
            if age is not None:
                syncs.add_metric([kind], age)
        yield syncs
        beats = GaugeMetricFamily(
            "backoffice_heartbeat_age_seconds",
            "Seconds since the Celery worker / beat was last seen alive (absent: never).",
            labels=["process"],
        )
        for process in ("worker", "beat"):
            age = heartbeat_age(process)
            if age is not None:
                beats.add_metric([process], age)
        yield beats


def _authorized(request) -> bool | None:
    """None without credentials, else whether they are METRICS_TOKEN."""
    header = request.headers.get("Authorization", "")
    if not header.startswith("Bearer "):
        return None
    return hmac.compare_digest(header.removeprefix("Bearer ").encode(), settings.METRICS_TOKEN.encode())


@never_cache
@require_GET
def metrics(request):
    if not settings.METRICS_TOKEN:
        raise Http404("Metrics are off: set METRICS_TOKEN")
    authorized = _authorized(request)
    if authorized is None:
        response = HttpResponse("Send Authorization: Bearer <METRICS_TOKEN>\n", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    if not authorized:
        return HttpResponse("Wrong metrics token\n", status=403, content_type="text/plain")
    body = generate_latest(registry()) + generate_latest(_mirror_registry())
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)


def _mirror_registry():
    from prometheus_client import CollectorRegistry

    scraped = CollectorRegistry(auto_describe=False)
    scraped.register(MirrorCollector())
    return scraped
