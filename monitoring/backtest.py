"""A backtest: what one rule version would have raised over the mirror's history, computed set
by set in SQL (window functions for the windowed kinds) rather than transaction by transaction.

It gives the alerts the live evaluation would have raised (the same keys: one per transaction,
or customer and window period; a rapid in-and-out's per outgoing transfer, where the live key
also names the onramp), how many customers they concern, and a sample. The work goes by ranges
of customers so that a large history shows its progress; on PostgreSQL each range is read from
the covering index tx_customer_monitoring alone, already in (customer, time) order, so a range
costs its own rows, with no sort and no read of the table. Windows are measured to the second.
"""

import datetime as dt
import time
from decimal import Decimal

from django.db import connection
from django.db.models import Count, F, Max, Min, OuterRef, Q, Subquery
from django.utils import timezone

from customers.models import Customer
from payments.models import PaymentAccount, Transaction
from payments.rails import CHAINS, RAILS

from .detection import bucket
from .models import Backtest, RuleKind
from .rules import NOT_COUNTED, band_floor, threshold_of, usd

SAMPLE = 10
CHUNKS = 20


def _window_sql(window_hours: int) -> tuple[str, str]:
    """(the row's time as epoch seconds, the window clause) for this database. PostgreSQL
    orders by the timestamp itself (the tx_customer_monitoring index gives that order); SQLite by its
    seconds, to the second."""
    span = window_hours * 3600 - 0.001
    if connection.vendor == "postgresql":
        return (
            "EXTRACT(EPOCH FROM created_upstream_at)",
            f"ORDER BY created_upstream_at RANGE BETWEEN INTERVAL '{span} seconds' PRECEDING AND CURRENT ROW",
        )
    epoch = "CAST(strftime('%%s', created_upstream_at) AS REAL)"
    return epoch, f"ORDER BY {epoch} RANGE BETWEEN {span} PRECEDING AND CURRENT ROW"


def _in(values) -> str:
    return ", ".join(["%s"] * len(values))


def _windowed(
    lo: int, hi: int, *, window_hours: int, band: tuple | None, having: str, args: list, narrow: str = ""
) -> list[tuple]:
    """(customer pk, epoch seconds, transaction id, count, total USD) of the rows where the
    window ending at them meets `having` (over cnt and total). `narrow` (SQL over customer_id,
    its values last in `args`) leaves out the customers who cannot meet it, before the sort."""
    epoch, frame = _window_sql(window_hours)
    in_band = "AND usd_value >= CAST(%s AS NUMERIC) AND usd_value < CAST(%s AS NUMERIC)" if band else ""
    sql = f"""
        SELECT customer_id, ts, transaction_id, cnt, total FROM (
            SELECT customer_id, transaction_id, {epoch} AS ts,
                   COUNT(*) OVER w AS cnt, SUM(usd_value) OVER w AS total
            FROM payments_transaction
            WHERE customer_id >= %s AND customer_id < %s AND status NOT IN ({_in(NOT_COUNTED)})
                  {in_band} {narrow}
            WINDOW w AS (PARTITION BY customer_id {frame})
        ) AS windows WHERE {having}
    """  # noqa: S608 (the interpolated parts are the code's own, the values are parameters)
    params = [lo, hi, *NOT_COUNTED, *(band or ()), *args]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _velocity_rows(params, lo, hi) -> list[tuple]:
    """A window can only hold more than N transactions, or more than X USD, for a customer who
    has that many, or that much, in all: the others are left out by one GROUP BY first, and
    only the few left are sorted and windowed."""
    checks, totals, args = [], [], []
    if params.get("max_count") is not None:
        checks.append("cnt > %s")
        totals.append("COUNT(*) > %s")
        args.append(params["max_count"])
    if params.get("max_usd") is not None:
        checks.append("total > CAST(%s AS NUMERIC)")
        totals.append("SUM(usd_value) > CAST(%s AS NUMERIC)")
        args.append(Decimal(params["max_usd"]))
    narrow = f"""AND customer_id IN (
        SELECT customer_id FROM payments_transaction
        WHERE customer_id >= %s AND customer_id < %s AND status NOT IN ({_in(NOT_COUNTED)})
        GROUP BY customer_id HAVING {" OR ".join(totals)})"""  # noqa: S608 (the code's own SQL)
    return _windowed(
        lo,
        hi,
        window_hours=params["window_hours"],
        band=None,
        having=" OR ".join(checks),
        args=[lo, hi, *NOT_COUNTED, *args, *args],
        narrow=narrow,
    )


def _hits_windowed(kind, params, lo, hi) -> dict:
    window = params["window_hours"]
    if kind == RuleKind.VELOCITY:
        rows = _velocity_rows(params, lo, hi)
    else:
        threshold = threshold_of(params)
        rows = _windowed(
            lo,
            hi,
            window_hours=window,
            band=(band_floor(params), threshold),
            having="cnt >= %s AND total >= CAST(%s AS NUMERIC)",
            args=[params["min_count"], threshold],
        )
    hits = {}
    for customer_id, ts, tx_id, cnt, total in rows:
        moment = dt.datetime.fromtimestamp(float(ts), tz=dt.UTC)
        key = (customer_id, f"w:{bucket(moment, window)}")
        hits.setdefault(key, (tx_id, f"{cnt} transactions, {usd(total or 0)} USD within {window} h"))
    return hits


def _counted(lo, hi):
    return Transaction.objects.filter(customer_id__gte=lo, customer_id__lt=hi).exclude(status__in=NOT_COUNTED)


def _hits_per_transaction(kind, params, lo, hi) -> dict:
    rows = _counted(lo, hi)
    if kind == RuleKind.LARGE_TRANSFER:
        rows = rows.filter(usd_value__gte=Decimal(params["min_usd"]))
    elif kind == RuleKind.WATCHED:
        methods, currencies = params.get("methods") or [], params.get("currencies") or []
        rows = rows.filter(
            Q(source_payment_method__in=methods)
            | Q(destination_payment_method__in=methods)
            | Q(source_currency__in=currencies)
            | Q(destination_currency__in=currencies)
        )
    elif kind == RuleKind.NEW_ACCOUNT_PAYOUT:
        created = PaymentAccount.objects.filter(account_id=OuterRef("destination_account_id")).values(
            "created_upstream_at"
        )[:1]
        rows = (
            rows.filter(usd_value__gt=Decimal(params["min_usd"]))
            .exclude(destination_account_id="")
            .annotate(account_created=Subquery(created))
            .filter(
                account_created__lte=F("created_upstream_at"),
                account_created__gt=F("created_upstream_at") - dt.timedelta(hours=params["hours"]),
            )
        )
    elif kind == RuleKind.RAPID_IN_OUT:
        return _hits_rapid_in_out(params, lo, hi)
    elif kind == RuleKind.MANY_COUNTERPARTIES:
        return _hits_counterparties(params, rows)
    return {
        (customer_id, f"tx:{tx_id}"): (tx_id, f"{usd(value)} USD" if value is not None else "")
        for customer_id, tx_id, value in rows.values_list("customer_id", "transaction_id", "usd_value")
    }


def _hits_rapid_in_out(params, lo, hi) -> dict:
    """An outgoing transfer with an onramp of the customer's in the hours before it (its own
    moment included) worth at most its value / share: the smallest such onramp is what counts,
    so one window in time order over each customer's onramps and outgoing transfers (the
    smallest onramp within the hours up to each row) answers for every transfer at once."""
    hours = params["hours"]
    share = Decimal(str(params["min_percent"])) / 100
    chains, rails = list(CHAINS), list(RAILS)
    if connection.vendor == "postgresql":
        frame = (
            f"ORDER BY created_upstream_at RANGE BETWEEN INTERVAL '{hours * 3600} seconds' PRECEDING AND CURRENT ROW"
        )
    else:
        epoch = "CAST(strftime('%%s', created_upstream_at) AS REAL)"
        frame = f"ORDER BY {epoch} RANGE BETWEEN {hours * 3600} PRECEDING AND CURRENT ROW"
    onramp = f"source_payment_method IN ({_in(rails)}) AND destination_payment_method IN ({_in(chains)})"
    sql = f"""
        SELECT customer_id, transaction_id, usd_value FROM (
            SELECT customer_id, transaction_id, usd_value,
                   CASE WHEN source_payment_method IN ({_in(chains)}) THEN 1 ELSE 0 END AS outgoing,
                   MIN(CASE WHEN {onramp} AND usd_value > 0 THEN usd_value END) OVER w AS least_in
            FROM payments_transaction
            WHERE customer_id >= %s AND customer_id < %s AND status NOT IN ({_in(NOT_COUNTED)})
                  AND (source_payment_method IN ({_in(chains)}) OR ({onramp}))
            WINDOW w AS (PARTITION BY customer_id {frame})
        ) AS moves
        WHERE outgoing = 1 AND usd_value IS NOT NULL AND least_in <= usd_value / CAST(%s AS NUMERIC)
    """  # noqa: S608 (the interpolated parts are the code's own, the values are parameters)
    args = [*chains, *rails, *chains, lo, hi, *NOT_COUNTED, *chains, *rails, *chains, share]
    with connection.cursor() as cursor:
        cursor.execute(sql, args)
        rows = cursor.fetchall()
    return {
        (customer_id, f"tx:{tx_id}"): (tx_id, f"{usd(value)} USD" if value is not None else "")
        for customer_id, tx_id, value in rows
    }


def _hits_counterparties(params, rows) -> dict:
    window = params["window_hours"]
    outgoing = rows.filter(source_payment_method__in=CHAINS).exclude(destination_account_id="")
    distinct = (
        Transaction.objects.filter(
            customer_id=OuterRef("customer_id"),
            source_payment_method__in=CHAINS,
            created_upstream_at__lte=OuterRef("created_upstream_at"),
            created_upstream_at__gt=OuterRef("created_upstream_at") - dt.timedelta(hours=window),
        )
        .exclude(status__in=NOT_COUNTED)
        .exclude(destination_account_id="")
        .values("customer_id")
        .annotate(n=Count("destination_account_id", distinct=True))
        .values("n")
    )
    third = distinct.filter(
        destination_account_id__in=PaymentAccount.objects.filter(is_third_party=True).values("account_id")
    )
    found = outgoing.annotate(n=Subquery(distinct), third=Subquery(third))
    condition = Q(n__gt=params["max_destinations"])
    if params.get("max_third_party") is not None:
        condition |= Q(third__gt=params["max_third_party"])
    hits = {}
    for customer_id, tx_id, moment, n in found.filter(condition).values_list(
        "customer_id", "transaction_id", "created_upstream_at", "n"
    ):
        key = (customer_id, f"w:{bucket(moment, window)}")
        hits.setdefault(key, (tx_id, f"{n} destination accounts within {window} h"))
    return hits


def hits_between(kind: str, params: dict, lo: int, hi: int) -> dict:
    """{(customer pk, alert key): (a transaction id, figures in words)} for customers lo <= pk < hi."""
    if kind in (RuleKind.VELOCITY, RuleKind.STRUCTURING):
        return _hits_windowed(kind, params, lo, hi)
    return _hits_per_transaction(kind, params, lo, hi)


def run(backtest: Backtest) -> Backtest:
    """Run the backtest, saving its progress after each range of customers."""
    started = time.monotonic()
    version = backtest.version
    kind, params = version.rule.kind, version.params
    bounds = Customer.objects.aggregate(lo=Min("pk"), hi=Max("pk"))
    backtest.status, backtest.progress = Backtest.Status.RUNNING, 0
    backtest.transactions = Transaction.objects.filter(customer__isnull=False).count()
    backtest.save(update_fields=["status", "progress", "transactions"])
    hits: dict = {}
    if bounds["lo"] is not None:
        lo, hi = bounds["lo"], bounds["hi"] + 1
        step = max(1, -(-(hi - lo) // CHUNKS))
        for start in range(lo, hi, step):
            hits.update(hits_between(kind, params, start, min(start + step, hi)))
            backtest.progress = min(99, int(100 * (min(start + step, hi) - lo) / (hi - lo)))
            Backtest.objects.filter(pk=backtest.pk).update(progress=backtest.progress)
    customers = {c for c, _k in hits}
    names = dict(Customer.objects.filter(pk__in=list(customers)[: SAMPLE * 5]).values_list("pk", "customer_id"))
    sample = []
    for (customer_pk, _key), (tx_id, words) in list(hits.items())[: SAMPLE * 5]:
        if customer_pk in names and len(sample) < SAMPLE:
            sample.append({"customer_id": names[customer_pk], "transaction_id": tx_id, "words": words})
    backtest.hits, backtest.customers, backtest.sample = len(hits), len(customers), sample
    backtest.status, backtest.progress = Backtest.Status.DONE, 100
    backtest.seconds = round(time.monotonic() - started, 3)
    backtest.finished_at = timezone.now()
    backtest.save()
    return backtest
