"""Standard Webhooks signing of a delivery, with nothing of Django: the sandbox's deliveries,
and the tests and benchmarks that play the provider, sign the same way."""

import datetime as dt

from standardwebhooks.webhooks import Webhook


def signature_headers(secret: str, msg_id: str, sent_at: dt.datetime, body: str) -> dict[str, str]:
    """The webhook-id, webhook-timestamp and webhook-signature headers of `body`."""
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(sent_at.timestamp())),
        "webhook-signature": Webhook(secret).sign(msg_id=msg_id, timestamp=sent_at, data=body),
    }
