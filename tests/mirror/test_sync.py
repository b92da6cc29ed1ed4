"""Full syncs against the sandbox over HTTP (in-process), and their faults."""

import datetime as dt
import uuid

import httpx
import pytest
from django.core.management import call_command
from django.utils import timezone

from core.models import hold_lock
from customers.models import Customer, CustomerStatusChange
from mirror.models import SyncRun
from mirror.sync import sync_customers, sync_payment_accounts
from sandbox import models as sbx
from upstream.client import get_client


def make_sandbox_customers(key, n, *, status="ACTIVE"):
    """Many customers straight into the sandbox's tables: a fixture, not an API flow."""
    now = timezone.now()
    sbx.Customer.objects.bulk_create(
        sbx.Customer(
            organization_id=key.organization_id,
            customer_type="INDIVIDUAL" if i % 3 else "BUSINESS",
            status=status,
            email=f"person{i}@example.com",
            first_name=f"First{i}",
            last_name=f"Last{i}",
            business_name=f"Business {i} Ltd",
            verification_token=uuid.uuid4().hex,
            created_at=now + dt.timedelta(microseconds=i),
            updated_at=now,
        )
        for i in range(n)
    )


@pytest.mark.slow
def test_ten_thousand_customers_are_mirrored_exactly(upstream):
    make_sandbox_customers(upstream.key, 10_000)
    run = sync_customers()
    assert run.outcome == "succeeded", run.error
    assert run.counts == {"created": 10_000, "updated": 0, "unchanged": 0, "missing": 0, "failed": 0}
    assert Customer.objects.count() == 10_000
    # Field by field, a sample against the API's own answers.
    for item in list(get_client().customers.iter())[::997]:
        mirrored = Customer.objects.get(customer_id=item.customer_id)
        assert mirrored.status == item.customer_status
        assert mirrored.customer_type == item.customer_type
        assert mirrored.name == item.name
        assert mirrored.email == item.email
        assert mirrored.organization_id == item.organization_id
        assert mirrored.verification_link == item.verification_link
        assert mirrored.upstream_updated_at == item.updated_at
        assert mirrored.available_payment_methods == item.available_payment_methods


def test_a_second_sync_changes_nothing_and_writes_no_history(upstream):
    make_sandbox_customers(upstream.key, 250)
    sync_customers()
    history = CustomerStatusChange.objects.count()
    assert history == 250
    run = sync_customers()
    assert run.counts["unchanged"] == 250 and run.counts["created"] == run.counts["updated"] == 0
    assert CustomerStatusChange.objects.count() == history


def test_a_customer_deleted_upstream_is_marked_not_removed(upstream):
    make_sandbox_customers(upstream.key, 5)
    sync_customers()
    gone = sbx.Customer.objects.first()
    gone_id = str(gone.pk)
    gone.delete()
    run = sync_customers()
    assert run.counts["missing"] == 1
    row = Customer.objects.get(customer_id=gone_id)
    assert row.missing_upstream and row.missing_since is not None
    assert Customer.objects.count() == 5


def test_a_status_change_upstream_is_seen_by_the_next_sync(upstream):
    make_sandbox_customers(upstream.key, 3, status="UNDER_REVIEW")
    sync_customers()
    target = sbx.Customer.objects.order_by("created_at").first()
    upstream.helper(f"customers/{target.pk}/review", {"outcome": "ACTIVE", "issues": []})
    sync_customers()
    mirrored = Customer.objects.get(customer_id=str(target.pk))
    assert mirrored.status == "ACTIVE"
    change = mirrored.status_changes.latest("id")
    assert (change.old_status, change.new_status, change.seen_by) == ("UNDER_REVIEW", "ACTIVE", "sync")


def test_a_failing_page_keeps_the_pages_stored_before_it(upstream, settings):
    make_sandbox_customers(upstream.key, 350)
    real = httpx.WSGITransport(app=__import__("django.core.wsgi").core.wsgi.get_wsgi_application())
    calls = {"n": 0}

    def flaky(request):
        calls["n"] += 1
        if calls["n"] >= 3:  # the third page and every retry of it
            return httpx.Response(503, json={"message": "down", "code": "INTERNAL_SERVER_ERROR"})
        return real.handle_request(request)

    from paymentsapi import PaymentsApiClient

    client = PaymentsApiClient(
        api_key=upstream.plain_key,
        base_url="http://testserver/sandbox",
        transport=httpx.MockTransport(flaky),
        max_retries=2,
        sleep=lambda _: None,
    )
    run = sync_customers(client=client)
    assert run.outcome == "failed"
    assert calls["n"] == 2 + 3  # two good pages, then the third tried three times
    assert Customer.objects.count() == 200
    assert run.counts["failed"] == 1
    # Nothing is marked missing by an incomplete pass.
    assert not Customer.objects.filter(missing_upstream=True).exists()
    # The next run goes over everything again, and finishes.
    assert sync_customers().outcome == "succeeded"
    assert Customer.objects.count() == 350


def test_two_syncs_never_run_at_once(upstream):
    from core.models import LockHeld

    with hold_lock("mirror-sync", ttl=dt.timedelta(minutes=1)), pytest.raises(LockHeld):
        sync_customers()


def test_payment_accounts_sync_keeps_a_pending_bank_account_by_its_form_link(upstream):
    customer = upstream.call(
        "POST",
        "/customers",
        {"customerType": "INDIVIDUAL", "email": "a@example.com", "firstName": "A", "lastName": "B"},
    )
    pending = upstream.call(
        "POST",
        "/payment-accounts",
        {
            "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
            "customerId": customer["customerId"],
            "nickname": "Payroll",
            "externalBankAccount": {
                "bankAccountType": "CHECKING",
                "bankAccountOwnerName": "A B",
                "bankName": "First Bank",
                "bankAccountCurrency": "USD",
                "bankAccountPaymentMethod": "ACH",
            },
        },
    )
    assert pending["paymentAccountId"] == ""
    run = sync_payment_accounts()
    assert run.outcome == "succeeded", run.error
    from payments.models import PaymentAccount

    row = PaymentAccount.objects.get()
    assert row.account_id is None and row.form_link == pending["bankAccountFormLink"]
    assert sync_payment_accounts().counts["unchanged"] == 1
    assert PaymentAccount.objects.count() == 1


def test_a_completed_hosted_bank_form_becomes_the_same_mirror_row(upstream):
    from payments.models import PaymentAccount

    customer = upstream.call(
        "POST",
        "/customers",
        {"customerType": "INDIVIDUAL", "email": "c@example.com", "firstName": "C", "lastName": "D"},
    )
    pending = upstream.call(
        "POST",
        "/payment-accounts",
        {
            "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
            "customerId": customer["customerId"],
            "nickname": "Rent",
            "externalBankAccount": {
                "bankAccountType": "CHECKING",
                "bankAccountOwnerName": "C D",
                "bankName": "First Bank",
                "bankAccountCurrency": "USD",
                "bankAccountPaymentMethod": "WIRE",
            },
        },
    )
    sync_payment_accounts()
    row = PaymentAccount.objects.get()
    token = pending["bankAccountFormLink"].rstrip("/").rsplit("/", 1)[-1]
    upstream.helper(
        f"bank-account-forms/{token}/complete", {"bankAccountNumber": "987654321", "bankRoutingNumber": "021000021"}
    )
    run = sync_payment_accounts()
    assert run.outcome == "succeeded", run.error
    merged = PaymentAccount.objects.get()
    assert merged.pk == row.pk
    assert merged.account_id and merged.status == "ACTIVE" and not merged.missing_upstream
    # The mirror keeps the mask, never the numbers.
    assert "bankAccountNumber" not in merged.details and merged.details.get("bankAccountMask")


def test_sync_mirror_command_prints_a_summary(upstream, capsys):
    make_sandbox_customers(upstream.key, 3)
    call_command("sync_mirror", "--customers", "--quiet")
    out = capsys.readouterr().out
    assert "customers: 3 created, 0 updated, 0 unchanged, 0 missing, 0 failed" in out
    assert SyncRun.objects.get(kind="customers").outcome == "succeeded"


def test_a_sync_that_grows_the_mirror_by_a_large_share_refreshes_its_statistics(upstream):
    """A first sync into an empty mirror must not keep the plans of an empty table."""
    from django.db import connection

    from mirror.sync import _Statistics

    # The statistics an earlier test left behind set the share to reach (ANALYZE outlives rollbacks).
    statistics = _Statistics(Customer)
    threshold = max(statistics.MIN_ROWS, int(statistics.known * statistics.SHARE))
    size = threshold + 10
    make_sandbox_customers(upstream.key, size)
    analysed = []

    def watch(execute, sql, params, many, context):
        if sql.startswith("ANALYZE"):
            analysed.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(watch):
        assert sync_customers().outcome == "succeeded"
        assert sync_customers().outcome == "succeeded"  # nothing new: nothing to analyse
    if connection.vendor == "postgresql":
        tables = {sql.split()[-1].strip('"') for sql in analysed}
        assert {"customers_customer", "customers_verificationissue"} <= tables
        assert len(analysed) == len(tables)  # once, by the first sync
        with connection.cursor() as cursor:
            cursor.execute("SELECT reltuples FROM pg_class WHERE relname = 'customers_customer'")
            # Analysed once the rows made reached the threshold (a page before the last, maybe).
            assert cursor.fetchone()[0] >= threshold
    else:
        assert analysed == []
