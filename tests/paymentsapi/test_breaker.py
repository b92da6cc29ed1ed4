"""The circuit breaker: a failing upstream is not hammered, and recovery needs no one."""

import time

import httpx
import pytest

from paymentsapi import ApiUnavailable, BadRequest, PaymentsApiClient, ServerError, TransportError, make_breaker

from .conftest import api_error, customer_body, ok


def client_over(handler, *, fail_max=3, reset_timeout=30.0):
    return PaymentsApiClient(
        api_key="k",
        base_url="https://payments.example",
        transport=httpx.MockTransport(handler),
        max_retries=0,
        sleep=lambda _: None,
        breaker=make_breaker(fail_max=fail_max, reset_timeout=reset_timeout),
    )


def test_after_repeated_failures_calls_fail_fast_without_reaching_the_upstream():
    calls = []

    def down(request):
        calls.append(request)
        raise httpx.ConnectError("refused", request=request)

    client = client_over(down, fail_max=3)
    for _ in range(3):
        with pytest.raises(TransportError, match="Could not reach"):
            client.customers.get(customer_id="c-1")
    with pytest.raises(ApiUnavailable, match="calls pause"):
        client.customers.get(customer_id="c-1")
    assert len(calls) == 3
    assert client.breaker.current_state == "open"


def test_4xx_answers_never_open_the_breaker():
    client = client_over(lambda request: api_error(400, "BAD_REQUEST", "no"), fail_max=2)
    for _ in range(5):
        with pytest.raises(BadRequest):
            client.customers.get(customer_id="c-1")
    assert client.breaker.current_state == "closed"


def test_the_breaker_closes_again_after_a_successful_trial():
    state = {"up": False}

    def flaky(request):
        if not state["up"]:
            return api_error(503, "INTERNAL_SERVER_ERROR", "down")
        return ok(customer_body())

    client = client_over(flaky, fail_max=2, reset_timeout=0.05)
    for _ in range(2):
        with pytest.raises(ServerError):
            client.customers.get(customer_id="c-1")
    assert client.breaker.current_state == "open"
    with pytest.raises(ApiUnavailable):
        client.customers.get(customer_id="c-1")
    state["up"] = True
    time.sleep(0.06)
    assert client.customers.get(customer_id="c-1").customer_id
    assert client.breaker.current_state == "closed"
