"""Webhook deliveries as the provider signs them (Standard Webhooks), for the receiver's tests."""

import datetime as dt
import json
import uuid

from sandbox import signing


def signature_headers(secret: str, body: str, *, at: dt.datetime | None = None, msg_id: str = "") -> dict:
    """The three signature headers of `body`, signed as the sandbox signs its deliveries."""
    return signing.signature_headers(
        secret, msg_id or f"msg_{uuid.uuid4().hex}", at or dt.datetime.now(tz=dt.UTC), body
    )


def signed(event, secret: str, *, at: dt.datetime | None = None, msg_id: str = "") -> tuple[str, dict]:
    """(JSON body, signature headers): post with `client.post(url, body, content_type=
    "application/json", headers=headers)`."""
    body = json.dumps(event)
    return body, signature_headers(secret, body, at=at, msg_id=msg_id)
