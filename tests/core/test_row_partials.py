"""The row partials of the long lists (queue, transactions and stuck, payment accounts) escape
what the API sent, in the text and in the attributes and addresses they put it in; their
`truncatechars` (core/templatetags/rows.py) cuts as Django's does."""

import datetime as dt

import pytest
from django.template import Context, Template
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from tests.factories import CustomerFactory, PaymentAccountFactory, TransactionFactory, VerificationIssueFactory

pytestmark = pytest.mark.django_db
HOSTILE = '<script>alert("x")</script>'
ESCAPED = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"


@pytest.mark.parametrize("length", [13, 14, 1, 0, -1, "13", "x"])
@pytest.mark.parametrize(
    "value",
    [
        "tx/1 2?&<b>élan d'or",
        "ab",
        "",
        None,
        "cus_0123456789ab",  # ASCII, longer than 13 and 14
        "cus_012345678",  # ASCII, 13 exactly
        "cus_01234567e\u0301xyz",  # a combining accent, counted as no character
        "<script>x</script>",
    ],
)
def test_the_rows_truncatechars_prints_what_djangos_prints(value, length):
    context = Context({"v": value, "n": length})
    ours = Template("{% load rows %}{{ v|truncatechars:n }}").render(context)
    assert ours == Template("{{ v|truncatechars:n }}").render(context)


def test_the_rows_truncatechars_cuts_an_id():
    rendered = Template("{% load rows %}{{ v|truncatechars:13 }}").render(Context({"v": "cus_0123456789ab"}))
    assert rendered == "cus_01234567…"


def _results(rows: str, head: str, columns, empty: str) -> str:
    page = type("Page", (), {"items": [], "is_first": True, "next_cursor": None})()
    context = {"page": page, "head": head, "rows": rows, "columns": columns, "empty": empty}
    return render_to_string("_results.html", context)


@pytest.mark.parametrize(
    ("rows", "head", "columns"),
    [
        ("payments/transactions/_rows.html", "payments/transactions/list.html#head", 8),
        ("customers/_queue_rows.html", "customers/list_customers.html#head", 9),
        ("payments/accounts/_rows.html", "payments/accounts/list.html#head", 6),
    ],
)
def test_an_empty_page_renders_one_row_saying_so(rows, head, columns):
    rendered = _results(rows, head, columns, "No rows match these filters.")
    body = rendered.split("<tbody>", 1)[1]
    assert body.count("<tr>") == 1
    assert f'<tr><td colspan="{columns}">No rows match these filters.</td></tr></tbody>' in body


def test_the_empty_text_given_by_the_including_page_is_escaped():
    rendered = _results("payments/transactions/_rows.html", "payments/transactions/stuck.html#head", 10, HOSTILE)
    assert f'<tr><td colspan="10">{ESCAPED}</td></tr>' in rendered
    assert HOSTILE not in rendered


def test_queue_rows_escape_mirrored_text(client_as):
    customer = CustomerFactory(name=HOSTILE, status="UNDER_REVIEW", organization_id=HOSTILE)
    VerificationIssueFactory(customer=customer, code=HOSTILE)
    page = client_as("compliance").get(reverse("customers-list-customers")).content.decode()
    assert HOSTILE not in page
    # name, its bulk checkbox's label, organization (its title; the text is cut), and the
    # issue: an unknown code is its own label, with the code in the title
    assert page.count(ESCAPED) == 5


def test_queue_rows_put_the_id_into_the_address_encoded(client_as):
    CustomerFactory(customer_id='cus/1 "2"?', name="", status="UNDER_REVIEW")
    page = client_as("compliance").get(reverse("customers-list-customers")).content.decode()
    assert 'href="/customers/cus%2F1%20%222%22%3F/"' in page
    assert ">cus/1 &quot;2&quot;?</a>" in page  # no name: the id is shown instead


@pytest.mark.parametrize(("url", "shown"), [("payments-list-transactions", 2), ("payments-list-stuck-transactions", 4)])
def test_transaction_rows_escape_mirrored_text(client_as, url, shown):
    TransactionFactory(
        customer=CustomerFactory(active=True, name=HOSTILE),
        correlation_id=HOSTILE,
        transaction_id=HOSTILE,
        expires_at=timezone.now() - dt.timedelta(hours=1),
    )
    page = client_as("operations").get(reverse(url)).content.decode()
    assert HOSTILE not in page
    # customer and correlation id; on the stuck page also the checkbox's value and label
    assert page.count(ESCAPED) == shown
    assert "/payments/transactions/%3Cscript%3Ealert%28%22x%22%29%3C%2Fscript%3E/" in page


def test_account_rows_escape_mirrored_text(client_as):
    PaymentAccountFactory(bank=True, customer_upstream_id=HOSTILE, nickname=HOSTILE)
    page = client_as("admin").get(reverse("payments-list-payment-accounts")).content.decode()
    assert HOSTILE not in page
    assert page.count(ESCAPED) == 2  # nickname, customer


@pytest.mark.parametrize("text", ["", "plain text", HOSTILE, "a & b", "it's", "<", ">", '"', "é—…"])
def test_a_rows_value_is_escaped_as_the_template_escapes_it(text):
    from django.utils.html import escape

    from core.views import escaped, escaped_word

    assert escaped(text) == escape(text) == escaped_word(text)
    assert escaped(text).__html__() == escape(text)
