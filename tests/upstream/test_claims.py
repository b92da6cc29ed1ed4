"""One winner for a write that must happen once (upstream.claims), and write_through_api's use of
it: the states of a claim one request after another. What happens when requests truly overlap
is in tests/races/ (on PostgreSQL)."""

import datetime as dt

import pytest
from django.utils import timezone

from audit.models import AuditEvent
from paymentsapi import ApiTimeout, BadRequest
from upstream import claims
from upstream.api_errors import InFlight, StillUnknown
from upstream.models import WriteClaim
from upstream.write_through import AuditTarget, CannotTell, Once, write_through_api

pytestmark = pytest.mark.django_db


def test_a_claim_is_held_by_one_request_until_it_ends():
    held = claims.claim("thing:1")
    assert isinstance(held, claims.Claim) and not held.recheck
    with pytest.raises(InFlight):
        claims.claim("thing:1", wait=0.1)
    assert claims.done(held, result="made-1")
    assert claims.claim("thing:1") == claims.Outcome("made-1")


def test_a_released_claim_is_taken_afresh_and_an_unknown_one_is_read_back_first():
    claims.release(claims.claim("thing:1"))
    assert not WriteClaim.objects.exists()
    again = claims.claim("thing:1")
    assert not again.recheck
    claims.unknown(again)
    after = claims.claim("thing:1")
    assert after.recheck and after.since == again.since


def test_a_claim_past_its_lease_is_taken_over_and_the_old_holder_no_longer_ends_it():
    old = claims.claim("thing:1")
    WriteClaim.objects.update(lease_until=timezone.now() - dt.timedelta(seconds=1))
    new = claims.claim("thing:1", wait=0)
    assert new.recheck and new.holder != old.holder
    assert not claims.done(old, result="late")
    claims.release(old)  # not its claim any more: nothing happens
    assert claims.done(new, result="made")
    assert WriteClaim.objects.get().result == "made"


def test_a_local_write_once_answers_a_resend_with_the_first_result():
    made = []

    def do():
        made.append(len(made) + 1)
        return made[-1]

    first = claims.once("note:1", actor=None, do=do, remember=str, replay=int)
    again = claims.once("note:1", actor=None, do=do, remember=str, replay=int)
    assert (first, again, made) == (1, 1, [1])


def _write(admin_user, call, *, reconcile=None, stored=None):
    return write_through_api(
        actor=admin_user,
        action="thing.create",
        target=AuditTarget("thing", ""),
        call=call,
        store=lambda answer: (stored if stored is not None else []).append(answer) or answer,
        stored=lambda answer: AuditTarget("thing", answer),
        reconcile=reconcile,
        once=Once("thing.create:1", remember=str, replay=lambda made: f"replayed {made}"),
    )


def test_once_a_write_is_done_a_resend_replays_it_without_a_call_or_an_audit(admin_user):
    calls = []
    assert _write(admin_user, lambda: calls.append(1) or "t-1") == "t-1"
    assert _write(admin_user, lambda: calls.append(1) or "t-2") == "replayed t-1"
    assert calls == [1]
    assert AuditEvent.objects.filter(outcome="success").count() == 1


def test_a_refused_write_frees_its_claim_for_the_corrected_resend(admin_user):
    def refused():
        raise BadRequest("no", status=400)

    with pytest.raises(BadRequest):
        _write(admin_user, refused)
    assert not WriteClaim.objects.exists()
    assert _write(admin_user, lambda: "t-1") == "t-1"


def test_after_a_lost_answer_the_next_try_reads_back_before_writing(admin_user):
    def lost():
        raise ApiTimeout("no answer")

    def cannot_tell():
        raise CannotTell("too many pages")

    with pytest.raises(ApiTimeout):
        _write(admin_user, lost, reconcile=cannot_tell)
    assert WriteClaim.objects.get().state == WriteClaim.State.UNKNOWN

    # The API still cannot tell: nothing is sent again, and the claim stays unknown.
    calls = []
    with pytest.raises(StillUnknown):
        _write(admin_user, lambda: calls.append(1) or "t-2", reconcile=cannot_tell)
    assert calls == [] and WriteClaim.objects.get().state == WriteClaim.State.UNKNOWN
    assert AuditEvent.objects.filter(outcome="failure").latest("id").details == {
        "error": "StillUnknown",
        "checked": "unknown",
    }

    # Now it finds what the first try made: stored and audited once, nothing sent.
    assert _write(admin_user, lambda: calls.append(1) or "t-2", reconcile=lambda: "t-1") == "t-1"
    assert calls == []
    success = AuditEvent.objects.get(outcome="success")
    assert (success.target_id, success.details) == ("t-1", {"reconciled": "earlier try"})


def test_after_a_lost_answer_found_not_done_the_next_try_writes(admin_user):
    def lost():
        raise ApiTimeout("no answer")

    def cannot_tell():
        raise CannotTell("no")

    with pytest.raises(ApiTimeout):
        _write(admin_user, lost, reconcile=cannot_tell)
    assert _write(admin_user, lambda: "t-2", reconcile=lambda: None) == "t-2"
    assert WriteClaim.objects.get().result == "t-2"


def test_done_claims_are_pruned_after_a_month_and_open_ones_never():
    from upstream.tasks import KEEP_DONE, prune_write_claims

    for key in ("old-done", "new-done", "old-unknown", "old-in-flight"):
        held = claims.claim(key)
        if "done" in key:
            claims.done(held, result=key)
        elif "unknown" in key:
            claims.unknown(held)
    long_ago = timezone.now() - KEEP_DONE - dt.timedelta(hours=1)
    WriteClaim.objects.exclude(key="new-done").update(created_at=long_ago)

    assert prune_write_claims() == 1
    assert sorted(WriteClaim.objects.values_list("key", flat=True)) == ["new-done", "old-in-flight", "old-unknown"]
    assert claims.claim("new-done") == claims.Outcome("new-done")
