"""Webhook endpoints and the delivery of events to them (docs/decisions/sandbox-webhooks.md).

A Delivery is one event to one endpoint. It is attempted at once (a task enqueued after the
commit that made it) and, after a failure, again at `next_attempt_at` on the sandbox clock
by `deliver_due()`, with exponential backoff, until a 2xx or MAX_ATTEMPTS.

Attempts are claimed with a conditional UPDATE (a lease on `next_attempt_at`) rather than a
row lock, so no database transaction stays open during the HTTP call and two workers never
post the same attempt, on SQLite as on PostgreSQL.
"""

import base64
import datetime as dt
import json
import secrets
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from .. import clock
from ..errors import bad_request, not_found
from ..models import Delivery, DeliveryStatus, Event, WebhookEndpoint
from ..signing import signature_headers

# Kinds the spec names: sent to endpoints that list them or list nothing.
SPEC_EVENT_KINDS = ("customer.update",)
# Sandbox extensions: sent only to endpoints that list them.
EXTENSION_EVENT_KINDS = ("transaction.update", "payment_account.update")
EVENT_KINDS = SPEC_EVENT_KINDS + EXTENSION_EVENT_KINDS

MAX_ENDPOINTS_PER_ORGANIZATION = 20
SECRET_BYTES = 24

MAX_ATTEMPTS = 8
BACKOFF_BASE_SECONDS = 5
BACKOFF_FACTOR = 4
OPEN_STATUSES = (DeliveryStatus.PENDING, DeliveryStatus.RETRYING)


def backoff(attempts: int) -> dt.timedelta:
    """Wait after the `attempts`-th failed attempt: 5 s, 20 s, 80 s, 320 s, 1280 s, 5120 s, 20480 s."""
    return dt.timedelta(seconds=BACKOFF_BASE_SECONDS * BACKOFF_FACTOR ** (attempts - 1))


def delivery_timeout() -> float:
    return float(getattr(settings, "SANDBOX_WEBHOOK_TIMEOUT", 5.0))


def new_secret() -> str:
    """The Standard Webhooks secret format: whsec_ + base64 of random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def url_problem(url: str) -> str | None:
    """Why `url` cannot receive webhooks, or None. Hosts without a dot (docker service names,
    localhost) are allowed: integrators test against their own machines."""
    if any(ch.isspace() for ch in url):
        return "Must not contain spaces"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return "Not a valid URL"
    if parts.scheme not in ("http", "https"):
        return "Must be an http:// or https:// URL"
    if not parts.hostname:
        return "Must name a host"
    if parts.username is not None or parts.password is not None:
        # The URL is shown in every read; the signature is the authentication.
        return "Must not carry credentials (user:password@); deliveries are signed instead"
    return None


def wants(endpoint: WebhookEndpoint, event_type: str) -> bool:
    """An empty list means the spec's kinds; extension kinds only when listed."""
    if event_type in endpoint.events:
        return True
    return not endpoint.events and event_type in SPEC_EVENT_KINDS


# --- Endpoints ----------------------------------------------------------------------------------


@transaction.atomic
def webhook_endpoint_create(*, organization_id, url: str, events: list[str]) -> WebhookEndpoint:
    """`url` and `events` are validated (serializers.webhooks.WebhookEndpointCreateIn)."""
    # Not locked: the limit guards against runaway scripts, it is not an exact quota.
    if WebhookEndpoint.objects.filter(organization_id=organization_id).count() >= MAX_ENDPOINTS_PER_ORGANIZATION:
        raise bad_request(
            f"An organization can have at most {MAX_ENDPOINTS_PER_ORGANIZATION} webhook endpoints; delete one first"
        )
    return WebhookEndpoint.objects.create(
        organization_id=organization_id,
        url=url,
        events=list(dict.fromkeys(events)),
        secret=new_secret(),
        created_at=clock.now(),
    )


def webhook_endpoint_get(*, webhook_id) -> WebhookEndpoint:
    endpoint = WebhookEndpoint.objects.filter(pk=webhook_id).first()
    if endpoint is None:
        raise not_found("Webhook endpoint", webhook_id)
    return endpoint


def webhook_endpoint_list(
    *, organization_id, after: tuple[dt.datetime, str] | None, size: int
) -> list[WebhookEndpoint]:
    """Oldest first, keyset after the last row of the previous page; up to size + 1 rows (the
    extra one only tells that another page exists)."""
    endpoints = WebhookEndpoint.objects.filter(organization_id=organization_id)
    if after:
        created_at, last_id = after
        endpoints = endpoints.filter(Q(created_at__gt=created_at) | Q(created_at=created_at, id__gt=last_id))
    return list(endpoints.order_by("created_at", "id")[: size + 1])


@transaction.atomic
def webhook_endpoint_delete(*, endpoint: WebhookEndpoint) -> None:
    """Its deliveries go with it, pending retries included."""
    endpoint.delete()


def delivery_list(*, endpoint: WebhookEndpoint, after: tuple[dt.datetime, str] | None, size: int) -> list[Delivery]:
    """Newest first, keyset before the last row of the previous page; up to size + 1 rows."""
    deliveries = Delivery.objects.filter(endpoint=endpoint)
    if after:
        created_at, last_id = after
        deliveries = deliveries.filter(Q(created_at__lt=created_at) | Q(created_at=created_at, id__lt=last_id))
    return list(deliveries.select_related("event").order_by("-created_at", "-id")[: size + 1])


# --- Delivery -----------------------------------------------------------------------------------


def timestamp(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def event_body(event: Event) -> dict:
    return {
        "eventId": str(event.id),
        "eventType": event.event_type,
        "createdAt": timestamp(event.created_at),
        "data": event.data,
    }


def delivery_client() -> httpx.Client:
    """The HTTP client deliveries go through. With SANDBOX_WEBHOOK_IN_PROCESS (tests) requests
    go through WSGI into this same project, so http://testserver/... reaches its views."""
    timeout = httpx.Timeout(delivery_timeout())
    if getattr(settings, "SANDBOX_WEBHOOK_IN_PROCESS", False):
        from django.core.wsgi import get_wsgi_application

        return httpx.Client(transport=httpx.WSGITransport(app=get_wsgi_application()), timeout=timeout)
    # Redirects are not followed: a 3xx is a failed attempt, as with other providers.
    return httpx.Client(timeout=timeout, follow_redirects=False)


def _post(endpoint: WebhookEndpoint, event: Event) -> tuple[int | None, str]:
    """One signed POST: (response status or None, error text or "")."""
    body = json.dumps(event_body(event), separators=(",", ":"), ensure_ascii=False)
    msg_id = str(event.id)
    # Real time, not the sandbox clock: receivers check the timestamp against their own clock.
    sent_at = timezone.now()
    headers = {
        "content-type": "application/json",
        "user-agent": "payments-sandbox-webhooks/1.0",
        **signature_headers(endpoint.secret, msg_id, sent_at, body),
    }
    try:
        # Streamed and not read: only the status matters, whatever the receiver sends back.
        with (
            delivery_client() as client,
            client.stream("POST", endpoint.url, content=body.encode(), headers=headers) as response,
        ):
            status = response.status_code
    except httpx.TimeoutException:
        return None, f"Timed out after {delivery_timeout():g} s"
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        # The class name only: exception texts may quote the URL, and nothing here needs more.
        return None, f"Connection failed ({type(exc).__name__})"
    if 200 <= status < 300:
        return status, ""
    return status, f"HTTP {status}"


def _lease() -> dt.timedelta:
    """How long a claimed attempt is reserved before deliver_due may take it again (a lost worker)."""
    return dt.timedelta(seconds=delivery_timeout() + 60)


def deliver(delivery_id) -> Delivery | None:
    """Attempt one delivery if it is due; None when it is not (done, not yet due, or taken by
    another worker). Never raises on the receiver's failures: they are recorded.

    Not atomic on purpose: the claim commits before the HTTP call and the outcome after it."""
    now = clock.now()
    claimed = Delivery.objects.filter(
        pk=delivery_id, status__in=OPEN_STATUSES, next_attempt_at__lte=now, attempts__lt=MAX_ATTEMPTS
    ).update(attempts=F("attempts") + 1, last_attempt_at=now, next_attempt_at=now + _lease())
    if not claimed:
        return None
    delivery = Delivery.objects.select_related("endpoint", "event").get(pk=delivery_id)
    status, error = _post(delivery.endpoint, delivery.event)

    outcome = {"response_status": status, "last_error": error[:500]}
    if error == "":
        outcome |= {"status": DeliveryStatus.SUCCEEDED, "next_attempt_at": None}
    elif delivery.attempts >= MAX_ATTEMPTS:
        outcome |= {"status": DeliveryStatus.FAILED, "next_attempt_at": None}
    else:
        outcome |= {"status": DeliveryStatus.RETRYING, "next_attempt_at": clock.now() + backoff(delivery.attempts)}
    # `attempts` fences the write: if our lease ran out and another worker took over, its outcome wins.
    Delivery.objects.filter(pk=delivery.pk, attempts=delivery.attempts).update(**outcome)
    # None if the endpoint was deleted meanwhile (its deliveries with it).
    return Delivery.objects.select_related("endpoint", "event").filter(pk=delivery.pk).first()


def delivery_due_ids(*, limit: int | None = None) -> list[str]:
    """Deliveries whose attempt is due on the sandbox clock, the longest waiting first."""
    due = Delivery.objects.filter(
        status__in=OPEN_STATUSES, next_attempt_at__lte=clock.now(), attempts__lt=MAX_ATTEMPTS
    ).order_by("next_attempt_at", "id")
    return [str(pk) for pk in due.values_list("pk", flat=True)[:limit]]


def delivery_fail_abandoned() -> int:
    """A last attempt whose worker died never records its outcome: once its lease is over, FAILED."""
    return Delivery.objects.filter(
        status__in=OPEN_STATUSES, next_attempt_at__lte=clock.now(), attempts__gte=MAX_ATTEMPTS
    ).update(status=DeliveryStatus.FAILED, next_attempt_at=None, last_error="The last attempt recorded no outcome")


def deliver_due(*, limit: int | None = None) -> int:
    """Attempt every due delivery here and now; the number attempted. Safe to run concurrently."""
    delivery_fail_abandoned()
    return sum(deliver(delivery_id) is not None for delivery_id in delivery_due_ids(limit=limit))
