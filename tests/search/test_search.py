"""The search box: every kind found by each way staff type it, what each role may find, the jump
to an exact id, short and empty queries, the drop-down, and a fixed number of queries."""

import pytest
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.conftest import ROLES
from tests.factories import (
    AutomationRuleFactory,
    CustomerFactory,
    PaymentAccountFactory,
    QuoteFactory,
    TransactionFactory,
)

pytestmark = pytest.mark.django_db

SEARCH = reverse("search")


def found(client, q: str, **params) -> str:
    response = client.get(SEARCH, {"q": q, **params})
    assert response.status_code == 200, (q, response.status_code, response.get("Location"))
    return response.content.decode()


def jumps(client, q: str) -> str:
    response = client.get(SEARCH, {"q": q})
    assert response.status_code == 302, (q, response.status_code)
    return response["Location"]


@pytest.fixture
def admin(client_as):
    return client_as("admin")


@pytest.fixture
def ada():
    return CustomerFactory(
        name="Ada Lovelace",
        email="ada.lovelace@example.com",
        status="ACTIVE",
        customer_id="c0ffee11-aaaa-4bbb-8ccc-000000000001",
    )


# --- Customers ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "typed", ["Ada Lov", "ada", "ADA LOVELACE", "Lovelace", "lovel", "ada.lovelace@example.com", "ada.love", "c0ffee11"]
)
def test_a_customer_is_found_by_name_word_e_mail_and_id_start(admin, ada, typed):
    CustomerFactory(name="Grace Hopper", email="grace@example.com")
    page = found(admin, typed)
    assert 'id="search-customers"' in page
    assert reverse("customers-view-customer", args=[ada.customer_id]) in page
    assert "Grace Hopper" not in page
    assert "Active" in page  # the status in words


def test_words_inside_a_name_are_found_whole_not_by_their_rarest_word_alone(admin):
    """The index looks for the rarest word ("501234": a digit), the whole text is checked
    after: a name holding that word alone is not a match."""
    wanted = CustomerFactory(name="Customer 501234")
    CustomerFactory(name="Supplier 501234")
    page = found(admin, "ustomer 501234")
    assert reverse("customers-view-customer", args=[wanted.customer_id]) in page
    assert "Supplier 501234" not in page


@pytest.mark.parametrize(
    ("typed", "rarest"),
    [
        ("ustomer 501234", "501234"),
        ("da lovelace", "lovelace"),
        ("ovelace", "ovelace"),
        ("a b7 cc", "b7"),
        ("stomer 99", "stomer"),  # "99" has no trigram to look up
    ],
)
def test_the_rarest_word_is_one_with_a_digit_else_the_longest(typed, rarest):
    from search.query import Query

    assert Query.parse(typed).rarest_word == rarest


def test_a_customer_s_full_id_opens_their_page(admin, ada):
    assert jumps(admin, ada.customer_id) == reverse("customers-view-customer", args=[ada.customer_id])
    assert jumps(admin, f"  {ada.customer_id} ") == reverse("customers-view-customer", args=[ada.customer_id])


def test_a_status_is_in_words_with_its_code_on_hover(admin):
    CustomerFactory(name="Nadia Needs", status="NEEDS_ADDITIONAL_INFORMATION")
    page = found(admin, "Nadia")
    assert 'title="NEEDS_ADDITIONAL_INFORMATION">Needs additional information</span>' in page


# --- Payments ------------------------------------------------------------------------------


def test_a_transaction_by_its_full_id_and_its_start(admin, ada):
    tx = TransactionFactory(customer=ada, status="AWAITING_TRANSFER")
    other = TransactionFactory()
    url = reverse("payments-view-transaction", args=[tx.transaction_id])
    assert jumps(admin, tx.transaction_id) == url
    page = found(admin, tx.transaction_id[:8])
    assert url in page
    assert "Awaiting transfer" in page
    assert "Ada Lovelace" in page
    assert other.transaction_id not in page


def test_a_quote_by_its_full_id_its_start_and_one_made_elsewhere(admin, ada):
    quote = QuoteFactory(customer=ada)
    url = reverse("payments-view-quote", args=[quote.quote_id])
    assert jumps(admin, quote.quote_id) == url
    page = found(admin, quote.quote_id[:9])
    assert url in page
    assert "Open" in page
    # Made outside the back-office: known by the id its transaction carries.
    tx = TransactionFactory(quote_id="feed0000-1111-4222-8333-444455556666")
    assert jumps(admin, tx.quote_id) == reverse("payments-view-quote", args=[tx.quote_id])


def test_a_rule_by_its_full_id_its_start_and_its_name(admin):
    rule = AutomationRuleFactory(name="Friday sweep to payroll")
    url = reverse("payments-view-automation-rule", args=[rule.pk])
    assert jumps(admin, rule.rule_id) == url
    assert url in found(admin, rule.rule_id[:8])
    assert url in found(admin, "friday sw")


@pytest.mark.parametrize("typed", ["6789", "…6789", "****6789", "**** 6789", "789", "123456789"])
def test_a_bank_account_by_the_last_digits_of_its_number(admin, typed):
    account = PaymentAccountFactory(
        bank=True, details={"bankAccountMask": "****6789", "bankAccountCurrency": {"label": "USD"}}
    )
    other = PaymentAccountFactory(bank=True, details={"bankAccountMask": "****1234"})
    page = found(admin, typed)
    assert reverse("payments-view-payment-account", args=[account.pk]) in page
    assert reverse("payments-view-payment-account", args=[other.pk]) not in page


@pytest.mark.parametrize(
    "typed",
    [
        "0xAbC0000000000000000000000000000000000def",  # as pasted, in its checksum case
        "0xabc0000000000000000000000000000000000def",
        "0xabc000",  # its start
        "0def",  # its end
    ],
)
def test_a_wallet_by_its_address_its_start_and_its_end(admin, typed):
    address = "0xAbC0000000000000000000000000000000000def"
    wallet = PaymentAccountFactory(
        details={"currency": {"label": "USDC"}, "address": {"address": address, "chain": "BASE"}}
    )
    other = PaymentAccountFactory()  # 0xabab…
    page = found(admin, typed) if typed != address.lower() else None
    if page is None:  # the full address is no id: it lists the wallet rather than jumping
        page = found(admin, typed)
    assert reverse("payments-view-payment-account", args=[wallet.pk]) in page
    assert reverse("payments-view-payment-account", args=[other.pk]) not in page


def test_a_payment_account_s_full_id_opens_its_page(admin):
    account = PaymentAccountFactory()
    url = reverse("payments-view-payment-account", args=[account.pk])
    assert jumps(admin, account.account_id) == url
    assert url in found(admin, account.account_id[:8])


# --- Staff ---------------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["grace.h", "Grace", "hopper", "Grace Hop"])
def test_a_staff_member_by_username_and_name(admin, make_staff, typed):
    member = make_staff("operations", username="grace.h")
    member.first_name, member.last_name = "Grace", "Hopper"
    member.save()
    page = found(admin, typed)
    assert 'id="search-staff"' in page
    assert reverse("staff-view-staff", args=[member.pk]) in page
    assert "Operations" in page  # the role in words


# --- Roles ---------------------------------------------------------------------------------


def test_staff_are_searched_only_for_those_who_manage_staff(client_as, make_staff):
    make_staff("auditor", username="searchable-colleague")
    for role in ROLES:
        page = found(client_as(role), "searchable")
        assert ('id="search-staff"' in page) == (role == "admin"), role


def test_a_member_without_a_role_finds_nothing(client_as, ada):
    tx = TransactionFactory(customer=ada)
    client = client_as(None)
    assert "Ada Lovelace" not in found(client, "Ada")
    # Not even the exact id of a record they may not open: no jump to a 403.
    page = found(client, tx.transaction_id)
    assert reverse("payments-view-transaction", args=[tx.transaction_id]) not in page
    assert "nothing your role may see" in page


def test_a_member_who_reads_payments_only_does_not_get_customers(client, make_staff, ada):
    reader = make_staff(None, username="payments-reader")
    group = Group.objects.create(name="payments-readers")
    group.permissions.add(Permission.objects.get(content_type__app_label="core", codename="view_payments"))
    reader.groups.add(group)
    client.force_login(reader)
    tx = TransactionFactory(customer=ada)
    page = found(client, "Ada")
    assert "search-customers" not in page
    assert "ada.lovelace@example.com" not in page
    assert jumps(client, tx.transaction_id) == reverse("payments-view-transaction", args=[tx.transaction_id])
    assert "search-customers" not in found(client, ada.customer_id)


# --- Bounds, short and empty queries, the drop-down ---------------------------------------


def test_a_group_is_bounded_and_links_to_the_list_filtered(admin):
    CustomerFactory.create_batch(12, name="Helix Analytics")
    page = found(admin, "Helix")
    assert page.count(">Helix Analytics</a>") == 8
    assert reverse("customers-list-customers") + "?view=all&amp;q=Helix" in page
    assert "See all customers in the list" in page
    # The list it links to shows them.
    listed = admin.get(reverse("customers-list-customers"), {"view": "all", "q": "Helix"}).content.decode()
    assert listed.count("Helix Analytics") >= 12


def test_a_kind_without_a_fitting_list_filter_lists_more_on_the_search_page(admin):
    for n in range(10):
        TransactionFactory(transaction_id=f"abcd{n:04d}-0000-4000-8000-000000000000")
    page = found(admin, "abcd")
    assert page.count('href="/payments/transactions/abcd') == 8
    more = reverse("search") + "?q=abcd&amp;kind=transactions"
    assert more in page
    assert ">See more transactions</a>" in page
    assert found(admin, "abcd", kind="transactions").count('href="/payments/transactions/abcd') == 10


def test_empty_and_too_short_queries_search_nothing(admin, ada, django_assert_max_num_queries):
    page = found(admin, "")
    assert "Type what you have" in page
    with django_assert_max_num_queries(4):  # the session, the member, their permissions: no search
        page = found(admin, "A")
    assert "Type at least 2 characters" in page
    assert "Ada Lovelace" not in page


def test_nothing_found_says_where_it_looked(client_as):
    page = found(client_as("operations"), "zz-no-such-thing")
    assert (
        "Nothing found for “zz-no-such-thing” among customers, transactions, quotes, payment accounts, automation rules."
        in page
    )


def test_the_drop_down_lists_without_jumping(admin, ada):
    response = admin.get(SEARCH, {"q": ada.customer_id}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body
    assert reverse("customers-view-customer", args=[ada.customer_id]) in body
    assert "All results for" in body


def test_the_drop_down_is_empty_once_the_box_is_cleared(admin):
    response = admin.get(SEARCH, {"q": ""}, headers={"HX-Request": "true"})
    assert response.content.decode().strip() == ""
    response = admin.get(SEARCH, {"q": "a"}, headers={"HX-Request": "true"})
    assert "Type at least 2 characters." in response.content.decode()


def test_the_search_box_is_on_every_page(admin):
    page = admin.get(reverse("payments-list-transactions")).content.decode()
    assert 'role="search"' in page
    assert f'action="{SEARCH}"' in page
    assert 'src="/static/js/menus.js"' in page


def test_the_number_of_queries_is_bounded_and_does_not_grow_with_the_matches(admin, make_staff):
    def count(q: str) -> int:
        with CaptureQueriesContext(connection) as captured:
            found(admin, q)
        return len(captured)

    def records(prefix: str, n: int):
        for i in range(n):
            customer = CustomerFactory(name=f"{prefix} customer {i}", customer_id=f"{prefix}{i:04d}-c")
            TransactionFactory(customer=customer, transaction_id=f"{prefix}{i:04d}-t")
            QuoteFactory(customer=customer, quote_id=f"{prefix}{i:04d}-q")
            PaymentAccountFactory(customer=customer, account_id=f"{prefix}{i:04d}-a")
            AutomationRuleFactory(customer=customer, rule_id=f"{prefix}{i:04d}-r", name=f"{prefix} rule {i}")
            make_staff("auditor", username=f"{prefix}-member-{i}")

    records("fewx", 1)
    records("many", 12)
    # The ways of every kind are one statement, however many match.
    admin.get(reverse("home"))  # the top bar's cached figures, read once
    few, many = count("fewx"), count("many")
    assert many == few <= 6


@pytest.mark.parametrize(
    "typed",
    [
        "many",  # an id's start of every kind, names, e-mails, usernames
        "many customer 3",  # a name's start
        "ustomer",  # a word inside a name (nothing starts with it)
        "many0003-c",  # a customer's full id: the jump
        "many0003-q-0000-4000-8000-000000000000",  # a quote made elsewhere, by its whole id
        "6789",  # the last digits of a bank account
        "0xabc000",  # a wallet address's start
        "nobody-at-all@example.com",  # nothing
    ],
)
def test_the_search_page_answers_in_six_queries_whatever_was_typed(
    admin, make_staff, typed, django_assert_max_num_queries
):
    for i in range(6):
        customer = CustomerFactory(name=f"many customer {i}", customer_id=f"many{i:04d}-c")
        TransactionFactory(
            customer=customer,
            transaction_id=f"many{i:04d}-t",
            quote_id=f"many{i:04d}-q-0000-4000-8000-000000000000",
        )
        QuoteFactory(customer=customer, quote_id=f"many{i:04d}-qq")
        PaymentAccountFactory(customer=customer, account_id=f"many{i:04d}-a")
        PaymentAccountFactory(customer=customer, bank=True, details={"bankAccountMask": "****6789"})
        AutomationRuleFactory(customer=customer, rule_id=f"many{i:04d}-r", name=f"many rule {i}")
        make_staff("auditor", username=f"many-member-{i}")
    PaymentAccountFactory(details={"address": {"address": "0xAbC0000000000000000000000000000000000def"}})
    admin.get(reverse("home"))  # the top bar's cached figures, read once
    with django_assert_max_num_queries(6):
        response = admin.get(SEARCH, {"q": typed})
    assert response.status_code in (200, 302)
    if typed.startswith("many0003-"):  # a full id: straight to its page
        assert response.status_code == 302 and typed in response["Location"]
    elif typed.startswith("nobody"):
        assert "Nothing found" in response.content.decode()
    else:
        assert response.status_code == 200 and "Nothing found" not in response.content.decode()
