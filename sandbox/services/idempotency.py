"""POST /transactions under an idempotency key: the first answer is kept and replayed."""

import datetime as dt
import hashlib
import json

from django.db import IntegrityError, transaction

from .. import clock
from ..errors import ApiError, bad_request, detail, error_body, flatten, validation_error
from ..models import ApiKey, IdempotencyRecord
from ..serializers.transactions import TransactionCreateIn
from .transactions import transaction_body, transaction_create

IDEMPOTENCY_WINDOW = dt.timedelta(hours=24)


def request_hash(body) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def transaction_create_idempotent(*, api_key: ApiKey, key: str, body) -> tuple[int, dict, bool]:
    """POST /transactions under an idempotency key -> (status, body, replayed).

    The first answer for (API key, idempotency key) is kept IDEMPOTENCY_WINDOW, errors included (except 5xx);
    the same body replays it; another body is refused."""
    digest = request_hash(body)
    now = clock.now()
    record = IdempotencyRecord.objects.filter(api_key=api_key, key=key).first()
    if record and record.created_at > now - IDEMPOTENCY_WINDOW:
        return _replay(record, digest)
    try:
        with transaction.atomic():
            if record:
                record.delete()
            status, answer = _create_answer(api_key, body)
            if status < 500:
                IdempotencyRecord.objects.create(
                    api_key=api_key, key=key, request_hash=digest, status_code=status, body=answer, created_at=now
                )
    except IntegrityError:
        # A simultaneous request with the same key committed first: answer as it did.
        record = IdempotencyRecord.objects.filter(api_key=api_key, key=key).first()
        if record is None:
            raise
        return _replay(record, digest)
    return status, answer, False


def _replay(record: IdempotencyRecord, digest: str) -> tuple[int, dict, bool]:
    if record.request_hash != digest:
        raise bad_request(
            f"Idempotency key '{record.key}' was already used with a different request body; "
            "use a new key for a new request"
        )
    return record.status_code, record.body, True


def _create_answer(api_key: ApiKey, body) -> tuple[int, dict]:
    """The status and body POST /transactions answers for `body`, errors included."""
    try:
        if not isinstance(body, dict):
            raise validation_error([detail([], "The body must be a JSON object")])
        serializer = TransactionCreateIn(data=body)
        if not serializer.is_valid():
            raise validation_error(flatten(serializer.errors, [], "body"))
        quote_id = str(serializer.validated_data["quoteId"])
        correlation_id = serializer.validated_data.get("correlationId", "")
        tx = transaction_create(api_key=api_key, quote_id=quote_id, correlation_id=correlation_id)
        return 201, transaction_body(tx)
    except ApiError as exc:
        return exc.status, error_body(exc.status, exc.code, exc.message, exc.details)
