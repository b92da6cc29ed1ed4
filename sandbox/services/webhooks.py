"""Events, webhook endpoints and the delivery of events to them (docs/decisions/sandbox-webhooks.md).

`emit` is the one place the rest of the sandbox reports a change:

    emit(organization_id=c.organization_id, event_type="customer.update", data=customer_event_data(c))

stores the Event, makes one Delivery per endpoint of the organization that wants the kind and
announces each (signals.delivery_created): sandbox/tasks.py starts the deliveries once the
surrounding database transaction commits, so a rolled-back change never reaches a receiver.

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

import httpx
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.core.wsgi import get_wsgi_application
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from .. import clock, signals
from ..errors import bad_request
from ..models import (
    EVENT_KINDS,
    SPEC_EVENT_KINDS,
    ApiKey,
    Delivery,
    DeliveryStatus,
    Event,
    WebhookEndpoint,
)
from ..pagination import PageToken, keyset_page
from ..signing import signature_headers
from .records import record_for_key

MAX_ENDPOINTS_PER_ORGANIZATION = 20
SECRET_BYTES = 24

MAX_ATTEMPTS = 8
BACKOFF_BASE_SECONDS = 5
BACKOFF_FACTOR = 4
OPEN_STATUSES = (DeliveryStatus.PENDING, DeliveryStatus.RETRYING)


def backoff(attempts: int) -> dt.timedelta:
    """Wait after the `attempts`-th failed attempt: BACKOFF_BASE_SECONDS x BACKOFF_FACTOR^(attempts - 1)
    (the schedule is listed in docs/decisions/sandbox-webhooks.md)."""
    return dt.timedelta(seconds=BACKOFF_BASE_SECONDS * BACKOFF_FACTOR ** (attempts - 1))


def delivery_timeout() -> float:
    return float(getattr(settings, "SANDBOX_WEBHOOK_TIMEOUT", 5.0))


def new_secret() -> str:
    """The Standard Webhooks secret format: whsec_ + base64 of random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def wants(endpoint: WebhookEndpoint, event_type: str) -> bool:
    """An empty list means the spec's kinds; extension kinds only when listed."""
    if event_type in endpoint.events:
        return True
    return not endpoint.events and event_type in SPEC_EVENT_KINDS


# --- Events -------------------------------------------------------------------------------------


def emit(*, organization_id, event_type: str, data: dict) -> Event:
    if event_type not in EVENT_KINDS:
        # A programming error: add the kind to models.py (EXTENSION_EVENT_KINDS) and the decisions page.
        raise ValueError(f"Unknown event kind {event_type!r}; known: {', '.join(EVENT_KINDS)}")
    now = clock.now()
    # Through JSON once so that Decimal, UUID and datetime values arrive as strings.
    event = Event.objects.create(
        organization_id=organization_id,
        event_type=event_type,
        data=json.loads(json.dumps(data, cls=DjangoJSONEncoder)),
        created_at=now,
    )
    endpoints = [e for e in WebhookEndpoint.objects.filter(organization_id=organization_id) if wants(e, event_type)]
    deliveries = Delivery.objects.bulk_create(
        Delivery(endpoint=e, event=event, status=DeliveryStatus.PENDING, next_attempt_at=now, created_at=now)
        for e in endpoints
    )
    for delivery in deliveries:
        signals.delivery_created.send(sender=Delivery, delivery_id=str(delivery.pk))
    return event


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


def webhook_endpoint_for_key(*, api_key: ApiKey, webhook_id) -> WebhookEndpoint:
    return record_for_key(WebhookEndpoint.objects, api_key=api_key, kind="Webhook endpoint", record_id=webhook_id)


def webhook_endpoint_list(
    *, organization_id, token: PageToken | None, size: int
) -> tuple[list[WebhookEndpoint], str | None]:
    """Oldest first: (endpoints, nextPageToken)."""
    endpoints = WebhookEndpoint.objects.filter(organization_id=organization_id)
    return keyset_page(endpoints, order="created_at", token=token, size=size)


@transaction.atomic
def webhook_endpoint_delete(*, endpoint: WebhookEndpoint) -> None:
    """Its deliveries go with it, pending retries included."""
    endpoint.delete()


def delivery_list(
    *, endpoint: WebhookEndpoint, token: PageToken | None, size: int
) -> tuple[list[Delivery], str | None]:
    """Newest first: (deliveries, nextPageToken)."""
    deliveries = Delivery.objects.filter(endpoint=endpoint).select_related("event")
    return keyset_page(deliveries, order="created_at", token=token, size=size, newest_first=True)


# --- Delivery -----------------------------------------------------------------------------------


def event_body(event: Event) -> dict:
    return {
        "eventId": str(event.id),
        "eventType": event.event_type,
        "createdAt": clock.iso(event.created_at),
        "data": event.data,
    }


def delivery_client() -> httpx.Client:
    """The HTTP client deliveries go through. With SANDBOX_WEBHOOK_IN_PROCESS (tests) requests
    go through WSGI into this same project, so http://testserver/... reaches its views."""
    timeout = httpx.Timeout(delivery_timeout())
    if getattr(settings, "SANDBOX_WEBHOOK_IN_PROCESS", False):
        return httpx.Client(transport=httpx.WSGITransport(app=get_wsgi_application()), timeout=timeout)
    # Redirects are not followed: a 3xx is a failed attempt, as with other providers.
    return httpx.Client(timeout=timeout, follow_redirects=False)


def _post_event(endpoint: WebhookEndpoint, event: Event) -> tuple[int | None, str]:
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


def _lease_length() -> dt.timedelta:
    """How long a claimed attempt is reserved before deliver_due may take it again (a lost worker)."""
    return dt.timedelta(seconds=delivery_timeout() + 60)


def deliver(delivery_id) -> Delivery | None:
    """Attempt one delivery if it is due; None when it is not (done, not yet due, or taken by
    another worker). Never raises on the receiver's failures: they are recorded.

    Not atomic on purpose: the claim commits before the HTTP call and the outcome after it."""
    now = clock.now()
    claimed = Delivery.objects.filter(
        pk=delivery_id, status__in=OPEN_STATUSES, next_attempt_at__lte=now, attempts__lt=MAX_ATTEMPTS
    ).update(attempts=F("attempts") + 1, last_attempt_at=now, next_attempt_at=now + _lease_length())
    if not claimed:
        return None
    delivery = Delivery.objects.select_related("endpoint", "event").get(pk=delivery_id)
    status, error = _post_event(delivery.endpoint, delivery.event)

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
