"""The operations home section: each figure against transactions built for it, and its link
to the list filtered to what it counts."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from backoffice import rollups
from payments.models import TransactionStatus
from tests.factories import TransactionFactory

from .home_helpers import figures, home, listed

pytestmark = pytest.mark.django_db


@pytest.fixture
def transactions():
    now = timezone.now()
    awaiting = TransactionStatus.AWAITING_TRANSFER
    made = {
        # Entered AWAITING_TRANSFER 25 minutes ago: expires in 5.
        "expiring": TransactionFactory(status=awaiting, status_since=now - dt.timedelta(minutes=25)),
        "later": TransactionFactory(status=awaiting, status_since=now - dt.timedelta(minutes=5)),
        "expired": TransactionFactory(status=awaiting, status_since=now - dt.timedelta(minutes=45)),
        "slow": TransactionFactory(status=TransactionStatus.PROCESSING, status_since=now - dt.timedelta(hours=5)),
        "waiting": TransactionFactory(status=TransactionStatus.CREATED, status_since=now - dt.timedelta(hours=1)),
        "done": TransactionFactory(
            status=TransactionStatus.COMPLETED,
            status_since=now - dt.timedelta(minutes=1),
            source_amount=Decimal("12.5"),
        ),
        "done_eur": TransactionFactory(
            status=TransactionStatus.COMPLETED,
            status_since=now - dt.timedelta(days=3),
            source_payment_method="SEPA",
            source_currency="EUR",
            source_amount=Decimal("7"),
        ),
        "failed": TransactionFactory(status=TransactionStatus.FAILED, status_since=now - dt.timedelta(minutes=2)),
        "old_expired": TransactionFactory(status=TransactionStatus.EXPIRED, status_since=now - dt.timedelta(days=4)),
    }
    # The same moment for every row of "today": the test may run just after midnight.
    today = now.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    for key in ("expiring", "later", "expired", "slow", "waiting", "done", "failed"):
        made[key].created_upstream_at = max(today, made[key].created_upstream_at)
        made[key].save()
    return made


def test_each_figure_counts_its_transactions_and_links_to_them(client, operations_user, transactions):
    rollups.refresh()
    client.force_login(operations_user)
    shown = figures(home(client))
    ids = {key: tx.transaction_id[:12] for key, tx in transactions.items()}
    expected = {
        "Awaiting transfer past expiry": (1, {"expired"}),
        "Processing too long": (1, {"slow"}),
        "Created too long": (1, {"waiting"}),
        "Awaiting funds, expiring within 10 minutes": (1, {"expiring"}),
        "Awaiting transfer": (3, {"expiring", "later", "expired"}),
        "Completed": (1, {"done"}),
        "Failed": (1, {"failed"}),
        "Processing": (1, {"slow"}),
        "Cancelled": (0, set()),
    }
    for label, (count, keys) in expected.items():
        value, url = shown[label]
        assert value == str(count), label
        assert url.startswith("/payments/transactions/"), label
        assert listed(client, url, list(ids.values())) == {ids[k] for k in keys}, label
    # 9 transactions in 30 days: one failed, one expired.
    assert shown["Failed rate"][0] == "11.1%"
    assert shown["Expired rate"][0] == "11.1%"
    assert listed(client, shown["Expired rate"][1], list(ids.values())) == {ids["old_expired"]}


def test_volume_chart_shows_each_rail_and_currency_with_its_total_and_link(client, operations_user, transactions):
    rollups.refresh()
    client.force_login(operations_user)
    html = home(client).content.decode()
    assert '<span title="ACH">ACH</span> · USD</a></th>' in html
    assert '<span title="SEPA">SEPA</span> · EUR</a></th>' in html
    assert '<td class="num">12.50 USD</td>' in html
    assert '<td class="num">7.00 EUR</td>' in html
    assert "<caption>Completed volume per day and rail · currency" in html
    assert html.count("<svg") >= 2 and "<script" not in html.split("<main", 1)[1]
    link = "/payments/transactions/?status=COMPLETED&amp;rail=SEPA&amp;currency=EUR&amp;created_from="
    assert link in html
    url = html.split(link, 1)[1].split('"', 1)[0]
    ids = [tx.transaction_id[:12] for tx in transactions.values()]
    found = listed(client, link.replace("&amp;", "&") + url, ids)
    assert found == {transactions["done_eur"].transaction_id[:12]}


def test_volume_chart_names_its_days(client, operations_user, transactions):
    rollups.refresh()
    client.force_login(operations_user)
    html = home(client).content.decode()
    today = timezone.now().astimezone(dt.UTC).date()
    first = today - dt.timedelta(days=29)
    assert f"Per day, {first:%-d %b} to {today:%-d %b}</th>" in html
    assert f'<tr><th scope="row">{today:%-d %b}</th><td class="num">12.50</td>' in html


def test_an_empty_mirror_shows_zeros(client, operations_user):
    client.force_login(operations_user)
    response = home(client)
    shown = figures(response)
    assert shown["Awaiting funds, expiring within 10 minutes"][0] == "0"
    assert shown["Processing too long"][0] == "0"
    assert shown["Completed"][0] == "0"
    assert shown["Failed rate"][0] == "—"
    assert b"No completed transaction in the last 30 days." in response.content


def test_before_the_first_roll_up_only_the_live_figure_shows(client, operations_user, transactions):
    from django.core.cache import cache

    cache.add("home:first-refresh", 1, 60)  # a refresh was asked for and has not run yet
    client.force_login(operations_user)
    response = home(client)
    assert b"Not computed yet" in response.content
    shown = figures(response)
    assert shown["Awaiting funds, expiring within 10 minutes"][0] == "1"
    assert "Processing too long" not in shown and "Failed rate" not in shown


def test_older_days_say_how_late_they_may_be(client, operations_user, transactions):
    rollups.refresh()
    client.force_login(operations_user)
    assert b"older days (their transactions' later statuses) at least every 14 minutes" in home(client).content
