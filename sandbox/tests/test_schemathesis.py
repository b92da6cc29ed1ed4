"""Schemathesis over the sandbox's own /sandbox/openapi.json, in-process through WSGI.

Every operation of the document, test helpers included, gets a bounded and derandomized set of
generated requests (valid and invalid), authenticated with an API key committed for the module.
Every answer must pass schemathesis's default checks (no 5xx, a documented status code, content
type and headers, a body matching the documented schema, invalid data refused, ...), except
`positive_data_acceptance`, which `documented_input_rules` below replaces with a narrower rule:
docs/decisions/sandbox-contract.md says why and lists what stays undocumented.
"""

import os

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from sandbox.auth import create_key

application = get_wsgi_application()
schema = schemathesis.openapi.from_wsgi("/sandbox/openapi.json", application)

# Input rules OpenAPI 3.0 cannot state (cross-field rules, checksums, calendars, the rate table,
# records' states): schema-valid data may be refused with VALIDATION_ERROR at these paths only.
# Every other path a VALIDATION_ERROR names for schema-valid data is a gap in the document.
UNDOCUMENTABLE = {
    "POST /customers": {
        (): "customerType decides which name fields and which of kycData/kybData apply",
        ("firstName",): "required for INDIVIDUAL only",
        ("lastName",): "required for INDIVIDUAL only",
        ("businessName",): "required for BUSINESS only",
        ("kycData",): "INDIVIDUAL only; the national ID triple; real phone numbers and past dates",
        ("kybData",): "BUSINESS only; the national ID triple; real phone numbers and past dates",
        ("email",): "Django's e-mail validator is stricter than the `email` format",
    },
    "PATCH /customers/{customerId}": {
        ("kycData",): "INDIVIDUAL only; the national ID triple; real phone numbers and past dates",
        ("kybData",): "BUSINESS only; the national ID triple; real phone numbers and past dates",
    },
    "POST /payment-accounts": {
        (): "paymentAccountType decides which sub-object applies",
        **{
            (name,): "paymentAccountType decides which sub-object applies"
            for name in (
                "externalBankAccount",
                "externalCryptoWallet",
                "serviceCryptoWallet",
                "serviceAutoFiatAccount",
                "serviceFiatAccount",
                "isThirdParty",
            )
        },
    },
    "POST /quotes": {
        ("source",): "currency of the payment method, its decimal places, amount limits",
        ("destination",): "currency of the payment method",
        ("developerFee",): "builder tier: at least the service fee",
    },
    "GET /exchange-rates": {
        ("sourceCurrency",): "a currency of the source payment method",
        ("destinationCurrency",): "a currency of the destination payment method",
        ("sourceAmount",): "decimal places of the source currency, amount limits",
    },
    "POST /automation-rules": {
        ("trigger",): "at least one of cronSchedule and thresholdAmount; croniter's field ranges",
        ("transactionTemplate",): "currency of each payment method, decimal places",
    },
    "PUT /automation-rules/{rule_id}": {
        ("id",): "must equal the path's ruleId",
        ("trigger",): "at least one of cronSchedule and thresholdAmount; croniter's field ranges",
        ("transactionTemplate",): "currency of each payment method, decimal places",
    },
    "GET /payment-accounts/{payment_account_id}/balance": {
        ("currency",): "a currency of the account's chain",
    },
    "POST /test-helpers/payment-accounts/{payment_account_id}/fund": {
        ("currency",): "a currency of the account",
        ("amount",): "decimal places of the currency",
    },
    "POST /test-helpers/bank-account-forms/{form_token}/complete": {
        ("bankRoutingNumber",): "ABA checksum",
        ("bankAccountOwnerEmail",): "Django's e-mail validator is stricter than the `email` format",
    },
    "POST /test-helpers/customers/{customerId}/review": {
        ("issues",): "required for NEEDS_ADDITIONAL_INFORMATION, refused for ACTIVE",
    },
    "POST /webhooks": {
        ("url",): "a URL with a host and a valid port",
    },
}
# Page tokens are opaque: only the nextPageToken of a previous page is one.
for _operation in ("GET /customers", "GET /payment-accounts", "GET /webhooks", "GET /webhooks/{webhookId}/deliveries"):
    UNDOCUMENTABLE.setdefault(_operation, {})[("pageToken",)] = "opaque: the nextPageToken of a previous page"
# Bank account numbers: the ABA checksum and "both numbers or neither", under any sub-object.
UNDOCUMENTABLE["POST /payment-accounts"][("externalBankAccount",)] += "; ABA checksum; both numbers or neither"


def documented_input_rules(ctx, response, case):
    """Schema-valid data is accepted, or refused with BAD_REQUEST (a rule of the records' state,
    such as a quote for a customer that is not ACTIVE) or with a VALIDATION_ERROR whose every
    item names a path of UNDOCUMENTABLE."""
    if case.meta is None or not case.meta.generation.mode.is_positive or response.status_code < 400:
        return None
    if response.status_code in (401, 403, 404, 409, 429) or response.status_code >= 500:
        return None  # The credentials, a record or the server: not the shape of the request.
    body = response.json()
    assert response.status_code == 400, f"Schema-valid request answered {response.status_code}: {body}"
    if body["code"] == "BAD_REQUEST":
        return None
    allowed = UNDOCUMENTABLE.get(case.operation.label, {})
    unexplained = [item for item in body["details"] if not any(tuple(item["path"][: len(p)]) == p for p in allowed)]
    assert not unexplained, f"Schema-valid request refused; the document does not say why: {unexplained}"
    return None


@pytest.fixture(scope="module", autouse=True)
def _keep_the_test_connection():
    """A raw WSGI call fires request_started/finished, whose close_old_connections would close
    the test's connection inside its transaction (on PostgreSQL; SQLite's in-memory test
    database ignores the close). Module-scoped: hypothesis refuses function-scoped fixtures."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


class Credentials:
    plain_key = ""


@schema.auth(refresh_interval=None)
class BearerKey:
    """Through schemathesis's auth, so that a case generated without (or with a broken)
    Authorization header is sent that way and must be answered 401."""

    def get(self, case, context):
        return Credentials.plain_key

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@pytest.fixture(scope="module")
def api_key(django_db_setup, django_db_blocker):
    """A standard key committed for the module; what each test writes rolls back with it."""
    with django_db_blocker.unblock():
        key, Credentials.plain_key = create_key()
    yield key
    with django_db_blocker.unblock():
        key.delete()


def test_the_checks_the_contract_needs_are_on():
    """A schemathesis.toml cannot switch off what the run below relies on."""
    config = schema.config.checks_config_for(operation=schema["/customers"]["GET"], phase=None)
    for name in (
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_headers_conformance",
        "response_schema_conformance",
        "negative_data_rejection",
        "missing_required_header",
        "unsupported_method",
        "ignored_auth",
    ):
        assert getattr(config, name).enabled, name


@pytest.mark.django_db
@schema.parametrize()
@settings(
    max_examples=int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "15")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
def test_the_sandbox_answers_as_its_document_says(case, api_key):
    case.call_and_validate(excluded_checks=[positive_data_acceptance], additional_checks=[documented_input_rules])
