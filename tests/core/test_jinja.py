"""The Jinja2 row partials of the long lists: escaped, in the current time zone, with the same
filters as the Django templates."""

import datetime as dt
import html
import zoneinfo

import pytest
from django.template import Context, Template, engines
from django.urls import reverse
from django.utils import timezone

from tests.factories import CustomerFactory, PaymentAccountFactory, TransactionFactory, VerificationIssueFactory

pytestmark = pytest.mark.django_db
HOSTILE = '<script>alert("x")</script>'
ESCAPED = "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"
MOMENT = dt.datetime(2026, 3, 29, 1, 30, 15, 123456, tzinfo=dt.UTC)


def jinja(text: str, **context) -> str:
    return engines["jinja2"].from_string(text).render(context)


def django(text: str, **context) -> str:
    return Template("{% load timestamps tx_display customers_extras %}" + text).render(Context(context))


@pytest.mark.parametrize("zone", ["UTC", "Europe/Paris", "America/Sao_Paulo"])
@pytest.mark.parametrize("value", [MOMENT, None])
def test_time_filters_print_local_time_as_in_django_templates(zone, value):
    text = "{{ v|iso }} {{ v|minute }} {{ v|second }}"
    with timezone.override(zoneinfo.ZoneInfo(zone)):
        assert jinja(text, v=value) == django(text, v=value)


def test_timesince_counts_as_in_django_templates():
    value = timezone.now() - dt.timedelta(hours=5, minutes=3)
    assert jinja("{{ v|timesince }}", v=value) == django("{{ v|timesince }}", v=value) == "5\xa0hours, 3\xa0minutes"


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        ("{{ v|truncatechars(13) }}", "{{ v|truncatechars:13 }}"),
        ("{{ v|truncatechars(14) }}", "{{ v|truncatechars:14 }}"),
        ("{{ v|truncatechars(1) }}", "{{ v|truncatechars:1 }}"),
        ("{{ v|truncatechars(0) }}", "{{ v|truncatechars:0 }}"),
        ("{{ v|urlencode('') }}", "{{ v|urlencode:'' }}"),
        ("{{ v|title }}", "{{ v|title }}"),
    ],
)
@pytest.mark.parametrize(
    "value",
    [
        "tx/1 2?&<b>élan d'or",
        "ab",
        "",
        "cus_0123456789ab",  # ASCII, longer than 13 and 14
        "cus_012345678",  # ASCII, 13 exactly
        "cus_01234567e\u0301xyz",  # a combining accent, counted as no character
        "<script>x</script>",
    ],
)
def test_text_filters_print_what_the_django_filters_print(ours, theirs, value):
    # The two engines escape a quote differently (&#39; and &#x27;): compare the text.
    assert html.unescape(jinja(ours, v=value)) == html.unescape(django(theirs, v=value))


def test_project_filters_print_the_same_in_both_engines():
    assert jinja(
        "{{ v|amount }} {{ d|duration }} {{ s|status_label }}",
        v="100.500",
        d=dt.timedelta(hours=3),
        s="AWAITING_TRANSFER",
    ) == (
        django(
            "{{ v|amount }} {{ d|duration }} {{ s|status_label }}",
            v="100.500",
            d=dt.timedelta(hours=3),
            s="AWAITING_TRANSFER",
        )
    )


def test_jinja_include_takes_the_context_and_extra_values():
    page = type("Page", (), {"items": []})()
    rendered = Template(
        '{% load jinja %}{% jinja_include "payments/transactions/_rows.jinja" empty_text=note %}'
    ).render(Context({"page": page, "note": HOSTILE}))
    assert rendered.strip() == f'<tr><td colspan="10">{ESCAPED}</td></tr>'


def test_queue_rows_escape_mirrored_text(client_as):
    customer = CustomerFactory(name=HOSTILE, status="UNDER_REVIEW", organization_id=HOSTILE)
    VerificationIssueFactory(customer=customer, code=HOSTILE)
    page = client_as("compliance").get(reverse("customers-list-customers")).content.decode()
    assert HOSTILE not in page
    assert page.count(ESCAPED) == 3  # name, organization (its title; the text is cut), issue code


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
