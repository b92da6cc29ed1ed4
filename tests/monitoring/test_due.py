"""A changed transaction reaches the live rules through a mark the upsert writes in its own
UPDATE: no message from the webhook drain, nothing lost when the broker is away, each mark
cleared only once the change it stands for was evaluated."""

import datetime as dt

import pytest
from django.conf import settings
from django.utils import timezone

from backoffice.celery import app as celery_app
from core.models import hold_lock
from monitoring import tasks
from monitoring.models import Alert, RuleKind
from payments.models import Transaction
from payments.upserts import transactions_upsert
from paymentsapi import types as api
from tests.monitoring.helpers import customer, live_rule, tx
from upstream.mirrored import Source

pytestmark = pytest.mark.django_db


def _item(someone, transaction_id: str, amount: str, *, updated: dt.datetime) -> api.Transaction:
    return api.Transaction.model_validate(
        {
            "transactionId": transaction_id,
            "customerId": someone.customer_id,
            "transactionStatus": "AWAITING_TRANSFER",
            "source": {"sourceCurrency": {"label": "USD"}, "sourcePaymentMethod": "ACH", "sourceAmount": amount},
            "destination": {"destinationCurrency": {"label": "USDC"}, "destinationPaymentMethod": "BASE"},
            "createdAt": updated.isoformat(),
            "updatedAt": updated.isoformat(),
        }
    )


def test_an_upsert_marks_the_rows_it_changed_and_no_other(django_capture_on_commit_callbacks):
    someone, now = customer(), dt.datetime.now(dt.UTC)
    resting = tx(someone, 10)
    with django_capture_on_commit_callbacks(execute=False):
        transactions_upsert(items=[_item(someone, "tx-due-1", "25.00", updated=now)], seen_by=Source.WEBHOOK)
    first = Transaction.objects.get(transaction_id="tx-due-1").evaluation_due_at
    assert first is not None
    assert Transaction.objects.get(pk=resting.pk).evaluation_due_at is None

    # The same copy again changes nothing, so it is no new mark; a newer copy is.
    with django_capture_on_commit_callbacks(execute=False):
        transactions_upsert(items=[_item(someone, "tx-due-1", "25.00", updated=now)], seen_by=Source.WEBHOOK)
    assert Transaction.objects.get(transaction_id="tx-due-1").evaluation_due_at == first
    later = now + dt.timedelta(seconds=5)
    with django_capture_on_commit_callbacks(execute=False):
        transactions_upsert(items=[_item(someone, "tx-due-1", "26.00", updated=later)], seen_by=Source.WEBHOOK)
    assert Transaction.objects.get(transaction_id="tx-due-1").evaluation_due_at > first


def test_with_a_broker_the_drain_sends_nothing_and_a_broker_away_loses_no_evaluation(
    django_capture_on_commit_callbacks,
):
    """The webhook drain's share: no broker message for a transaction, so none to lose when the
    broker is away. The change and its mark commit together, and the worker's next run raises
    the alert."""
    live_rule(RuleKind.LARGE_TRANSFER, min_usd="20")
    someone = customer()
    celery_app.conf.task_always_eager = False  # the autouse _eager_celery fixture restores it
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        transactions_upsert(
            items=[_item(someone, "tx-away-1", "25.00", updated=dt.datetime.now(dt.UTC))], seen_by=Source.WEBHOOK
        )
    assert callbacks == []
    assert not Alert.objects.exists()
    assert Transaction.objects.get(transaction_id="tx-away-1").evaluation_due_at is not None

    assert tasks.evaluate_due_transactions() == 1
    assert Alert.objects.get().sentence == "A transfer of 25 USD, at or above 20 USD."
    assert not Transaction.objects.filter(evaluation_due_at__isnull=False).exists()


def test_without_a_broker_the_change_is_evaluated_once_it_commits(django_capture_on_commit_callbacks):
    live_rule(RuleKind.LARGE_TRANSFER, min_usd="20")
    someone = customer()
    with django_capture_on_commit_callbacks(execute=True):
        transactions_upsert(
            items=[_item(someone, "tx-eager-1", "25.00", updated=dt.datetime.now(dt.UTC))], seen_by=Source.WEBHOOK
        )
    assert Alert.objects.count() == 1
    assert Transaction.objects.get(transaction_id="tx-eager-1").evaluation_due_at is None


def test_a_change_made_during_the_evaluation_stays_due(monkeypatch):
    """The mark cleared is the one read: a newer change that lands while the rules run keeps
    its row due for the next run, which then evaluates that change too."""
    live_rule(RuleKind.LARGE_TRANSFER, min_usd="20")
    someone = customer()
    first, second = tx(someone, 30), tx(someone, 40)
    Transaction.objects.filter(pk__in=[first.pk, second.pk]).update(evaluation_due_at=timezone.now())
    evaluated, real = [], tasks.evaluate_transactions

    def evaluate_while_a_change_lands(pks):
        evaluated.append(sorted(pks))
        if len(evaluated) == 1:
            Transaction.objects.filter(pk=second.pk).update(evaluation_due_at=timezone.now())
        return real(pks)

    monkeypatch.setattr(tasks, "evaluate_transactions", evaluate_while_a_change_lands)
    assert tasks.evaluate_due_transactions() == 3
    assert evaluated == [sorted([first.pk, second.pk]), [second.pk]]
    assert not Transaction.objects.filter(evaluation_due_at__isnull=False).exists()
    assert Alert.objects.count() == 2


def test_one_run_at_a_time_and_the_marks_wait_for_the_next():
    live_rule(RuleKind.LARGE_TRANSFER, min_usd="20")
    waiting = tx(customer(), 30)
    Transaction.objects.filter(pk=waiting.pk).update(evaluation_due_at=timezone.now())
    with hold_lock("monitoring-evaluate-due", ttl=dt.timedelta(seconds=60)):
        assert tasks.evaluate_due_transactions() == 0
    assert Transaction.objects.get(pk=waiting.pk).evaluation_due_at is not None
    assert tasks.evaluate_due_transactions() == 1
    assert Alert.objects.count() == 1


def test_beat_runs_the_evaluation_every_few_seconds():
    entry = settings.CELERY_BEAT_SCHEDULE["evaluate-due-transactions"]
    assert entry["task"] == tasks.evaluate_due_transactions.name
    assert 0 < float(entry["schedule"]) <= 30
