"""The spec's error body {message, code, details, statusCode} for every kind of failure."""

import json

import pytest
from django.conf import settings as project_settings

from sandbox.models import Customer

from .conftest import SandboxClient, assert_error, customer_body


def test_malformed_json_is_a_bad_request(api):
    response = api.client.post("/sandbox/customers", '{"customerType": ', content_type="application/json")

    body = assert_error(response, 400, "BAD_REQUEST")
    assert body["message"].startswith("Malformed request body: JSON parse error")
    assert body["details"] is None


@pytest.mark.parametrize("constant", ["NaN", "Infinity"])
def test_non_standard_json_numbers_are_a_bad_request(api, constant):
    response = api.client.post(
        "/sandbox/customers",
        f'{{"customerType": "BUSINESS", "email": "a@b.example", "businessName": "B", "kybData": {{"x": {constant}}}}}',
        content_type="application/json",
    )

    assert_error(response, 400, "BAD_REQUEST")


def test_a_body_that_is_not_json_is_unsupported(api):
    response = api.client.post("/sandbox/customers", "customerType=INDIVIDUAL", content_type="text/plain")

    body = assert_error(response, 415, "BAD_REQUEST")
    assert "text/plain" in body["message"]


def test_validation_error_shape(api):
    body = assert_error(api.post("/customers", customer_body(email=5)), 400, "VALIDATION_ERROR")

    assert body == {
        "message": "Validation failed",
        "code": "VALIDATION_ERROR",
        "details": [{"path": ["email"], "message": "Must be a valid e-mail address.", "location": "body"}],
        "statusCode": 400,
    }


def test_query_validation_errors_say_query(api):
    body = assert_error(api.get("/customers", {"pageSize": "500"}), 400, "VALIDATION_ERROR")

    assert body["details"] == [
        {"path": ["pageSize"], "message": "Ensure this value is less than or equal to 100.", "location": "query"}
    ]


def test_not_found_names_kind_and_id(api):
    body = assert_error(api.get("/customer/abc"), 404, "NOT_FOUND")
    assert body["message"] == "Customer abc not found"
    assert body["details"] is None


def test_unknown_route_is_not_found(api):
    body = assert_error(api.get("/customerz"), 404, "NOT_FOUND")
    assert body["message"] == "No operation at GET /sandbox/customerz"


def test_trailing_slash_is_not_a_route(api):
    assert_error(api.get("/customers/"), 404, "NOT_FOUND")


def test_method_not_allowed(api):
    body = assert_error(api.delete("/customers"), 405, "BAD_REQUEST")
    assert body["message"] == 'Method "DELETE" not allowed.'


# --- Payload size -------------------------------------------------------------------------------


def test_the_limit_is_100_mb():
    assert project_settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 100 * 1024 * 1024


def _big_body(size: int) -> str:
    """A valid create body of exactly `size` bytes, padded inside a document image."""
    body = customer_body(kycData={"nationalIdType": "ssn", "nationalIdNumber": "1", "nationalIdIssuingCountry": "US"})
    body["kycData"]["documents"] = [{"frontIdImage": ""}]
    padding = size - len(json.dumps(body))
    body["kycData"]["documents"][0]["frontIdImage"] = "A" * padding
    text = json.dumps(body)
    assert len(text) == size
    return text


def test_a_body_over_the_limit_is_refused(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2000

    response = api.client.post("/sandbox/customers", _big_body(2001), content_type="application/json")

    body = assert_error(response, 413, "BAD_REQUEST")
    assert body["message"] == "Request body is larger than the 100 MB limit"
    assert Customer.objects.count() == 0


def test_a_body_at_the_limit_is_accepted(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2000

    response = api.client.post("/sandbox/customers", _big_body(2000), content_type="application/json")

    assert response.status_code == 201, response.json()


def test_a_body_over_the_limit_is_refused_before_authentication(db, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2000

    response = SandboxClient(None).client.post("/sandbox/customers", _big_body(2001), content_type="application/json")

    assert_error(response, 413, "BAD_REQUEST")


def test_a_large_realistic_body_is_accepted(api):
    """Documents carry images: several megabytes go through at the real limit."""
    response = api.client.post("/sandbox/customers", _big_body(5 * 1024 * 1024), content_type="application/json")

    assert response.status_code == 201


# --- Unexpected failures ------------------------------------------------------------------------


def test_unexpected_exception_is_a_500_without_a_stack_trace(api, monkeypatch, caplog):
    def explode(**kwargs):
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr("sandbox.views.customers.customer_create", explode)

    response = api.post("/customers", customer_body())

    body = assert_error(response, 500, "INTERNAL_SERVER_ERROR")
    assert body == {
        "message": "Internal server error",
        "code": "INTERNAL_SERVER_ERROR",
        "details": None,
        "statusCode": 500,
    }
    assert b"Traceback" not in response.content
    assert b"secret internal detail" not in response.content
    # The trace goes to the log, for the sandbox's operator.
    assert "secret internal detail" in caplog.text


def test_a_failed_write_leaves_nothing_behind(api, monkeypatch):
    def explode(**kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("sandbox.services.customers.review_start", lambda *a: explode())

    response = api.post("/customers", customer_body())

    assert_error(response, 500, "INTERNAL_SERVER_ERROR")
    assert Customer.objects.count() == 0


@pytest.mark.parametrize("accept", ["text/html", "L", "application/xml;q=1"])
def test_json_is_the_answer_whatever_the_accept_header_asks(api, accept):
    response = api.client.get("/sandbox/customers", HTTP_ACCEPT=accept)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    anonymous = api.client.__class__().get("/sandbox/customers", HTTP_ACCEPT=accept)
    assert_error(anonymous, 401, "UNAUTHORIZED")
