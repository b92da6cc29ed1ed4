"""The receiver of the Payments API's webhooks: verify, store, answer, then process.

The signature (Standard Webhooks) is checked over the raw body before anything is parsed.
An accepted event is stored in the inbox (unique event id) and answered at once; a drain of
the inbox is queued after the response is sent (mirror/inbox.py), and a periodic sweep
catches any event no drain took (a crash between the answer and the queueing).
"""

import datetime as dt
import json
import logging
import re

from django.conf import settings
from django.core.cache import caches
from django.http import JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from kombu.exceptions import OperationalError as KombuOperationalError
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from core.middleware import current_request_id, set_request_id
from core.models import Counter

from .models import WebhookEvent, WebhookSecret
from .tasks import request_drain

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 1024 * 1024


class AfterResponse(JsonResponse):
    """A response that runs callbacks once the server has sent it (WSGI close())."""

    def __init__(self, *args, after=(), **kwargs):
        super().__init__(*args, **kwargs)
        self._after = list(after)
        # close() runs after the request's middleware: the callbacks (and the tasks they
        # queue) keep the request's id.
        self._request_id = current_request_id()

    def close(self):
        super().close()
        token = set_request_id(self._request_id)
        try:
            for callback in self._after:
                try:
                    callback()
                except KombuOperationalError as exc:
                    # The broker is away: expected during an outage, and the event is stored.
                    log.warning("The broker is unreachable; the inbox sweep will process the event: %s", exc)
                except Exception:  # the sweep retries whatever did not start here
                    log.exception("Could not start the processing of a webhook event")
        finally:
            token.var.reset(token)


SECRETS_CACHE = "webhooks:secrets"


def _secrets(*, fresh: bool = False) -> list[str]:
    """The secrets that may sign an event: the setting's, then the registered endpoints'
    (newest first). Kept a minute in this process's memory (the "local" cache), never in the
    shared one: secrets stay off the network, and a delivery is stored with Redis away."""
    local = caches["local"]
    stored = None if fresh else local.get(SECRETS_CACHE)
    if stored is None:
        stored = list(WebhookSecret.objects.order_by("-created_at").values_list("secret", flat=True))
        local.set(SECRETS_CACHE, stored, timeout=60)
    return ([settings.PAYMENTS_WEBHOOK_SECRET] if settings.PAYMENTS_WEBHOOK_SECRET else []) + stored


def _signed_by_one_of(secrets: list[str], body: bytes, wanted: dict) -> bool:
    for secret in secrets:
        try:
            Webhook(secret).verify(body, wanted, json_parse=False)
            return True
        except (WebhookVerificationError, ValueError, TypeError):
            # ValueError also covers bad base64, a malformed signature list and bad UTF-8.
            continue
    return False


class NotJson(ValueError):
    """A body one of our secrets signed that is not JSON: malformed, not forged."""


def verify(body: bytes, headers) -> object:
    """The parsed body if one of our secrets signed it within the last 5 minutes; raises
    WebhookVerificationError if none did, NotJson if the signed body is not JSON."""
    wanted = {name: headers.get(name, "") for name in ("webhook-id", "webhook-timestamp", "webhook-signature")}
    # A secret registered since the cache was filled? Read them again before refusing.
    if not (_signed_by_one_of(_secrets(), body, wanted) or _signed_by_one_of(_secrets(fresh=True), body, wanted)):
        raise WebhookVerificationError("no secret verified this event")
    try:
        return json.loads(body)
    except ValueError:  # not UTF-8, or not JSON
        raise NotJson("the signed body is not JSON") from None


RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")


def _created_at(value) -> dt.datetime | None:
    """An RFC 3339 date-time ("t" and "z" may be lower case; a leap second counts as :59)."""
    text = value.upper() if isinstance(value, str) else ""
    if not RFC3339.fullmatch(text):
        return None
    try:
        moment = dt.datetime.fromisoformat(re.sub(r"(T\d{2}:\d{2}):60", r"\1:59", text))
    except ValueError:  # February 31st
        return None
    try:
        # In UTC: PostgreSQL takes offsets up to 15:59 only, RFC 3339 up to 23:59.
        return moment.astimezone(dt.UTC)
    except OverflowError:  # a moment of year 1 or 9999 that falls outside them in UTC
        edge = dt.datetime.min if moment.year == 1 else dt.datetime.max
        return edge.replace(tzinfo=dt.UTC)


def _without_nul(value):
    """The payload as stored: PostgreSQL keeps no NUL in jsonb, so each becomes U+FFFD (the
    payload only names the record to re-read; it is never trusted beyond that)."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, list):
        return [_without_nul(item) for item in value]
    if isinstance(value, dict):
        return {_without_nul(key): _without_nul(item) for key, item in value.items()}
    return value


def malformed(event) -> bool:
    """Not the envelope of docs/webhook-receiver.openapi.json ({eventId, eventType, createdAt,
    data}), or text no database holds: refused whole rather than stored half understood."""
    if not isinstance(event, dict):
        return True
    event_id, kind = event.get("eventId"), event.get("eventType")
    return (
        not (isinstance(event_id, str) and 0 < len(event_id) <= 128 and "\x00" not in event_id)
        or not (isinstance(kind, str) and 0 < len(kind) <= 64 and "\x00" not in kind)
        or _created_at(event.get("createdAt")) is None
        or not isinstance(event.get("data"), dict)
        or not _encodable(event)
    )


def _encodable(event: dict) -> bool:
    """No lone surrogate anywhere ("\\ud800" is valid JSON but no UTF-8): neither a text
    column nor jsonb would take it."""
    try:
        json.dumps(event, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return False
    return True


def store(event: dict) -> bool:
    """Store a verified event in the inbox; False when its id is there already (a duplicate).

    `get_or_create`: a duplicate, even one that races in, answers False without failing the
    request or a surrounding transaction (its INSERT runs in a savepoint). The standard way: a
    raw INSERT ... ON CONFLICT was faster, but both are far within the receiver's budget
    (docs/benchmarks.md, "Keep or remove").
    """
    _, created = WebhookEvent.objects.get_or_create(
        event_id=event["eventId"],
        defaults={
            "event_type": event["eventType"],
            "payload": _without_nul(event),
            "occurred_at": _created_at(event["createdAt"]),
            "received_at": timezone.now(),
            "state": WebhookEvent.State.RECEIVED,
            "attempts": 0,
            "last_error": "",
        },
    )
    return created


def _refuse(reason: str, status: int) -> JsonResponse:
    Counter.bump(f"webhooks.refused.{reason}")
    log.warning("Refused a webhook delivery: %s", reason)
    return JsonResponse({"error": reason}, status=status)


@csrf_exempt
@require_POST
def receive_webhook(request):
    declared = request.META.get("CONTENT_LENGTH") or "0"
    if not declared.isdigit():
        return _refuse("malformed", 400)
    if int(declared) > MAX_BODY_BYTES:
        return _refuse("too-large", 413)
    body = request.body
    if len(body) > MAX_BODY_BYTES:
        return _refuse("too-large", 413)
    try:
        event = verify(body, request.headers)
    except WebhookVerificationError:
        return _refuse("bad-signature", 401)
    except NotJson:
        return _refuse("malformed", 400)
    if malformed(event):
        return _refuse("malformed", 400)

    if not store(event):
        # A duplicate delivery: acknowledged, not processed again.
        return JsonResponse({"received": True, "duplicate": True}, status=200)
    return AfterResponse({"received": True}, status=202, after=[request_drain])
