"""Each rule kind fires at its edge and not just short of it; a hit raised again is one alert."""

import re
from decimal import Decimal

import pytest

from monitoring.models import Alert, RuleKind
from monitoring.services import evaluate_transactions
from tests.monitoring.helpers import account, customer, live_rule, tx

pytestmark = pytest.mark.django_db


def run(*transactions) -> list[Alert]:
    evaluate_transactions([t.pk for t in transactions])
    return list(Alert.objects.order_by("pk"))


def test_large_transfer_fires_at_its_amount_and_not_a_cent_below():
    live_rule(RuleKind.LARGE_TRANSFER, min_usd="50000")
    someone = customer()
    (alert,) = run(tx(someone, "50000"), tx(someone, "49999.99"))
    assert alert.sentence == "A transfer of 50,000 USD, at or above 50,000 USD."
    assert alert.customer == someone
    assert alert.rule_version.number == 1


def test_velocity_fires_above_the_count_within_the_window():
    live_rule(RuleKind.VELOCITY, window_hours=24, max_count=3, max_usd=None)
    busy, calm = customer(), customer()
    busy_rows = [tx(busy, 10, hours_ago=h) for h in (30, 20, 10, 5, 1)]  # 4 in the last 24 h
    calm_rows = [tx(calm, 10, hours_ago=h) for h in (30, 20, 10, 1)]  # 3 in the last 24 h
    (alert,) = run(busy_rows[-1], calm_rows[-1])
    assert alert.customer == busy
    assert alert.sentence.startswith("4 transactions in 19 h, 40 USD in all: more than 3 transactions within 24 h")


def test_velocity_by_amount():
    live_rule(RuleKind.VELOCITY, window_hours=24, max_count=None, max_usd="1000")
    someone = customer()
    first = tx(someone, "600", hours_ago=2)
    assert run(first) == []
    (alert,) = run(tx(someone, "400.01", hours_ago=1))
    assert "1,000.01 USD in all" in alert.sentence


def test_structuring_three_just_under_the_approval_threshold(settings):
    settings.APPROVAL_THRESHOLD_USD = Decimal("10000")
    live_rule(RuleKind.STRUCTURING, window_hours=24, min_count=3, band_percent=10)
    someone = customer()
    rows = [tx(someone, "9900", hours_ago=20), tx(someone, "9840", hours_ago=10), tx(someone, "9990", hours_ago=0)]
    (alert,) = run(*rows)
    assert alert.sentence == (
        "3 transfers of 9,840\u20139,990 USD in 20 h, 29,730 USD in all, each under the 10,000 USD approval threshold."
    )
    assert alert.transaction_ids == [r.transaction_id for r in rows]


def test_structuring_ignores_transfers_at_the_threshold_and_below_the_band(settings):
    settings.APPROVAL_THRESHOLD_USD = Decimal("10000")
    live_rule(RuleKind.STRUCTURING, window_hours=24, min_count=3, band_percent=10)
    someone = customer()
    # At the threshold four-eyes sees it; below 9,000 it is not "just under".
    rows = [tx(someone, "10000", hours_ago=5), tx(someone, "8999.99", hours_ago=4), tx(someone, "9500", hours_ago=3)]
    rows.append(tx(someone, "9600", hours_ago=1))
    assert run(*rows) == []
    # One more in the band makes three.
    assert len(run(tx(someone, "9700"))) == 1


def test_structuring_follows_the_approval_threshold_setting(settings):
    settings.APPROVAL_THRESHOLD_USD = Decimal("1000")
    live_rule(RuleKind.STRUCTURING, window_hours=24, min_count=3, band_percent=10)
    someone = customer()
    rows = [tx(someone, v, hours_ago=h) for v, h in (("950", 3), ("990", 2), ("999.99", 1))]
    (alert,) = run(*rows)
    assert "each under the 1,000 USD approval threshold" in alert.sentence
    settings.APPROVAL_THRESHOLD_USD = Decimal("900")
    Alert.objects.all().delete()
    assert run(*rows) == []


def test_structuring_outside_the_window_is_not_counted(settings):
    settings.APPROVAL_THRESHOLD_USD = Decimal("10000")
    live_rule(RuleKind.STRUCTURING, window_hours=24, min_count=3, band_percent=10)
    someone = customer()
    rows = [tx(someone, "9900", hours_ago=25), tx(someone, "9900", hours_ago=10), tx(someone, "9900", hours_ago=0)]
    assert run(*rows) == []


def test_rapid_in_and_out():
    live_rule(RuleKind.RAPID_IN_OUT, hours=48, min_percent=80)
    fast, slow, small = customer(), customer(), customer()
    tx(fast, "1000", hours_ago=10)
    out = tx(fast, "800", hours_ago=1, source="BASE", destination="ACH")
    tx(slow, "1000", hours_ago=50)
    late = tx(slow, "900", hours_ago=1, source="BASE", destination="ACH")
    tx(small, "1000", hours_ago=10)
    little = tx(small, "799.99", hours_ago=1, source="BASE", destination="ACH")
    (alert,) = run(out, late, little)
    assert alert.customer == fast
    assert alert.sentence.startswith("1,000 USD came in by an onramp and 800 USD (80%) went out 9.0 h later")


def test_many_counterparties_counts_distinct_destinations_and_third_parties_apart():
    live_rule(RuleKind.MANY_COUNTERPARTIES, window_hours=168, max_destinations=3, max_third_party=1)
    many, few, third = customer(), customer(), customer()
    many_rows = [
        tx(many, 10, hours_ago=i, source="BASE", destination="ACH", destination_account_id=f"acct-{i}")
        for i in range(4)
    ]
    few_rows = [
        tx(few, 10, hours_ago=i, source="BASE", destination="ACH", destination_account_id=f"few-{i % 3}")
        for i in range(6)
    ]
    payees = [account(third, third_party=True, account_type="EXTERNAL_BANK_ACCOUNT") for _ in range(2)]
    third_rows = [
        tx(third, 10, hours_ago=i, source="BASE", destination="ACH", destination_account_id=p.account_id)
        for i, p in enumerate(payees)
    ]
    alerts = run(many_rows[0], few_rows[0], third_rows[0])
    assert {a.customer for a in alerts} == {many, third}
    by = {a.customer: a for a in alerts}
    assert "4 distinct destination accounts, 0 of them third-party" in by[many].sentence
    assert "2 distinct destination accounts, 2 of them third-party" in by[third].sentence


def test_new_account_then_large_payout():
    live_rule(RuleKind.NEW_ACCOUNT_PAYOUT, hours=24, min_usd="5000")
    someone = customer()
    fresh, old = account(someone, hours_ago=23), account(someone, hours_ago=25)
    to_fresh = tx(someone, "5000.01", source="BASE", destination="ACH", destination_account_id=fresh.account_id)
    to_old = tx(someone, "9000", source="BASE", destination="ACH", destination_account_id=old.account_id)
    at_limit = tx(someone, "5000", source="BASE", destination="ACH", destination_account_id=fresh.account_id)
    (alert,) = run(to_fresh, to_old, at_limit)
    assert alert.transaction_ids == [to_fresh.transaction_id]
    assert alert.account_ids == [fresh.account_id]
    assert "created 23 h before it" in alert.sentence


def test_watched_rails_chains_and_currencies():
    live_rule(RuleKind.WATCHED, methods=["POLYGON"], currencies=["EURC"])
    someone = customer()
    on_polygon = tx(someone, 10, destination="POLYGON")
    in_eurc = tx(someone, 10, destination="BASE", destination_currency="EURC")
    on_base = tx(someone, 10, destination="BASE")
    alerts = run(on_polygon, in_eurc, on_base)
    assert [a.transaction_ids for a in alerts] == [[on_polygon.transaction_id], [in_eurc.transaction_id]]
    assert "on or in Polygon" in alerts[0].sentence
    assert "on or in EURC" in alerts[1].sentence


def test_failed_cancelled_and_expired_transactions_do_not_count():
    live_rule(RuleKind.LARGE_TRANSFER, min_usd="100")
    someone = customer()
    assert run(*(tx(someone, 500, status=s) for s in ("FAILED", "CANCELLED", "EXPIRED"))) == []


def test_a_paused_rule_raises_nothing_and_a_hit_is_raised_once():
    from monitoring.services import rule_pause, rule_resume
    from tests.factories import StaffUserFactory

    rule = live_rule(RuleKind.LARGE_TRANSFER, min_usd="100")
    someone = customer()
    row = tx(someone, 500)
    rule_pause(user=StaffUserFactory(), rule=rule)
    assert run(row) == []
    rule_resume(user=StaffUserFactory(), rule=rule)
    assert len(run(row)) == 1
    assert len(run(row)) == 1


def test_rule_parameters_are_checked():
    from django.core.exceptions import ValidationError

    from monitoring.rules import clean_params

    with pytest.raises(ValidationError) as exc:
        clean_params(RuleKind.STRUCTURING, {"window_hours": "0", "min_count": "x", "band_percent": "150"})
    assert set(exc.value.message_dict) == {"window_hours", "min_count", "band_percent"}
    with pytest.raises(ValidationError):
        clean_params(RuleKind.WATCHED, {"methods": "NOWHERE"})
    assert clean_params(RuleKind.LARGE_TRANSFER, {"min_usd": "1,000.50"}) == {"min_usd": "1000.50"}


@pytest.mark.parametrize(
    ("kind", "params"),
    [
        (RuleKind.LARGE_TRANSFER, {"min_usd": "5000"}),
        (RuleKind.VELOCITY, {"window_hours": 24, "max_count": 3, "max_usd": "20000"}),
        (RuleKind.STRUCTURING, {"window_hours": 24, "min_count": 3, "band_percent": 10, "threshold_usd": "10000"}),
        (RuleKind.RAPID_IN_OUT, {"hours": 48, "min_percent": 80}),
        (RuleKind.MANY_COUNTERPARTIES, {"window_hours": 168, "max_destinations": 2, "max_third_party": None}),
        (RuleKind.NEW_ACCOUNT_PAYOUT, {"hours": 24, "min_usd": "1000"}),
        (RuleKind.WATCHED, {"methods": ["ACH"], "currencies": []}),
    ],
)
def test_a_backtest_counts_the_alerts_the_live_rule_raises_over_the_same_history(kind, params):
    """The backtest (set-based SQL) and the live evaluation (one transaction at a time) agree."""
    from monitoring import backtest
    from monitoring.models import Backtest
    from monitoring.services import alert_key

    rule = live_rule(kind, **params)
    people = [customer() for _ in range(4)]
    payee = account(people[0], hours_ago=5)
    rows = []
    for i, someone in enumerate(people):
        for h, value in enumerate(("9500", "9900", "9950", "300", "12000", "9700")):
            rows.append(tx(someone, value, hours_ago=h * (i + 1) * 3.7))
            rows.append(
                tx(
                    someone,
                    Decimal(value) * Decimal("0.9"),
                    hours_ago=h * (i + 1) * 3.7 - 1,
                    source="BASE",
                    destination="ACH",
                    destination_account_id=payee.account_id if h % 2 else f"other-{h}",
                )
            )
    evaluate_transactions([r.pk for r in rows])
    raised = Alert.objects.filter(rule=rule)
    run = backtest.run(Backtest.objects.create(version=rule.live_version))
    assert run.status == "done" and run.progress == 100
    assert run.hits == raised.count() > 0
    assert run.customers == raised.values("customer").distinct().count()
    assert len(run.sample) == min(10, run.hits)
    # Not only as many: the very alerts, customer by customer, window by window (a rapid
    # in-and-out's live key names its onramp too; the backtest's, the outgoing transfer).
    found = backtest.hits_between(kind, rule.live_version.params, 0, 10**9)
    live = {re.sub(r"pair:[^:]+:", "tx:", key) for key in raised.values_list("dedupe_key", flat=True)}
    assert {alert_key(rule.pk, c, key) for c, key in found} == live
