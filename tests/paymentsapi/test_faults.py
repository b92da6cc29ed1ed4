"""Fault handling of the client against a scripted upstream (httpx.MockTransport)."""

import json
import logging
from decimal import Decimal

import httpx
import pytest

from paymentsapi import (
    ApiConnectionError,
    ApiTimeout,
    ApiUnavailable,
    BadRequest,
    Forbidden,
    InternalServerError,
    NotFound,
    PaymentsApiError,
    RateLimited,
    ServerError,
    TransportError,
    Unauthorized,
    UnexpectedResponse,
    ValidationFailed,
)
from paymentsapi.errors import FieldError

from .conftest import API_KEY, api_error, customer_body, ok, transaction_body

HTML_PAGE = "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"


def refused(request=None):
    return httpx.ConnectError("[Errno 111] Connection refused")


# --- Retries: what is retried, how often, how long it waits ---------------------------------


def test_500_on_post_customers_is_not_retried(make_client, sleeps):
    client, upstream = make_client(
        api_error(500, "INTERNAL_SERVER_ERROR", "Internal server error"), ok(customer_body())
    )

    with pytest.raises(InternalServerError) as caught:
        client.customers.create(customer_type="INDIVIDUAL", email="a@example.com", first_name="A", last_name="B")

    assert len(upstream.requests) == 1
    assert sleeps == []
    assert caught.value.status == 500
    assert caught.value.code == "INTERNAL_SERVER_ERROR"
    assert str(caught.value) == "500 INTERNAL_SERVER_ERROR: Internal server error"


def test_500_on_get_is_retried_then_raises_after_max_retries(make_client, sleeps):
    client, upstream = make_client(api_error(500, "INTERNAL_SERVER_ERROR", "Internal server error"), max_retries=3)

    with pytest.raises(InternalServerError):
        client.transactions.get(transaction_id="tx-1")

    assert len(upstream.requests) == 4  # the first try and three retries
    assert len(sleeps) == 3


def test_503_then_success_is_retried_once_and_answers_one_result(make_client, sleeps):
    body = customer_body(customerStatus="ACTIVE")
    client, upstream = make_client(api_error(503, "SERVICE_UNAVAILABLE", "Try later"), ok(body))

    customer = client.customers.get(customer_id=body["customerId"])

    assert customer.customer_id == body["customerId"]
    assert len(upstream.requests) == 2
    assert len(sleeps) == 1


def test_backoff_grows_exponentially_with_jitter(make_client, sleeps):
    client, _ = make_client(api_error(503, "X", "down"), max_retries=4)

    with pytest.raises(ApiUnavailable):
        client.customers.list()

    # 0.5, 1, 2, 4 seconds, each shortened by up to a quarter at random.
    assert len(sleeps) == 4
    for attempt, delay in enumerate(sleeps):
        base = 0.5 * 2**attempt
        assert 0.75 * base <= delay <= base


def test_timeout_is_retried_for_a_get_then_raises_api_timeout(make_client, sleeps):
    client, upstream = make_client(httpx.ReadTimeout("timed out"))

    with pytest.raises(ApiTimeout) as caught:
        client.payment_accounts.get(payment_account_id="pa-1")

    assert len(upstream.requests) == 3
    assert len(sleeps) == 2
    assert isinstance(caught.value, TransportError)
    assert "GET /v1/payment-accounts/pa-1" not in str(caught.value)  # the path, relative to the base URL
    assert "GET /payment-accounts/pa-1" in str(caught.value)


def test_connection_refused_raises_api_connection_error(make_client, sleeps):
    client, upstream = make_client(refused())

    with pytest.raises(ApiConnectionError) as caught:
        client.payment_accounts.list(customer_id="c-1")

    assert len(upstream.requests) == 3
    assert "Connection refused" in str(caught.value)
    assert isinstance(caught.value, TransportError)
    assert isinstance(caught.value, PaymentsApiError)


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (httpx.ConnectError("[Errno 111] Connection refused"), "ApiConnectionError"),
        (httpx.ConnectTimeout("connect timed out"), "ApiConnectionError"),
        (httpx.ReadError("[Errno 104] Connection reset by peer"), "ApiNoAnswer"),
        (httpx.RemoteProtocolError("Server disconnected without sending a response."), "ApiNoAnswer"),
        (httpx.WriteError("broken pipe"), "ApiNoAnswer"),
        (httpx.ReadTimeout("timed out"), "ApiTimeout"),
    ],
)
def test_only_a_connection_never_made_says_the_request_was_not_sent(make_client, sleeps, exc, expected):
    """A write whose connection broke after sending may have been done: it must not be reported
    as "never sent" (the back-office would then tell staff that nothing was changed)."""
    client, _upstream = make_client(exc)
    with pytest.raises(PaymentsApiError) as caught:
        client.customers.create(customer_type="INDIVIDUAL", email="a@example.com", first_name="A", last_name="B")
    assert type(caught.value).__name__ == expected
    assert isinstance(caught.value, TransportError)


def test_connection_refused_then_success_for_delete(make_client, sleeps):
    client, upstream = make_client(refused(), ok({"message": "Transaction cancelled"}))

    result = client.transactions.cancel(transaction_id="tx-1")

    assert result.message == "Transaction cancelled"
    assert [r.method for r in upstream.requests] == ["DELETE", "DELETE"]


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda c: c.customers.update(customer_id="c-1", kyc_data={"legalFirstName": "A"}), id="PATCH"),
        pytest.param(
            lambda c: c.automation_rules.update(
                rule_id="r-1",
                name="n",
                customer_id="c-1",
                transaction_template={"source": {}},
                trigger={"cronSchedule": "0 * * * *"},
            ),
            id="PUT",
        ),
        pytest.param(
            lambda c: c.customers.create(customer_type="BUSINESS", email="b@x.io", business_name="B"), id="POST"
        ),
        pytest.param(
            lambda c: c.quotes.create(customer_id="c", source={"sourceAmount": Decimal(1)}, destination={}), id="quote"
        ),
        pytest.param(lambda c: c.webhooks.create(url="https://x.io/h", events=["customer.update"]), id="hook"),
    ],
)
@pytest.mark.parametrize(
    "fault",
    [
        pytest.param(lambda: api_error(503, "X", "down"), id="503"),
        pytest.param(lambda: httpx.ReadTimeout("timed out"), id="timeout"),
        pytest.param(refused, id="refused"),
        pytest.param(lambda: api_error(429, "X", "slow down", headers={"Retry-After": "1"}), id="429"),
    ],
)
def test_writes_without_idempotency_key_are_never_retried(make_client, sleeps, call, fault):
    client, upstream = make_client(fault(), ok(customer_body()))

    with pytest.raises(PaymentsApiError):
        call(client)

    assert len(upstream.requests) == 1
    assert sleeps == []


def test_429_honours_retry_after_seconds(make_client, sleeps):
    client, upstream = make_client(
        api_error(429, "RATE_LIMITED", "Too many requests", headers={"Retry-After": "7"}), ok(customer_body())
    )

    client.customers.get(customer_id="c-1")

    assert sleeps == [7.0]
    assert len(upstream.requests) == 2


def test_retry_after_is_capped(make_client, sleeps):
    client, _ = make_client(
        api_error(429, "RATE_LIMITED", "Too many", headers={"Retry-After": "3600"}),
        ok(customer_body()),
        max_retry_after=5,
    )

    client.customers.get(customer_id="c-1")

    assert sleeps == [5]


def test_unreadable_retry_after_falls_back_to_backoff(make_client, sleeps):
    client, _ = make_client(
        api_error(429, "RATE_LIMITED", "Too many", headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}),
        ok(customer_body()),
    )

    client.customers.get(customer_id="c-1")

    assert len(sleeps) == 1 and 0.375 <= sleeps[0] <= 0.5


def test_429_after_all_retries_raises_rate_limited_with_retry_after(make_client, sleeps):
    client, upstream = make_client(httpx.Response(429, headers={"Retry-After": "2"}, text="slow down"))

    with pytest.raises(RateLimited) as caught:
        client.customers.list()

    assert caught.value.retry_after == 2.0
    assert caught.value.status == 429
    assert sleeps == [2.0, 2.0]
    assert len(upstream.requests) == 3


def test_max_retries_zero_means_one_try(make_client, sleeps):
    client, upstream = make_client(api_error(503, "X", "down"), max_retries=0)

    with pytest.raises(ApiUnavailable):
        client.customers.get(customer_id="c-1")

    assert len(upstream.requests) == 1


# --- Idempotency of POST /transactions -------------------------------------------------------


def test_create_transaction_retried_after_timeout_sends_the_same_idempotency_key(make_client, sleeps):
    body = transaction_body()
    client, upstream = make_client(httpx.ReadTimeout("timed out"), httpx.ReadTimeout("timed out"), ok(body, 201))

    transaction = client.transactions.create(quote_id=body["quoteId"])

    assert transaction.transaction_id == body["transactionId"]
    keys = [request.headers["x-idempotency-key"] for request in upstream.requests]
    assert len(keys) == 3
    assert len(set(keys)) == 1 and keys[0]
    assert [json.loads(r.content) for r in upstream.requests] == [{"quoteId": body["quoteId"]}] * 3


def test_create_transaction_uses_the_callers_key_on_every_try(make_client, sleeps):
    client, upstream = make_client(api_error(502, "X", "bad gateway"), ok(transaction_body()))

    client.transactions.create(quote_id="q-1", correlation_id="order-7", idempotency_key="order-7-try")

    assert [r.headers["x-idempotency-key"] for r in upstream.requests] == ["order-7-try", "order-7-try"]
    assert json.loads(upstream.requests[0].content) == {"quoteId": "q-1", "correlationId": "order-7"}


def test_each_create_transaction_call_gets_its_own_key(make_client):
    client, upstream = make_client(ok(transaction_body()))

    client.transactions.create(quote_id="q-1")
    client.transactions.create(quote_id="q-2")

    first, second = (r.headers["x-idempotency-key"] for r in upstream.requests)
    assert first != second


def test_create_transaction_is_not_retried_on_a_400(make_client, sleeps):
    client, upstream = make_client(api_error(400, "BAD_REQUEST", "Quote q-1 has expired"))

    with pytest.raises(BadRequest, match="Quote q-1 has expired"):
        client.transactions.create(quote_id="q-1")

    assert len(upstream.requests) == 1


# --- Error mapping ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code", "cls"),
    [
        (400, "BAD_REQUEST", BadRequest),
        (400, "VALIDATION_ERROR", ValidationFailed),
        (401, "UNAUTHORIZED", Unauthorized),
        (403, "FORBIDDEN", Forbidden),
        (404, "NOT_FOUND", NotFound),
        (500, "INTERNAL_SERVER_ERROR", InternalServerError),
    ],
)
def test_every_error_code_of_the_spec_has_its_class(make_client, status, code, cls):
    client, _ = make_client(api_error(status, code, f"message of {code}", details={"hint": 1}), max_retries=0)

    with pytest.raises(PaymentsApiError) as caught:
        client.customers.get(customer_id="c-1")

    error = caught.value
    assert type(error) is cls
    assert (error.status, error.code, error.message, error.details) == (status, code, f"message of {code}", {"hint": 1})
    assert str(error) == f"{status} {code}: message of {code}"


@pytest.mark.parametrize(
    ("status", "cls"),
    [(409, PaymentsApiError), (422, PaymentsApiError), (418, PaymentsApiError), (507, ServerError), (501, ServerError)],
)
def test_unknown_codes_map_by_status_class(make_client, status, cls):
    client, _ = make_client(api_error(status, "SOMETHING_NEW", "new"), max_retries=0)

    with pytest.raises(PaymentsApiError) as caught:
        client.customers.get(customer_id="c-1")

    assert type(caught.value) is cls
    assert caught.value.code == "SOMETHING_NEW"
    assert caught.value.status == status


def test_validation_error_details_become_field_errors(make_client):
    details = [
        {"path": ["kycData", "nationalIdNumber"], "message": "must be sent together", "location": "body"},
        {"path": ["kycData", "documents", 0, "type"], "message": "'X' is not allowed", "location": "body"},
        {"path": ["pageSize"], "message": "Must be from 1 to 100", "location": "query"},
        {"path": [], "message": "Whole request is wrong", "location": "body"},
    ]
    client, _ = make_client(api_error(400, "VALIDATION_ERROR", "Validation failed", details=details))

    with pytest.raises(ValidationFailed) as caught:
        client.customers.update(customer_id="c-1", kyc_data={"nationalIdType": "ssn"})

    error = caught.value
    assert error.field_errors == [
        FieldError(path=("kycData", "nationalIdNumber"), message="must be sent together", location="body"),
        FieldError(path=("kycData", "documents", 0, "type"), message="'X' is not allowed", location="body"),
        FieldError(path=("pageSize",), message="Must be from 1 to 100", location="query"),
        FieldError(path=(), message="Whole request is wrong", location="body"),
    ]
    assert error.messages_by_field() == {
        "kycData.nationalIdNumber": ["must be sent together"],
        "kycData.documents.0.type": ["'X' is not allowed"],
        "pageSize": ["Must be from 1 to 100"],
        "": ["Whole request is wrong"],
    }


def test_validation_error_with_odd_details_still_raises(make_client):
    client, _ = make_client(api_error(400, "VALIDATION_ERROR", "Validation failed", details="not a list"))

    with pytest.raises(ValidationFailed) as caught:
        client.customers.create(customer_type="INDIVIDUAL", email="x")

    assert caught.value.field_errors == []


def test_malformed_json_error_body_names_the_status(make_client):
    response = httpx.Response(400, content=b'{"message": "Quote exp', headers={"Content-Type": "application/json"})
    client, _ = make_client(response)

    with pytest.raises(BadRequest) as caught:
        client.quotes.create(customer_id="c", source={}, destination={})

    assert caught.value.status == 400
    assert "HTTP 400" in str(caught.value)
    assert "application/json" in str(caught.value)


def test_html_error_page_gives_a_clear_error(make_client):
    client, _ = make_client(httpx.Response(502, text=HTML_PAGE, headers={"Content-Type": "text/html"}))

    with pytest.raises(ApiUnavailable) as caught:
        client.customers.create(customer_type="INDIVIDUAL", email="a@example.com")

    message = str(caught.value)
    assert caught.value.status == 502
    assert "HTTP 502 Bad Gateway" in message
    assert "text/html" in message
    assert "<html>" not in message


def test_html_404_page_is_not_found(make_client):
    client, _ = make_client(httpx.Response(404, text="<h1>Not Found</h1>", headers={"Content-Type": "text/html"}))

    with pytest.raises(NotFound, match="HTTP 404"):
        client.customers.get(customer_id="c-1")


def test_success_with_a_body_that_is_not_json(make_client):
    client, _ = make_client(httpx.Response(200, text="<html>login</html>", headers={"Content-Type": "text/html"}))

    with pytest.raises(UnexpectedResponse, match="not JSON"):
        client.customers.get(customer_id="c-1")


def test_success_with_a_body_of_another_shape(make_client):
    client, _ = make_client(ok({"customerId": "c-1"}))  # no customerStatus

    with pytest.raises(UnexpectedResponse, match="customerStatus"):
        client.customers.get(customer_id="c-1")


def test_a_list_answer_without_its_items(make_client):
    client, _ = make_client(ok({"items": []}))

    with pytest.raises(UnexpectedResponse, match="customers"):
        client.customers.list()


# --- Secrets: never in logs, never in exception text ------------------------------------------


def test_the_api_key_is_sent_as_bearer(make_client):
    client, upstream = make_client(ok(customer_body()))

    client.customers.get(customer_id="c-1")

    assert upstream.requests[0].headers["Authorization"] == f"Bearer {API_KEY}"


@pytest.mark.parametrize(
    "answers",
    [
        pytest.param([ok(customer_body())], id="success"),
        pytest.param([api_error(401, "UNAUTHORIZED", f"Invalid API key {API_KEY}")], id="401-echoing-the-key"),
        pytest.param(
            [api_error(400, "VALIDATION_ERROR", "Invalid", details=[{"path": ["k"], "message": f"bad {API_KEY}"}])],
            id="400-details-echoing-the-key",
        ),
        pytest.param([httpx.ReadTimeout(f"timeout with {API_KEY}")], id="timeout"),
        pytest.param([httpx.ConnectError(f"refused Bearer {API_KEY}")], id="refused"),
        pytest.param([httpx.Response(500, text=f"<pre>Authorization: Bearer {API_KEY}</pre>")], id="html-500"),
    ],
)
def test_the_api_key_is_never_logged_nor_in_exception_text(make_client, caplog, answers):
    client, _ = make_client(*answers)
    caplog.set_level(logging.DEBUG)

    try:
        client.customers.create(customer_type="INDIVIDUAL", email="secret-person@example.com", first_name="Ada")
    except PaymentsApiError as error:
        assert API_KEY not in str(error)
        assert API_KEY not in repr(error)
        assert API_KEY not in error.message
        assert API_KEY not in repr(error.details)
        assert error.__cause__ is None

    assert caplog.records, "the call is logged"
    assert API_KEY not in caplog.text
    assert "Authorization" not in caplog.text
    # Bodies are not logged either: they carry personal data.
    assert "secret-person@example.com" not in caplog.text
    assert API_KEY not in repr(client)


def test_a_call_is_logged_with_method_path_status_duration_and_request_id(make_client, caplog):
    client, upstream = make_client(ok(customer_body()), request_id=lambda: "req-12345678")
    caplog.set_level(logging.INFO, logger="paymentsapi")

    client.customers.get(customer_id="c-1")

    records = [r for r in caplog.records if r.name == "paymentsapi"]
    assert len(records) == 1
    message = records[0].getMessage()
    assert message.startswith("GET /customer/c-1 -> 200 in ")
    assert " ms " in message
    assert "request id req-12345678" in message
    assert upstream.requests[0].headers["X-Request-ID"] == "req-12345678"


def test_no_request_id_header_when_the_caller_has_none(make_client):
    client, upstream = make_client(ok(customer_body()))

    client.customers.get(customer_id="c-1")

    assert "X-Request-ID" not in upstream.requests[0].headers


def test_failed_tries_are_logged_as_warnings(make_client, caplog):
    client, _ = make_client(api_error(503, "X", "down"), httpx.ReadTimeout("t"), ok(customer_body()))
    caplog.set_level(logging.INFO, logger="paymentsapi")

    client.customers.get(customer_id="c-1")

    outcomes = [(r.levelname, r.getMessage().split(" in ")[0]) for r in caplog.records if r.name == "paymentsapi"]
    assert outcomes == [
        ("WARNING", "GET /customer/c-1 -> 503"),
        ("WARNING", "GET /customer/c-1 -> ApiTimeout"),
        ("INFO", "GET /customer/c-1 -> 200"),
    ]


# --- Timeouts and settings -------------------------------------------------------------------


def test_every_call_carries_the_timeout(make_client):
    client, upstream = make_client(ok(customer_body()), timeout=2.5)

    client.customers.get(customer_id="c-1")

    assert upstream.requests[0].extensions["timeout"] == {"connect": 2.5, "read": 2.5, "write": 2.5, "pool": 2.5}


@pytest.mark.parametrize("bad_id", ["../customers", "a/b", "", ".."])
def test_ids_cannot_reach_another_path(make_client, bad_id):
    client, upstream = make_client(ok(customer_body()))

    with pytest.raises(ValueError):
        client.customers.get(customer_id=bad_id)

    assert upstream.requests == []
