"""The one map from the client's errors to what staff read (upstream.api_errors)."""

import logging

import pytest

from paymentsapi import (
    ApiConnectionError,
    ApiTimeout,
    ApiUnavailable,
    BadRequest,
    InternalServerError,
    RateLimited,
    UnexpectedResponse,
    ValidationFailed,
)
from upstream.api_errors import api_error_message

NOT_SENT = "Could not reach the Payments API for POST /quotes: [Errno 111] Connection refused"
TIMED_OUT = "No answer from the Payments API to POST /quotes in time (The read operation timed out)"
MAY_HAVE = "so this may have gone through: refresh (or wait for the next sync) before trying again."

CASES = [
    # (error, read, write, repeatable write)
    (
        ApiConnectionError(NOT_SENT),
        "The Payments API could not be reached; try again in a minute.",
        "The Payments API could not be reached; nothing was changed. Try again in a minute.",
        "The Payments API could not be reached; nothing was changed. Try again in a minute.",
    ),
    (
        ApiUnavailable("The Payments API has been failing; calls pause for 30 s (POST /quotes was not sent)"),
        "The Payments API has been failing, so the back-office is not calling it for a moment; try again in a minute.",
        "The Payments API has been failing, so the back-office is not calling it for a moment; nothing was changed."
        " Try again in a minute.",
        "The Payments API has been failing, so the back-office is not calling it for a moment; nothing was changed."
        " Try again in a minute.",
    ),
    (
        RateLimited("Too many requests", status=429, code="RATE_LIMITED"),
        "The Payments API is busy (too many requests); try again in a minute.",
        "The Payments API is busy (too many requests); nothing was changed. Try again in a minute.",
        "The Payments API is busy (too many requests); nothing was changed. Try again in a minute.",
    ),
    (
        ApiTimeout(TIMED_OUT),
        "The Payments API did not answer; try again.",
        f"The Payments API did not answer, {MAY_HAVE}",
        "The Payments API did not answer, so this may have gone through; trying again is safe.",
    ),
    (
        ApiUnavailable("<html>502 Bad Gateway</html>", status=502),
        "The Payments API did not answer; try again.",
        f"The Payments API did not answer, {MAY_HAVE}",
        "The Payments API did not answer, so this may have gone through; trying again is safe.",
    ),
    (
        InternalServerError("Something broke on our side", status=500),
        "The Payments API had an error; try again.",
        f"The Payments API had an error, {MAY_HAVE}",
        "The Payments API had an error, so this may have gone through; trying again is safe.",
    ),
    (
        UnexpectedResponse("The Payments API answered POST /quotes with a body that is not JSON", status=200),
        "The Payments API answered with something the back-office cannot read; try again.",
        f"The Payments API answered with something the back-office cannot read, {MAY_HAVE}",
        "The Payments API answered with something the back-office cannot read, so this may have gone through;"
        " trying again is safe.",
    ),
]


@pytest.mark.parametrize(("error", "read", "write", "repeatable"), CASES, ids=lambda v: type(v).__name__)
def test_each_failure_in_staff_words(error, read, write, repeatable):
    assert api_error_message(error, write=False) == read
    assert api_error_message(error, write=True) == write
    assert api_error_message(error, write=True, repeatable=True) == repeatable


@pytest.mark.parametrize(
    "error",
    [
        BadRequest("Transaction t-1 is COMPLETED and cannot be cancelled", status=400),
        ValidationFailed("Invalid", details=[{"path": ["email"], "message": "Already used."}]),
    ],
)
def test_a_refusal_shows_the_apis_reason(error):
    assert api_error_message(error, write=True) == f"The Payments API refused this: {error.message}"


def test_the_detail_goes_to_the_log_not_to_the_page(caplog):
    caplog.set_level(logging.INFO, logger="upstream.api_errors")

    message = api_error_message(ApiConnectionError(NOT_SENT), write=True)

    assert "Errno" not in message and "POST /quotes" not in message
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("WARNING", f"A call to the Payments API failed: {NOT_SENT}")
    ]
