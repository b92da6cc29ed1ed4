"""One winner for a write that must happen once, decided in the database.

A double click, two colleagues on one request, a resend after a slow answer: each arrives as
its own request, on its own connection, at about the same moment. Each asks `claim(key)`,
where the key names what the write carries out ("approval:12", "quote:<id>:execute", a form's
one-time submission). The request whose row commits first (an INSERT on a unique key, or the
takeover of a claim whose holder died) carries out the write; every other one waits for the
outcome the winner records and reports it, and never writes while the winner is in flight.

    held = claim("quote:42:execute", actor=user)
    if isinstance(held, Outcome):      # another request did it: its result, not audited again
        return Transaction.objects.get(transaction_id=held.result)
    ...the write...; then, in the transaction that stores its answer: done(held, result=...)

The winner ends its claim one of three ways: `done` (what it made, kept for later replays),
`release` (nothing was done for certain: the next request may try), or `unknown` (the answer
was lost: the next holder reads the API back before writing again, `Claim.recheck`). A claim
held past LEASE is taken over as if unknown.
"""

import datetime as dt
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from .api_errors import InFlight
from .models import WriteClaim

T = TypeVar("T")

# Longer than one write can take (the client's tries and a look-up of a lost answer): a claim
# still in flight after it belongs to a request that died.
LEASE = dt.timedelta(minutes=2)
# How long a losing request waits for the winner's outcome before saying it is still running:
# about what a person waits for a page.
WAIT_SECONDS = 20.0
POLL_SECONDS = 0.05


@dataclass(frozen=True)
class Claim:
    """Ours: carry out the write, then end the claim. `recheck`: an earlier try's outcome is
    unknown, so read the API before writing again. `since`: when the first try began."""

    key: str
    holder: str
    recheck: bool
    since: dt.datetime


@dataclass(frozen=True)
class Outcome:
    """The write was done by another request: `result` is what it recorded (an id)."""

    result: str


def claim(key: str, *, actor=None, wait: float = WAIT_SECONDS) -> Claim | Outcome:
    """The write named `key` for this request to carry out (Claim), or the outcome of the
    request that did it (Outcome), waiting up to `wait` seconds for it; InFlight when it is
    still running then. Call it with no transaction open: the claim must commit at once."""
    deadline = time.monotonic() + wait
    while True:
        held = _take(key, actor)
        if held is not None:
            return held
        row = _await(key, deadline)
        if row is None:
            continue  # released: this request may try
        if row.state == WriteClaim.State.DONE:
            return Outcome(row.result)
        if row.state == WriteClaim.State.IN_FLIGHT and row.lease_until > timezone.now():
            raise InFlight(key)
        # Unknown, or its holder died: take it over (and read back first).


def _take(key: str, actor) -> Claim | None:
    holder = uuid.uuid4().hex
    now = timezone.now()
    try:
        with transaction.atomic():
            row = WriteClaim.objects.create(key=key, holder=holder, actor=actor, lease_until=now + LEASE)
        return Claim(key, holder, recheck=False, since=row.created_at)
    except IntegrityError:
        pass
    lapsed = Q(state=WriteClaim.State.UNKNOWN) | Q(state=WriteClaim.State.IN_FLIGHT, lease_until__lte=now)
    taken = WriteClaim.objects.filter(lapsed, key=key).update(
        holder=holder, actor=actor, state=WriteClaim.State.IN_FLIGHT, lease_until=now + LEASE
    )
    if not taken:
        return None
    since = WriteClaim.objects.filter(key=key).values_list("created_at", flat=True).first() or now
    return Claim(key, holder, recheck=True, since=since)


def _await(key: str, deadline: float) -> WriteClaim | None:
    """The claim once it is no longer in flight (None: released), or as it is at the deadline."""
    while True:
        row = WriteClaim.objects.filter(key=key).first()
        if row is None or row.state != WriteClaim.State.IN_FLIGHT or row.lease_until <= timezone.now():
            return row
        if time.monotonic() >= deadline:
            return row
        time.sleep(POLL_SECONDS)


def done(held: Claim, *, result: str = "") -> bool:
    """Record the write as done with `result`; False when the claim is no longer ours (it
    lapsed and another request took it over: that one records the outcome). Call it in the
    transaction that stores the write's answer, so that both commit together."""
    return bool(
        WriteClaim.objects.filter(key=held.key, holder=held.holder, state=WriteClaim.State.IN_FLIGHT).update(
            state=WriteClaim.State.DONE, result=result[:200]
        )
    )


def release(held: Claim) -> None:
    """Nothing was done for certain: the next request may carry out the write."""
    WriteClaim.objects.filter(key=held.key, holder=held.holder, state=WriteClaim.State.IN_FLIGHT).delete()


def unknown(held: Claim) -> None:
    """The write may have been done (its answer was lost): the next holder reads back first."""
    WriteClaim.objects.filter(key=held.key, holder=held.holder, state=WriteClaim.State.IN_FLIGHT).update(
        state=WriteClaim.State.UNKNOWN
    )


def once(key: str, *, actor, do: Callable[[], T], remember: Callable[[T], str], replay: Callable[[str], T]) -> T:
    """A write of the back-office's own, once for `key`: `do()` runs in one transaction with
    the claim's end; a request that lost answers `replay(remember(result))` instead."""
    held = claim(key, actor=actor)
    if isinstance(held, Outcome):
        return replay(held.result)
    try:
        with transaction.atomic():
            result = do()
            done(held, result=remember(result))
    except BaseException:
        release(held)
        raise
    return result


def in_flight(keys) -> list[str]:
    """Which of the writes named `keys` a request is carrying out now (claimed, lease running)."""
    return list(
        WriteClaim.objects.filter(
            key__in=list(keys), state=WriteClaim.State.IN_FLIGHT, lease_until__gt=timezone.now()
        ).values_list("key", flat=True)
    )


def first_tried(key: str) -> dt.datetime | None:
    """When the write named `key` was first tried (None: never): a read-back looks for what
    was made since then."""
    return WriteClaim.objects.filter(key=key).values_list("created_at", flat=True).first()
