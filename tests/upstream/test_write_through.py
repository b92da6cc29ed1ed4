"""The one way staff writes go through the API (upstream.write_through): the API first, then the
mirror and the audit event together; a refusal leaves a failure event and nothing else."""

import pytest
from django.db import transaction

from audit.models import AuditEvent
from paymentsapi import ApiTimeout, BadRequest
from upstream.write_through import AuditTarget, write_through_api

pytestmark = pytest.mark.django_db


def refuse(error):
    def call():
        raise error

    return call


def test_an_api_error_is_audited_under_error_and_raised_and_nothing_is_stored(admin_user):
    stored = []
    with pytest.raises(BadRequest):
        write_through_api(
            actor=admin_user,
            action="thing.update",
            target=AuditTarget("thing", "t-1", {"sections": ["a"]}),
            call=refuse(BadRequest("no", status=400)),
            store=stored.append,
        )

    assert stored == []
    event = AuditEvent.objects.get()
    assert (event.action, event.target_kind, event.target_id, event.outcome) == (
        "thing.update",
        "thing",
        "t-1",
        "failure",
    )
    assert event.details == {"sections": ["a"], "error": "BAD_REQUEST"}


def test_an_error_without_a_code_is_audited_by_its_class(admin_user):
    with pytest.raises(ApiTimeout):
        write_through_api(
            actor=admin_user,
            action="thing.refresh",
            target=AuditTarget("thing", "t-1"),
            call=refuse(ApiTimeout("no answer")),
            store=lambda answer: answer,
        )

    assert AuditEvent.objects.get().details == {"error": "ApiTimeout"}


def test_the_answer_is_stored_and_audited_in_one_transaction(admin_user):
    seen = []

    def store(answer):
        seen.append((answer, transaction.get_connection().in_atomic_block))
        return {"id": "new-1"}

    result = write_through_api(
        actor=admin_user,
        action="thing.create",
        target=AuditTarget("customer", "c-1", {"type": "X"}),
        call=lambda: "the answer",
        store=store,
        stored=lambda row: AuditTarget("thing", row["id"], {"type": "X"}),
    )

    assert result == {"id": "new-1"}
    assert seen == [("the answer", True)]
    event = AuditEvent.objects.get()
    assert (event.target_kind, event.target_id, event.outcome, event.details) == (
        "thing",
        "new-1",
        "success",
        {"type": "X"},
    )


def test_a_failing_store_leaves_no_success_event(admin_user):
    def store(answer):
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_through_api(
            actor=admin_user,
            action="thing.create",
            target=AuditTarget("thing", "t-1"),
            call=lambda: "the answer",
            store=store,
        )

    assert not AuditEvent.objects.exists()
