"""customers.prefix.starts_with finds what istartswith finds, on PostgreSQL from the btree range
of the name's text_pattern_ops index rather than its trigram index."""

import json

import pytest
from django.db import connection

from customers.models import Customer
from customers.prefix import starts_with
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db

NAMES = [
    "abc", "ABD", "ab", "a", "Ab{", "AB[", "abz", "ab~", "ac", "a_b", "a%b", "a\\b", "a b", "zed", "Zz",
    "ÄBC", "äbd", "Émile", "x\u0130y", "",
]  # fmt: skip
PREFIXES = ["a", "A", "ab", "aB", "abz", "Ab{", "ab~", "a_", "a%", "a\\", "a ", "z", "Z", "zz", "Ä", "é", "q", "~"]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_the_same_customers_as_istartswith(prefix):
    for i, name in enumerate(NAMES):
        CustomerFactory(name=name, email=f"{name.lower() or 'none'}-{i}@example.com")
    ours = set(Customer.objects.filter(starts_with("name", prefix)).values_list("pk", flat=True))
    assert ours == set(Customer.objects.filter(name__istartswith=prefix).values_list("pk", flat=True))
    ours = set(Customer.objects.filter(starts_with("email", prefix)).values_list("pk", flat=True))
    assert ours == set(Customer.objects.filter(email__istartswith=prefix).values_list("pk", flat=True))


def _plan(query) -> str:
    sql, params = query.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        return json.dumps(cursor.fetchone()[0])


def test_a_prefix_is_a_range_of_the_pattern_index_which_the_trigram_index_cannot_serve():
    if connection.vendor != "postgresql":
        pytest.skip("the indexes and the plan are PostgreSQL's")
    model = CustomerFactory.build()
    fields = {f.attname: getattr(model, f.attname) for f in Customer._meta.concrete_fields if not f.primary_key}
    Customer.objects.bulk_create(
        Customer(**{**fields, "customer_id": f"c{i}", "name": f"Customer {i}", "email": f"c{i}@example.com"})
        for i in range(3000)
    )
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
    ours = Customer.objects.filter(starts_with("name", "Customer 12")).values("pk")
    assert "customer_name_upper_like" in _plan(ours) and ours.count() == 111
    # Without the pattern index (this test's transaction only), a LIKE goes to the trigram index
    # and the range cannot.
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX customer_name_upper_like")
    assert "customer_name_upper_trgm" in _plan(Customer.objects.filter(name__istartswith="Customer 12").values("pk"))
    assert "customer_name_upper_trgm" not in _plan(ours)
