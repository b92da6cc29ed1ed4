"""Celery tasks of monitoring: they take ids, call a service, and are safe to run twice."""

import logging

from celery import shared_task
from django.db import transaction
from django.utils import timezone

from customers.models import Customer
from payments.models import PaymentAccount

from . import backtest as backtests
from .models import Backtest, WatchList
from .screening import _accounts, screen_accounts, screen_addresses, screen_customers, screen_names
from .services import evaluate_transactions, raise_alerts

log = logging.getLogger(__name__)
BATCH = 5000


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def evaluate_changed_transactions(pks: list[int]) -> int:
    """Run the live rules over transactions the mirror just wrote."""
    return evaluate_transactions(pks)


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
