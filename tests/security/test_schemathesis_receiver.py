"""Schemathesis over the webhook receiver's contract (docs/webhook-receiver.openapi.json),
in-process through WSGI, bounded and derandomized.

Two runs. As generated: schemathesis cannot sign, so every request is unsigned (or carries
generated nonsense for a signature) and must be refused as documented, 401 above all; and a
method other than POST gets 405. Signed: each generated body is serialized here and signed with
the endpoint's secret, so that the envelope checks behind the signature are fuzzed too: a body
the document allows is stored (202, or 200 for a repeat), one it does not is refused (400).
"""

import base64
import json
import os
from pathlib import Path

import jsonschema_rs
import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.core import NotSet
from schemathesis.specs.openapi.checks import (
    missing_required_header,
    negative_data_rejection,
    positive_data_acceptance,
)

from tests.webhooks import signature_headers

DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "webhook-receiver.openapi.json"
SECRET = "whsec_" + base64.b64encode(b"schemathesis-receiver-secret-0123").decode()
EVENT_SCHEMA = json.loads(DOCUMENT.read_text())["components"]["schemas"]["Event"]
EVENT = jsonschema_rs.Draft4Validator(EVENT_SCHEMA, validate_formats=True)

application = get_wsgi_application()
schema = schemathesis.openapi.from_path(DOCUMENT)
schema.app = application  # requests go through WSGI into this project

HYPOTHESIS = settings(
    max_examples=int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "100")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


@pytest.fixture(scope="module", autouse=True)
def _keep_the_test_connection():
    """As in sandbox/tests/test_schemathesis.py: WSGI calls must not close the test's
    connection (PostgreSQL); module-scoped because hypothesis refuses function-scoped ones."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture(scope="module", autouse=True)
def _secret_and_no_processing():
    """The endpoint's secret, and no processing task (it would call the API)."""
    from unittest import mock

    from django.conf import settings as django_settings

    previous = django_settings.PAYMENTS_WEBHOOK_SECRET
    django_settings.PAYMENTS_WEBHOOK_SECRET = SECRET
    with mock.patch("mirror.tasks.drain_webhook_inbox.delay"):
        yield
    django_settings.PAYMENTS_WEBHOOK_SECRET = previous


def test_the_document_is_what_the_receiver_answers():
    operation = schema["/webhooks/payments"]["POST"]
    responses = set(operation.definition.raw["responses"])
    assert responses == {"200", "202", "400", "401", "405", "413"}
    headers = {p["name"] for p in operation.definition.raw["parameters"]}
    assert headers == {"webhook-id", "webhook-timestamp", "webhook-signature"}
    assert EVENT_SCHEMA["required"] == ["eventId", "eventType", "createdAt", "data"]


def unsigned_is_refused(ctx, response, case):
    """Without our signature nothing is stored: 401 (400/413 for a body refused before)."""
    assert response.status_code in (401, 400, 405, 413), f"Unsigned request answered {response.status_code}"


@pytest.mark.django_db
@schema.parametrize()
@HYPOTHESIS
def test_unsigned_requests_are_refused_as_documented(case):
    from mirror.models import WebhookEvent

    # A schema-valid body is still refused without a valid signature: by design, not a gap.
    case.call_and_validate(excluded_checks=[positive_data_acceptance], additional_checks=[unsigned_is_refused])
    assert not WebhookEvent.objects.exists()


def _body_bytes(case) -> bytes:
    """The generated body as sent: negative cases may be bytes or values JSON cannot hold."""
    if isinstance(case.body, NotSet):
        return b""
    if isinstance(case.body, bytes):
        return case.body
    try:
        return json.dumps(case.body).encode()
    except (TypeError, ValueError):
        return str(case.body).encode()


def _is_valid_event(body: bytes) -> bool:
    try:
        return EVENT.is_valid(json.loads(body))
    except ValueError:
        return False


@pytest.mark.django_db
@schema.parametrize()
@HYPOTHESIS
def test_signed_events_are_stored_or_refused_as_documented(case):
    from mirror.models import WebhookEvent

    if case.method != "POST":
        return
    body = _body_bytes(case)
    headers = {**signature_headers(SECRET, body.decode(errors="replace")), "Content-Type": "application/json"}
    case.headers = headers
    response = case.call(data=body)
    # The generated headers were replaced by a valid signature: schemathesis's own header checks
    # and its idea of which cases are negative no longer apply; the body decides, below.
    case.validate_response(
        response,
        excluded_checks=[negative_data_rejection, positive_data_acceptance, missing_required_header],
    )
    valid = _is_valid_event(body)
    if valid:
        assert response.status_code in (200, 202), (body[:200], response.status_code, response.text)
        assert WebhookEvent.objects.filter(event_id=json.loads(body)["eventId"]).exists()
    else:
        assert response.status_code in (400, 401, 413), (body[:200], response.status_code)
