"""The four-eyes state machine (payments.services.approval_states): every move from its one
source status, refused from every other one, audited once by the call that made it."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from audit.models import AuditEvent
from payments.models import ApprovalRequest, ApprovalStatus
from payments.services import approval_states as states
from tests.factories import ApprovalRequestFactory, StaffUserFactory

pytestmark = pytest.mark.django_db


def _approve(approval, checker):
    return states.approve(approval, checker=checker)


def _reject(approval, checker):
    return states.reject(approval, checker=checker, reason="Not this customer")


def _withdraw(approval, checker):
    return states.withdraw(approval, maker=approval.maker)


def _expire(approval, checker):
    return states.expire(approval)


def _executed(approval, checker):
    return states.executed(approval, actor=checker, details={"transaction": "tx-1"}, transaction_id="tx-1")


def _failed(approval, checker):
    return states.failed(approval, actor=checker, reason="Refused by the API", details={"error": "BAD"})


def _returned(approval, checker):
    return states.returned(
        approval, actor=checker, reason="The price moved", details={}, requoted_destination_amount=Decimal("1.5")
    )


def _reopen(approval, checker):
    return states.reopen(approval)


CALLS = {
    states.APPROVE: _approve,
    states.REJECT: _reject,
    states.WITHDRAW: _withdraw,
    states.EXPIRE: _expire,
    states.EXECUTED: _executed,
    states.FAILED: _failed,
    states.RETURNED: _returned,
    states.REOPEN: _reopen,
}


def _request(status: str, *, expired: bool = False) -> ApprovalRequest:
    moment = timezone.now() + dt.timedelta(hours=-1 if expired else 1)
    return ApprovalRequestFactory(status=status, expires_at=moment)


def _events() -> list[str]:
    return list(AuditEvent.objects.filter(target_kind="approval_request").values_list("action", flat=True))


def test_every_move_has_a_call():
    assert set(CALLS) == set(states.MOVES)


@pytest.mark.parametrize("move", states.MOVES, ids=lambda move: f"{move.source}-to-{move.target}")
def test_a_move_is_made_from_its_source_once_and_audited_once(move):
    approval = _request(move.source, expired=move is states.EXPIRE)
    checker = StaffUserFactory()

    assert CALLS[move](approval, checker) is True
    assert approval.status == move.target  # the instance reads what the database holds
    assert ApprovalRequest.objects.get(pk=approval.pk).status == move.target
    assert _events() == ([move.action] if move.action else [])
    if move.action:
        event = AuditEvent.objects.get()
        assert event.outcome == move.outcome and event.details["maker"] == approval.maker.get_username()

    # Sent again (a double click, a colleague at once): the row has moved on, nothing happens.
    if move.target != move.source:
        approval.refresh_from_db()
        assert CALLS[move](approval, checker) is False
        assert _events() == ([move.action] if move.action else [])


REFUSED = [
    pytest.param(move, status, id=f"{status}-to-{move.target}")
    for move in states.MOVES
    for status in ApprovalStatus.values
    if status != move.source
]


@pytest.mark.parametrize(("move", "status"), REFUSED)
def test_a_move_is_refused_from_any_other_status(move, status):
    approval = _request(status, expired=move is states.EXPIRE)
    before = ApprovalRequest.objects.values().get(pk=approval.pk)

    assert CALLS[move](approval, StaffUserFactory()) is False
    assert ApprovalRequest.objects.values().get(pk=approval.pk) == before
    assert approval.status == status
    assert _events() == []


@pytest.mark.parametrize("move", [states.APPROVE, states.REJECT, states.WITHDRAW])
def test_a_pending_request_past_its_expiry_takes_no_decision(move):
    approval = _request(ApprovalStatus.PENDING, expired=True)
    assert CALLS[move](approval, StaffUserFactory()) is False
    assert approval.status == ApprovalStatus.PENDING and _events() == []


def test_a_pending_request_within_its_expiry_does_not_expire():
    approval = _request(ApprovalStatus.PENDING)
    assert states.expire(approval) is False
    assert approval.status == ApprovalStatus.PENDING and _events() == []


def test_each_move_writes_its_fields():
    checker = StaffUserFactory()
    approved = _request(ApprovalStatus.PENDING)
    states.approve(approved, checker=checker)
    assert (approved.checker_id, approved.reason) == (checker.pk, "") and approved.decided_at is not None

    states.reopen(approved)
    assert approved.status == ApprovalStatus.PENDING and (approved.checker_id, approved.decided_at) == (None, None)

    rejected = _request(ApprovalStatus.PENDING)
    states.reject(rejected, checker=checker, reason="Not this customer")
    assert (rejected.checker_id, rejected.reason) == (checker.pk, "Not this customer")
    assert AuditEvent.objects.get(action="approval.reject").details["reason"] == "Not this customer"

    executed = _request(ApprovalStatus.APPROVED)
    states.executed(executed, actor=checker, details={"transaction": "tx-9"}, transaction_id="tx-9")
    assert executed.transaction_id == "tx-9"

    returned = _request(ApprovalStatus.APPROVED)
    _returned(returned, checker)
    assert (returned.reason, returned.requoted_destination_amount) == ("The price moved", Decimal("1.5"))

    failed = _request(ApprovalStatus.APPROVED)
    _failed(failed, checker)
    assert failed.reason == "Refused by the API"
    assert AuditEvent.objects.get(action="approval.fail").outcome == AuditEvent.Outcome.FAILURE
