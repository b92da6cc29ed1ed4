"""Celery tasks of monitoring: they take ids, call a service, and are safe to run twice."""

import datetime as dt
import logging
import time

from celery import shared_task
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.models import LockHeld, hold_lock
from customers.models import Customer
from payments.models import PaymentAccount, Transaction

from . import backtest as backtests
from .models import Backtest, WatchList
from .screening import _accounts, screen_accounts, screen_addresses, screen_customers, screen_names
from .services import evaluate_transactions, raise_alerts

log = logging.getLogger(__name__)
BATCH = 5000


DUE_BATCH = 200


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def evaluate_due_transactions(budget_seconds: float = 50) -> int:
    """Run the live rules over the transactions the mirror marked as changed (payments'
    upserts set `evaluation_due_at`), oldest first, batch after batch until none is due or the
    budget is spent (beat comes back every MONITORING_EVALUATE_SECONDS). Each mark is cleared
    only if it is still the one evaluated: a change made meanwhile keeps its row due. One run at
    a time; a run that finds another under way leaves it the work. Returns the rows evaluated."""
    deadline = time.monotonic() + budget_seconds
    evaluated = 0
    try:
        with hold_lock("monitoring-evaluate-due", ttl=dt.timedelta(seconds=120)):
            while time.monotonic() < deadline:
                due = Transaction.objects.filter(evaluation_due_at__isnull=False).order_by("evaluation_due_at")
                marks = list(due.values_list("pk", "evaluation_due_at")[:DUE_BATCH])
                if not marks:
                    break
                evaluate_transactions([pk for pk, _at in marks])
                seen = Q()
                for pk, at in marks:
                    seen |= Q(pk=pk, evaluation_due_at=at)
                Transaction.objects.filter(seen).update(evaluation_due_at=None)
                evaluated += len(marks)
    except LockHeld:
        pass
    return evaluated


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def screen_changed_customers(pks: list[int]) -> int:
    return screen_customers(pks)


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def screen_changed_accounts(pks: list[int]) -> int:
    return screen_accounts(pks)


@shared_task(acks_late=True, soft_time_limit=30 * 60, time_limit=31 * 60)
def run_backtest(backtest_pk: int) -> int:
    backtest = Backtest.objects.select_related("version__rule").get(pk=backtest_pk)
    try:
        return backtests.run(backtest).hits
    except Exception as exc:
        log.exception("Backtest %s failed", backtest_pk)
        Backtest.objects.filter(pk=backtest_pk).update(
            status=Backtest.Status.FAILED, error=str(exc)[:300], finished_at=timezone.now()
        )
        raise


@shared_task(acks_late=True, soft_time_limit=60 * 60, time_limit=61 * 60)
def rescreen_mirror(watchlist_pk: int) -> int:
    """Screen every customer name, third-party bank account owner and external wallet of the
    mirror against one list (after its import), in batches, saving the progress."""
    watchlist = WatchList.objects.get(pk=watchlist_pk)
    accounts = PaymentAccount.objects.filter(
        account_type__in=["EXTERNAL_BANK_ACCOUNT", "EXTERNAL_CRYPTO_WALLET"], account_id__isnull=False
    )
    total = Customer.objects.count() + accounts.count()
    WatchList.objects.filter(pk=watchlist_pk).update(
        screening_status="running", screening_done=0, screening_total=total, screening_hits=0
    )
    done = hits = 0
    for model, rows in ((Customer, Customer.objects.all()), (PaymentAccount, accounts)):
        last = 0
        while True:
            batch = list(rows.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True)[:BATCH])
            if not batch:
                break
            last = batch[-1]
            if model is Customer:
                customers = list(Customer.objects.filter(pk__in=batch).values_list("pk", "name"))
                alerts = screen_names(watchlist, customers=customers)
            else:
                owners, wallets = _accounts(PaymentAccount.objects.filter(pk__in=batch))
                alerts = screen_names(watchlist, owners=owners) + screen_addresses(wallets)
            with transaction.atomic():
                hits += len(raise_alerts(alerts))
            done += len(batch)
            WatchList.objects.filter(pk=watchlist_pk).update(screening_done=done, screening_hits=hits)
    WatchList.objects.filter(pk=watchlist_pk).update(screening_status="done", screening_done=total)
    return hits
