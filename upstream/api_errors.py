"""What staff read when the Payments API refuses or fails a call: the one map from the
client's errors to words, for every view (and the few services that report per row).

The detail (a socket error, a status, the API's own text of a 5xx) goes to the log, never to
the page: staff learn what happened and what to do, in their words.
"""

import logging

from paymentsapi import (
    ApiConnectionError,
    ApiUnavailable,
    PaymentsApiError,
    RateLimited,
    ServerError,
    TransportError,
    UnexpectedResponse,
)

log = logging.getLogger(__name__)

NOT_REACHED = "The Payments API could not be reached"
PAUSED = "The Payments API has been failing, so the back-office is not calling it for a moment"
BUSY = "The Payments API is busy (too many requests)"
NO_ANSWER = "The Payments API did not answer"
FAILED = "The Payments API had an error"
UNREADABLE = "The Payments API answered with something the back-office cannot read"
IN_FLIGHT = (
    "This is already being sent by another request (a second click, or a colleague): its outcome "
    "shows on the page once it is done. Nothing was sent twice."
)


# The audit log keeps the code of an API error (an event's "error" detail: the API's code, or
# the client's error class where the API gave none); shown in these words, the code on hover.
ERROR_CODE_MESSAGES = {
    "BAD_REQUEST": "The Payments API refused the request as malformed",
    "VALIDATION_ERROR": "The Payments API refused what was sent: a field failed its checks",
    "UNAUTHORIZED": "The Payments API refused the back-office's key",
    "FORBIDDEN": "The Payments API does not allow this",
    "NOT_FOUND": "The Payments API does not know this record",
    "INTERNAL_SERVER_ERROR": FAILED,
    "ServerError": FAILED,
    "RateLimited": BUSY,
    "ApiConnectionError": NOT_REACHED,
    "ApiUnavailable": "The Payments API was unavailable",
    "ApiNoAnswer": NO_ANSWER,
    "ApiTimeout": NO_ANSWER,
    "TransportError": NO_ANSWER,
    "UnexpectedResponse": UNREADABLE,
    "StillUnknown": "An earlier try's outcome could not be read back: nothing was sent again",
}


class NotDone(PaymentsApiError):
    """A write whose answer was lost, and which the back-office then looked up upstream and
    found not done (upstream.write_through's reconciliation): trying again is safe. `.cause` is
    the error of the write."""

    def __init__(self, cause: PaymentsApiError):
        super().__init__(cause.message, status=cause.status, code=cause.code, request_id=cause.request_id)
        self.cause = cause


class StillUnknown(PaymentsApiError):
    """An earlier try of this write lost its answer, and the API could not say now whether it
    was done: nothing was sent again (upstream.write_through's read-back before a write)."""

    def __init__(self, key: str):
        super().__init__(f"The outcome of an earlier try ({key}) could not be read back")


class InFlight(PaymentsApiError):
    """Another request (a second click, a colleague) is carrying out this write and has not
    finished within upstream.claims.WAIT_SECONDS: this one sent nothing."""

    def __init__(self, key: str):
        super().__init__(f"The write {key} is in flight in another request")


def outcome_unknown(error: PaymentsApiError) -> bool:
    """Whether a write that raised `error` may have been done upstream all the same: its answer
    was lost (a timeout, a broken connection, a gateway's 502/503/504), garbled, or a 5xx. Not
    for a call never sent (connection refused, the circuit breaker open), turned away unread
    (429) or refused (4xx)."""
    if isinstance(error, NotDone | ApiConnectionError | RateLimited):
        return False
    if isinstance(error, StillUnknown | InFlight):
        return True
    if isinstance(error, ApiUnavailable) and error.status is None:
        return False  # the open breaker held it back
    return isinstance(error, TransportError | ServerError | UnexpectedResponse)


def api_error_message(error: PaymentsApiError, *, write: bool, repeatable: bool = False) -> str:
    """The staff message for `error`, raised by a call that reads (`write=False`) or that asks
    the API to change something (`write=True`; `repeatable` when sending it again does no harm:
    a DELETE, a write under an idempotency key, a quote that will simply expire).

    A call refused (4xx) shows the API's own reason. A call that was never sent, or that the
    API turned away unread (429), changed nothing. A write whose answer was lost or garbled
    may have gone through: staff are told so, and whether trying again is safe.
    """
    if isinstance(error, NotDone):
        log.warning("A call to the Payments API failed and was not done: %s", error.cause)
        return f"{_what(error.cause)}; the back-office checked with it: this was not done. Try again."
    if isinstance(error, InFlight):
        return IN_FLIGHT
    if isinstance(error, StillUnknown):
        log.warning("A write was not sent again: %s", error)
        return (
            "An earlier try of this may have gone through, and the Payments API could not tell yet: "
            "nothing was sent again. Try again in a minute: the back-office checks before sending."
        )
    if not isinstance(error, TransportError | ServerError | RateLimited | UnexpectedResponse):
        log.info("The Payments API refused a call: %s", error)
        return f"The Payments API refused this: {error.message}"
    log.warning("A call to the Payments API failed: %s", error)
    if isinstance(error, RateLimited):
        return _nothing_changed(BUSY, write=write)
    if isinstance(error, ApiConnectionError):
        return _nothing_changed(NOT_REACHED, write=write)
    if isinstance(error, ApiUnavailable) and error.status is None:
        # No status: the open circuit breaker held the call back, nothing was sent.
        return _nothing_changed(PAUSED, write=write)
    what = _what(error)
    if not write:
        return f"{what}; try again."
    if repeatable:
        return f"{what}, so this may have gone through; trying again is safe."
    return f"{what}, so this may have gone through: refresh (or wait for the next sync) before trying again."


def _what(error: PaymentsApiError) -> str:
    if isinstance(error, UnexpectedResponse):
        return UNREADABLE
    if isinstance(error, TransportError):
        return NO_ANSWER  # a timeout, a broken connection, or 502/503/504 from a gateway
    return FAILED  # a 5xx


def _nothing_changed(what: str, *, write: bool) -> str:
    return f"{what}; nothing was changed. Try again in a minute." if write else f"{what}; try again in a minute."
