"""The demo organization's webhook endpoint that nobody answers, and its deliveries in every state."""

import datetime as dt

from .. import clock
from ..models import Delivery, DeliveryStatus, WebhookEndpoint
from ..services.webhooks import MAX_ATTEMPTS, backoff, webhook_endpoint_create
from .keys import DEMO_ORGANIZATION_ID

# Nobody answers there: port 9 (the "discard" service, which no machine runs nowadays) on the
# loopback refuses connections at once, so its deliveries fail fast and show RETRYING and FAILED
# beside the back-office's SUCCEEDED ones.
UNREACHABLE_WEBHOOK_URL = "http://127.0.0.1:9/unreachable"
# Of its deliveries, the oldest ones gave up and the newest wait for their first attempt.
FAILED_DELIVERIES, PENDING_DELIVERIES, RETRYING_DELIVERIES = 3, 3, 7
PENDING_DELAY = dt.timedelta(hours=1)
UNREACHABLE_ERROR = "Connection failed (ConnectError)"


def ensure_unreachable_endpoint() -> WebhookEndpoint:
    """The demo organization's endpoint at UNREACHABLE_WEBHOOK_URL, for customer.update."""
    endpoint = WebhookEndpoint.objects.filter(organization_id=DEMO_ORGANIZATION_ID, url=UNREACHABLE_WEBHOOK_URL).first()
    return endpoint or webhook_endpoint_create(
        organization_id=DEMO_ORGANIZATION_ID, url=UNREACHABLE_WEBHOOK_URL, events=["customer.update"]
    )


def shape_deliveries(endpoint: WebhookEndpoint) -> None:
    """Give the unreachable endpoint's deliveries every state a delivery can be in, whatever
    time has passed. No service moves a delivery without an attempt, and the retries of a
    failing delivery take hours on the sandbox clock, so the seed writes their outcome as the
    retries would have left it (docs/api-decisions.md, "Seed data"):
    - the oldest FAILED_DELIVERIES: FAILED after MAX_ATTEMPTS refused attempts;
    - the next RETRYING_DELIVERIES: RETRYING after 1 to MAX_ATTEMPTS - 1 refused attempts,
      the next one due after its backoff;
    - the newest PENDING_DELIVERIES: PENDING, first attempt due in PENDING_DELAY.
    The others are attempted when the seed commits, as every new delivery is: refused, they
    become RETRYING by the sandbox's own code."""
    now = clock.now()
    ids = list(Delivery.objects.filter(endpoint=endpoint).order_by("created_at", "id").values_list("pk", flat=True))
    failed, retrying = ids[:FAILED_DELIVERIES], ids[FAILED_DELIVERIES : FAILED_DELIVERIES + RETRYING_DELIVERIES]
    pending = ids[FAILED_DELIVERIES + RETRYING_DELIVERIES :][-PENDING_DELIVERIES:]
    Delivery.objects.filter(pk__in=failed).update(
        status=DeliveryStatus.FAILED,
        attempts=MAX_ATTEMPTS,
        last_attempt_at=now,
        next_attempt_at=None,
        response_status=None,
        last_error=UNREACHABLE_ERROR,
    )
    for index, pk in enumerate(retrying):
        attempts = 1 + index % (MAX_ATTEMPTS - 1)
        Delivery.objects.filter(pk=pk).update(
            status=DeliveryStatus.RETRYING,
            attempts=attempts,
            last_attempt_at=now,
            next_attempt_at=now + backoff(attempts),
            response_status=None,
            last_error=UNREACHABLE_ERROR,
        )
    Delivery.objects.filter(pk__in=pending).update(status=DeliveryStatus.PENDING, next_attempt_at=now + PENDING_DELAY)
