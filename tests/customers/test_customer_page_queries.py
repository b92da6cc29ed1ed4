"""The customer page costs a fixed number of queries however much the customer holds: its
short lists (history, issues, timeline, notes, handouts, the payments section, the assignee
choices) are read in one query."""

import datetime as dt
from decimal import Decimal

import pytest
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from audit.records import audit_record
from core.together import CompiledTogether, fetch_together, sections_in
from customers.models import Customer
from payments.models import Transaction
from tests.factories import AuditEventFactory, CustomerFactory, TransactionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def busy():
    customer = CustomerFactory(name="Busy Customer")
    start = timezone.now() - dt.timedelta(days=5)
    for i in range(25):
        TransactionFactory(customer=customer, created_upstream_at=start + dt.timedelta(hours=i))
    for i in range(3):
        AuditEventFactory(action=f"customer.step_{i}", target_kind="customer", target_id=customer.customer_id)
    return customer


@pytest.mark.parametrize("role", ["compliance", "auditor", "admin"])
def test_the_customer_page_costs_six_queries(client_as, busy, role, django_assert_num_queries):
    client = client_as(role)
    url = reverse("customers-view-customer", args=[busy.customer_id])
    client.get(url)  # warm-up: the session's time zone
    with django_assert_num_queries(6):
        html = client.get(url).content.decode()
    assert "Busy Customer" in html and "Step 2" in html
    newest = Transaction.objects.filter(customer=busy).order_by("-id").first()
    assert newest.transaction_id in html


def test_the_assignee_choices_come_with_the_lists(client_as, busy, make_staff):
    colleague = make_staff("compliance", username="zed")
    busy.assignee = colleague
    busy.save(update_fields=["assignee"])
    html = client_as("compliance").get(reverse("customers-view-customer", args=[busy.customer_id])).content.decode()
    assert f'<option value="{colleague.pk}" selected>zed</option>' in html


def test_fetch_together_keeps_each_lists_order_limit_and_exact_values(busy):
    other = CustomerFactory()
    TransactionFactory(customer=other, source_amount=Decimal("0.000000000000000001"))
    newest_three = Transaction.objects.filter(customer=busy).order_by("-created_upstream_at", "-id")[:3]
    oldest_two = Customer.objects.order_by("id")[:2]
    exact = Transaction.objects.filter(customer=other)
    txs, customers, tiny = fetch_together(newest_three, oldest_two, exact)
    assert [t.pk for t in txs] == [t.pk for t in newest_three]
    assert all(t.created_upstream_at.tzinfo is not None for t in txs)
    assert [c.pk for c in customers] == [c.pk for c in oldest_two]
    assert tiny[0].source_amount == Decimal("0.000000000000000001")


def _newest_of(pk, customer_id, *, count=2):
    return [
        Transaction.objects.filter(customer_id=pk).order_by("-created_upstream_at", "-id")[:count],
        Customer.objects.filter(customer_id=customer_id),
    ]


def test_a_compiled_together_compiles_once_and_answers_each_customer_with_its_own_rows(busy):
    other = CustomerFactory(name="Other")
    TransactionFactory(customer=other)
    builds = []
    compiled = CompiledTogether(lambda *values, **shape: builds.append(values) or _newest_of(*values, **shape))
    for customer in (busy, other, busy):
        txs, found = compiled.fetch(customer.pk, customer.customer_id)
        expected = Transaction.objects.filter(customer=customer).order_by("-created_upstream_at", "-id")[:2]
        assert [t.pk for t in txs] == [t.pk for t in expected]
        assert [c.name for c in found] == [customer.name]
    assert len(builds) == 2  # the two stand-in compiles of the first call, none after
    (txs,) = compiled.fetch(busy.pk, busy.customer_id, count=1)[:1]  # another shape: compiled apart
    assert len(txs) == 1 and len(builds) == 4


def test_a_compiled_together_refuses_a_list_that_derives_from_its_value(busy):
    derived = CompiledTogether(lambda pk: [Customer.objects.filter(name=f"Customer {pk}")])
    with pytest.raises(ValueError, match="derives a value"):
        derived.fetch(busy.pk)
    with pytest.raises(TypeError):
        CompiledTogether(_newest_of).fetch(busy.pk, dt.date.today())


def test_the_version_still_moves_with_case_work(client_as, busy):
    client = client_as("compliance")
    url = reverse("customers-view-customer", args=[busy.customer_id])
    before = client.get(url).context["live_url"]
    with transaction.atomic():
        audit_record(actor=None, action="customer.note", target_kind="customer", target_id=busy.customer_id)
    assert client.get(url).context["live_url"] != before


def test_the_pages_sections_are_the_tags_its_template_draws():
    from monitoring.templatetags.monitoring_sections import customer_alerts
    from payments.templatetags.payments_sections import customer_payments

    assert sections_in("customers/view_customer.html") == [customer_alerts, customer_payments]


def test_a_section_drawn_where_the_page_did_not_read_its_lists_reads_them_in_one_query(busy, django_assert_num_queries):
    from django.template import engines

    drawn = engines["django"].from_string("{% load payments_sections %}{% customer_payments customer %}")
    with django_assert_num_queries(1):
        html = drawn.render({"customer": busy})
    newest = Transaction.objects.filter(customer=busy).order_by("-created_upstream_at", "-id")
    assert newest[0].transaction_id in html and newest[20].transaction_id not in html
