"""The transactions list filters on columns its indexes lead with: the customer by the FK
value (resolved from the upstream id inside the same query), dates as ranges in the staff
member's zone."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from payments.filters import TransactionFilter
from payments.models import Transaction
from payments.selectors import transactions_listed
from tests.factories import CustomerFactory, TransactionFactory

pytestmark = pytest.mark.django_db

UTC = dt.UTC


def test_the_customer_filter_compares_the_fk_column():
    ada = CustomerFactory(name="Ada")
    filterset = TransactionFilter({"customer": f" {ada.customer_id} "}, queryset=transactions_listed())
    assert filterset.is_valid()
    where = str(filterset.qs.query).split(" WHERE ", 1)[1]
    # The FK column against the customer's key, not the joined table's upstream id.
    assert '"payments_transaction"."customer_id" = (SELECT' in where
    assert '"customers_customer"."customer_id" =' not in where.split("(SELECT", 1)[0]


def test_the_customer_filter_finds_only_that_customers_rows_and_none_for_an_unknown_one():
    ada, bob = CustomerFactory(), CustomerFactory()
    mine = {TransactionFactory(customer=ada).transaction_id for _ in range(3)}
    TransactionFactory(customer=bob)
    TransactionFactory(customer=None)

    def found(value):
        return set(
            TransactionFilter({"customer": value}, queryset=Transaction.objects.all()).qs.values_list(
                "transaction_id", flat=True
            )
        )

    assert found(ada.customer_id) == mine
    assert found("no-such-customer") == set()


def test_the_customer_filter_costs_only_the_pickers_label(client_as, django_assert_num_queries):
    ada = CustomerFactory()
    TransactionFactory(customer=ada)
    client = client_as("auditor")
    url = reverse("payments-list-transactions")
    client.get(url)  # warm-up: session, permissions
    with django_assert_num_queries(4) as plain:
        client.get(url)
    # The list itself stays one query; the picker shows the chosen customer's name (one more).
    with django_assert_num_queries(len(plain.captured_queries) + 1):
        response = client.get(url, {"customer": ada.customer_id, "status": "COMPLETED"})
    assert response.status_code == 200


def test_created_dates_are_the_staff_members_days():
    # 10 March in Tokyo: 9 March 15:00 UTC up to (not including) 10 March 15:00 UTC.
    at = {
        "before": dt.datetime(2026, 3, 9, 14, 59, 59, 999999, tzinfo=UTC),
        "first": dt.datetime(2026, 3, 9, 15, 0, tzinfo=UTC),
        "last": dt.datetime(2026, 3, 10, 14, 59, 59, 999999, tzinfo=UTC),
        "after": dt.datetime(2026, 3, 10, 15, 0, tzinfo=UTC),
    }
    for name, when in at.items():
        TransactionFactory(correlation_id=name, created_upstream_at=when)
    params = {"created_from": "2026-03-10", "created_until": "2026-03-10"}
    with timezone.override("Asia/Tokyo"):
        qs = TransactionFilter(params, queryset=Transaction.objects.all()).qs
        assert set(qs.values_list("correlation_id", flat=True)) == {"first", "last"}
    qs = TransactionFilter(params, queryset=Transaction.objects.all()).qs
    assert set(qs.values_list("correlation_id", flat=True)) == {"last", "after"}  # the UTC day


@pytest.mark.parametrize("approved", [True, False])
def test_the_transaction_page_costs_six_queries(client_as, make_staff, approved, django_assert_num_queries):
    from payments.models import ApprovalStatus
    from tests.factories import ApprovalRequestFactory, PaymentAccountFactory

    source = PaymentAccountFactory(nickname="Main USD")
    tx = TransactionFactory(source_account_id=source.account_id)
    if approved:
        maker, checker = make_staff("operations", username="olga"), make_staff("admin", username="pavel")
        ApprovalRequestFactory(
            maker=maker, checker=checker, status=ApprovalStatus.EXECUTED, transaction_id=tx.transaction_id
        )
    client = client_as("auditor")
    url = reverse("payments-view-transaction", args=[tx.transaction_id])
    client.get(url)
    with django_assert_num_queries(6):  # session, user, permissions, version, the row, its lists
        html = client.get(url).content.decode()
    assert "Main USD" in html
    if approved:
        assert "olga" in html.split('id="tx-maker"')[1].split("</dd>")[0]
        assert "pavel" in html.split('id="tx-checker"')[1].split("</dd>")[0]
