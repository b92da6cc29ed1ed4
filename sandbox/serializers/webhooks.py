"""Webhook endpoint and delivery bodies.

The input serializer validates; output serializers build the answers and describe them for the
OpenAPI document. The secret appears in the create answer only (WebhookEndpointCreatedOut).
"""

from urllib.parse import urlsplit

from rest_framework import serializers

from .. import clock
from ..models import EVENT_KINDS, EXTENSION_EVENT_KINDS, SPEC_EVENT_KINDS, DeliveryStatus

EVENTS_HELP = (
    f"Event kinds to receive. Empty or absent: the spec's kinds ({', '.join(SPEC_EVENT_KINDS)}). "
    f"Sandbox extension kinds ({', '.join(EXTENSION_EVENT_KINDS)}) are sent only when listed; a "
    "non-empty list is exactly what the endpoint receives."
)


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


class EventKindField(serializers.ChoiceField):
    default_error_messages = {
        "invalid_choice": f"Unknown event kind '{{input}}'; known kinds: {', '.join(EVENT_KINDS)}",
    }

    def __init__(self, **kwargs):
        super().__init__(EVENT_KINDS, **kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class WebhookUrlField(serializers.CharField):
    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise serializers.ValidationError("Must be a string")
        value = super().to_internal_value(data)
        problem = url_problem(value)
        if problem:
            raise serializers.ValidationError(problem)
        return value


class WebhookEndpointCreateIn(serializers.Serializer):
    url = WebhookUrlField(max_length=2000, help_text="http(s) URL that receives the signed POSTs")
    events = serializers.ListField(child=EventKindField(), required=False, default=list, help_text=EVENTS_HELP)

    def validate(self, attrs):
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError(
                {name: [f"Unknown field '{name}'; allowed fields here: url, events"] for name in unknown}
            )
        return attrs


class WebhookEndpointOut(serializers.Serializer):
    webhookId = serializers.UUIDField()
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.ChoiceField(EVENT_KINDS), help_text=EVENTS_HELP)
    createdAt = serializers.DateTimeField()

    def to_representation(self, endpoint) -> dict:
        return {
            "webhookId": str(endpoint.id),
            "url": endpoint.url,
            "events": list(endpoint.events),
            "createdAt": clock.iso(endpoint.created_at),
        }


class WebhookEndpointCreatedOut(WebhookEndpointOut):
    secret = serializers.CharField(
        help_text="whsec_<base64>: verifies the webhook-signature header (Standard Webhooks). Shown only here, once."
    )

    def to_representation(self, endpoint) -> dict:
        return {**super().to_representation(endpoint), "secret": endpoint.secret}


class WebhookEndpointListOut(serializers.Serializer):
    webhooks = WebhookEndpointOut(many=True)
    nextPageToken = serializers.CharField(allow_null=True, help_text="null on the last page")


class DeliveryOut(serializers.Serializer):
    deliveryId = serializers.UUIDField()
    webhookId = serializers.UUIDField()
    eventId = serializers.UUIDField(help_text="Also the webhook-id header of every attempt")
    eventType = serializers.ChoiceField(EVENT_KINDS)
    status = serializers.ChoiceField(
        DeliveryStatus.values, help_text="PENDING (not tried yet), RETRYING, SUCCEEDED or FAILED (gave up)"
    )
    attempts = serializers.IntegerField()
    responseStatus = serializers.IntegerField(
        allow_null=True, help_text="HTTP status of the last attempt; null before one or after a timeout"
    )
    lastError = serializers.CharField(help_text='Why the last attempt failed ("HTTP 500", "Timed out ..."); "" if none')
    lastAttemptAt = serializers.DateTimeField(allow_null=True)
    nextAttemptAt = serializers.DateTimeField(allow_null=True, help_text="null once SUCCEEDED or FAILED")
    createdAt = serializers.DateTimeField()

    def to_representation(self, delivery) -> dict:
        return {
            "deliveryId": str(delivery.id),
            "webhookId": str(delivery.endpoint_id),
            "eventId": str(delivery.event_id),
            "eventType": delivery.event.event_type,
            "status": delivery.status,
            "attempts": delivery.attempts,
            "responseStatus": delivery.response_status,
            "lastError": delivery.last_error,
            "lastAttemptAt": clock.iso(delivery.last_attempt_at) if delivery.last_attempt_at else None,
            "nextAttemptAt": clock.iso(delivery.next_attempt_at) if delivery.next_attempt_at else None,
            "createdAt": clock.iso(delivery.created_at),
        }


class DeliveryListOut(serializers.Serializer):
    deliveries = DeliveryOut(many=True)
    nextPageToken = serializers.CharField(allow_null=True, help_text="null on the last page")
