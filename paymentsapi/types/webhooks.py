"""Webhook endpoints and their deliveries."""

from datetime import datetime

from pydantic import Field, SecretStr

from ._base import ApiModel


class WebhookEndpoint(ApiModel):
    webhook_id: str
    url: str | None = None
    events: list[str] = Field(default_factory=list)
    # Only in the create answer. SecretStr keeps it out of reprs and logs: .get_secret_value().
    secret: SecretStr | None = None
    created_at: datetime | None = None


class WebhookDelivery(ApiModel):
    """Fields not shown by the spec nor ARCHITECTURE.md: those the sandbox answers (status PENDING,
    RETRYING, SUCCEEDED or FAILED), all optional, and extras are kept."""

    delivery_id: str | None = None
    webhook_id: str | None = None
    event_id: str | None = None
    event_type: str | None = None
    status: str | None = None
    attempts: int | None = None
    response_status: int | None = None
    last_error: str | None = None
    last_attempt_at: datetime | None = None
    next_attempt_at: datetime | None = None
    created_at: datetime | None = None
