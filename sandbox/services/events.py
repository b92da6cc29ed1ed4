"""Events of the sandbox: the one place the rest of the sandbox reports a change.

    emit(organization_id=c.organization_id, event_type="customer.update", data=customer_event_data(c))

stores the Event, makes one Delivery per endpoint of the organization that wants the kind
(see services.webhooks.wants) and announces each (signals.delivery_created): sandbox/tasks.py
starts the deliveries once the surrounding database transaction commits, so a rolled-back
change never reaches a receiver.
"""

import json
from urllib.parse import urljoin, urlsplit

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder

from .. import clock, signals
from ..models import Customer, Delivery, DeliveryStatus, Event, WebhookEndpoint
from ..serializers.customers import CustomerSerializer
from .webhooks import EVENT_KINDS, wants


def emit(*, organization_id, event_type: str, data: dict) -> Event:
    if event_type not in EVENT_KINDS:
        # A programming error: add the kind to services/webhooks.py and the decisions page.
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


class _SandboxOrigin:
    """Stands in for the request CustomerSerializer builds verificationLink from, when an event
    has no request (a review that finishes in a worker, say)."""

    def build_absolute_uri(self, location: str) -> str:
        return urljoin(sandbox_origin(), location)


def sandbox_origin() -> str:
    """scheme://host[:port] where the sandbox is reached: SANDBOX_PUBLIC_URL if set, else the
    origin of PAYMENTS_API_BASE_URL (the sandbox mounted in this server is the upstream)."""
    url = getattr(settings, "SANDBOX_PUBLIC_URL", "") or settings.PAYMENTS_API_BASE_URL
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/"


def customer_event_data(customer: Customer) -> dict:
    """The customer as the single read with includePaymentMethods=true shows it, read afresh
    from the database, with verificationIssues always present ([] when none apply)."""
    stored = Customer.objects.prefetch_related("issues").get(pk=customer.pk)
    data = CustomerSerializer(stored, context={"request": _SandboxOrigin(), "payment_methods": True}).data
    data.setdefault("verificationIssues", [])
    return dict(data)
