"""The sweep's full-size data (bench/sweep.py): skewed mirror rows by INSERT ... SELECT
generate_series (one organization holding most customers, rare type/status/issue combinations,
a few customers holding most transactions, a year of audit events, inbox events), then what
the work lists show (payment accounts, quotes, rules, approvals, monitoring rules and alerts, a
watch list, escalations, notifications)."""

import datetime as dt
import time


def build(customers: int, transactions: int, audit_events: int, inbox_events: int, big_share: float) -> float:
    """Skewed rows by INSERT ... SELECT generate_series (as bench/pages.py and bench/home.py)."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO customers_customer (customer_id, organization_id, customer_type, status, name, email,
                verification_link, available_payment_methods, status_since, first_seen_at, upstream_updated_at,
                synced_at, missing_upstream, case_decision, escalation_level, open_monitoring_alerts,
                open_screening_alerts)
            SELECT md5('c' || i),
                   CASE WHEN i %% 10 < 8 THEN 'org-big' ELSE 'org-' || (i %% 200) END,
                   CASE WHEN i %% 1000 = 7 THEN 'BUSINESS' ELSE 'INDIVIDUAL' END,
                   CASE WHEN i %% 100 < 25 THEN 'UNDER_REVIEW' WHEN i %% 100 < 50 THEN 'NEEDS_ADDITIONAL_INFORMATION'
                        WHEN i %% 100 < 58 THEN 'REJECTED' WHEN i %% 100 < 65 THEN 'CREATED'
                        WHEN i %% 100 < 95 THEN 'ACTIVE' ELSE 'DEACTIVATED' END,
                   'Customer ' || i, 'c' || i || '@example.com', '', '[]'::jsonb,
                   now() - make_interval(secs => i * 7), now(),
                   now() - make_interval(secs => (i::bigint * 7919) %% 5000000), now(), false, '', 0, 0, 0
            FROM generate_series(1, %(n)s) AS i
            """,
            {"n": customers},
        )
        cursor.execute(
            """
            INSERT INTO customers_verificationissue (customer_id, code, message, timestamp, customer_status)
            SELECT id, CASE WHEN id %% 500 = 0 THEN 'SELFIE_MISMATCH' ELSE 'DOCUMENT_MISSING_BACK' END, '', status_since, status
            FROM customers_customer WHERE status = 'NEEDS_ADDITIONAL_INFORMATION'
            """,
            [],
        )
        cursor.execute("SELECT min(id) FROM customers_customer")
        c0 = cursor.fetchone()[0]
        # Customer 1 holds `big_share` of the transactions, customers 2-3 a tenth of that each.
        cursor.execute(
            """
            INSERT INTO payments_transaction (transaction_id, quote_id, customer_id, customer_upstream_id, status,
                status_since, source_account_id, source_payment_method, source_currency, source_amount,
                source_reference_id, destination_account_id, destination_payment_method, destination_currency,
                destination_amount, destination_reference_id, exchange_rate, fees, correlation_id,
                transfer_instructions, expires_at, created_upstream_at, upstream_updated_at, synced_at,
                missing_upstream)
            SELECT md5('t' || i), md5('q' || i), %(c0)s + k.n, md5('c' || (k.n + 1)), s.status, t.created,
                   'acc', CASE WHEN i %% 7 = 0 THEN 'BASE' ELSE 'ACH' END, 'USD', 100 + (i %% 1000), '',
                   'acc2', CASE WHEN i %% 7 = 0 THEN 'ACH' ELSE 'BASE' END, 'USDC', 99 + (i %% 1000), '',
                   1, '{}'::jsonb, 'corr-' || i, NULL,
                   CASE WHEN s.status = 'AWAITING_TRANSFER' THEN t.created + interval '30 minutes' END,
                   t.created, t.created, now(), false
            FROM generate_series(1, %(rows)s) AS i,
                 LATERAL (SELECT now() - (%(rows)s - i) * interval '6 seconds' AS created) AS t,
                 LATERAL (SELECT CASE WHEN i %% 1000 < %(big)s THEN 0
                                      WHEN i %% 1000 < %(big)s * 1.2 THEN 1 + i %% 2
                                      ELSE i %% %(customers)s END AS n) AS k,
                 LATERAL (SELECT CASE WHEN i %% 100 < 90 THEN 'COMPLETED' WHEN i %% 100 < 94 THEN 'AWAITING_TRANSFER'
                                      WHEN i %% 100 < 96 THEN 'PROCESSING' WHEN i %% 100 < 97 THEN 'CREATED'
                                      WHEN i %% 100 < 98 THEN 'FAILED' WHEN i %% 100 < 99 THEN 'CANCELLED'
                                      ELSE 'EXPIRED' END AS status) AS s
            """,
            {"c0": c0, "rows": transactions, "big": int(big_share * 1000), "customers": customers},
        )
        cursor.execute(
            """
            INSERT INTO core_auditevent (created_at, actor_id, actor_username, action, target_kind, target_id,
                outcome, request_id, details)
            SELECT now() - make_interval(secs => (i::bigint * 365 * 86400 / %(n)s)::int), NULL, 'staff-' || (i %% 20),
                   CASE WHEN i %% 1000 = 0 THEN 'transaction.cancel' ELSE 'customer.update' END,
                   CASE WHEN i %% 1000 = 0 THEN 'transaction' ELSE 'customer' END,
                   md5('c' || (1 + i %% %(customers)s)), 'success', '', '{}'::jsonb
            FROM generate_series(1, %(n)s) AS i
            """,
            {"n": audit_events, "customers": customers},
        )
        cursor.execute(
            """
            INSERT INTO mirror_webhookevent (event_id, event_type, payload, occurred_at, received_at, state, attempts,
                last_error, processed_at, not_before)
            SELECT 'evt_' || i, 'customer.update', '{}'::jsonb, now(), now() - make_interval(secs => i),
                   CASE WHEN i <= 50 THEN 'received' WHEN i <= 60 THEN 'failed' ELSE 'processed' END, 1, '', NULL, NULL
            FROM generate_series(1, %(n)s) AS i
            """,
            {"n": inbox_events},
        )
        for table in (
            "customers_customer",
            "customers_verificationissue",
            "payments_transaction",
            "core_auditevent",
            "mirror_webhookevent",
        ):
            cursor.execute(f"VACUUM ANALYZE {table}")
    return time.perf_counter() - started


def add_payment_rows(customers: int, quotes: int, rules: int) -> float:
    """A payment account per customer, `quotes` quotes and `rules` rules (INSERT ... SELECT)."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("SELECT min(id) FROM customers_customer")
        c0 = cursor.fetchone()[0]
        cursor.execute(
            """
            INSERT INTO payments_paymentaccount (account_id, form_link, customer_id, customer_upstream_id, account_type,
                status, nickname, is_third_party, details, created_upstream_at, first_seen_at, upstream_updated_at,
                synced_at, missing_upstream, hold_reason)
            SELECT md5('a' || i), NULL, %(c0)s + i - 1, md5('c' || i),
                   CASE WHEN i %% 2 = 0 THEN 'EXTERNAL_BANK_ACCOUNT' ELSE 'EXTERNAL_CRYPTO_WALLET' END,
                   'ACTIVE', 'Account ' || i, false,
                   CASE WHEN i %% 2 = 0
                        THEN jsonb_build_object('bankAccountMask', '****' || lpad((i %% 10000)::text, 4, '0'),
                                                'bankAccountCurrency', jsonb_build_object('label', 'USD'))
                        ELSE jsonb_build_object('address', jsonb_build_object('address', '0x' || md5('w' || i) || substr(md5('x' || i), 1, 8),
                                                                              'chain', 'BASE'),
                                                'currency', jsonb_build_object('label', 'USDC'))
                   END,
                   now(), now(), now(), now(), false, ''
            FROM generate_series(1, %(n)s) AS i
            """,
            {"n": customers, "c0": c0},
        )
        cursor.execute(
            """
            INSERT INTO payments_quote (quote_id, idempotency_key, customer_id, created_by_id, request,
                source_account_id, source_payment_method, source_currency, source_amount, destination_account_id,
                destination_payment_method, destination_currency, guaranteed, exchange_rate, destination_amount,
                fees, expires_at, created_at)
            SELECT md5('q' || i), md5('k' || i)::uuid, %(c0)s + i %% %(customers)s, NULL,
                   '{"source": {"currency": "USD"}, "destination": {"currency": "USDC"}}'::jsonb,
                   md5('a' || i), 'ACH', 'USD', 100, md5('a' || (i + 1)), 'BASE', 'USDC', false,
                   1, 99, '{}'::jsonb, now() - interval '1 hour', now() - interval '2 hours'
            FROM generate_series(1, %(n)s) AS i
            """,
            {"n": quotes, "c0": c0, "customers": customers},
        )
        cursor.execute(
            """
            INSERT INTO payments_automationrule (rule_id, customer_id, customer_upstream_id, name, source_account_id,
                transaction_template, trigger, created_upstream_at, upstream_updated_at, synced_at, missing_upstream)
            SELECT md5('r' || i), %(c0)s + i %% %(customers)s, md5('c' || i), 'Sweep ' || i, md5('a' || i),
                   '{}'::jsonb, '{"cronSchedule": "0 9 * * 1-5"}'::jsonb, now(), now(), now(), false
            FROM generate_series(1, %(n)s) AS i
            """,
            {"n": rules, "c0": c0, "customers": customers},
        )
        for table in ("payments_paymentaccount", "payments_quote", "payments_automationrule"):
            cursor.execute(f"VACUUM ANALYZE {table}")
    return time.perf_counter() - started


def build_work(customers: int) -> float:
    """What the work lists show: a payment account per customer, quotes and automation rules
    (add_payment_rows), approval requests, escalated cases, monitoring rules with alerts, a
    watch list, and notifications for the sweep's staff."""
    import uuid

    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.utils import timezone

    started = time.perf_counter()
    add_payment_rows(customers, quotes=max(1000, customers // 5), rules=max(100, customers // 50))
    from monitoring.models import Alert, MonitoringRule, RuleVersion, WatchList, WatchListEntry
    from monitoring.rules import default_params
    from notifications.models import Notification
    from payments.models import ApprovalRequest, Quote

    now = timezone.now()
    maker, _ = get_user_model().objects.get_or_create(username="sweep-maker")
    quotes = list(Quote.objects.order_by("id").values_list("id", "quote_id")[:2000])
    statuses = ("pending", "executed", "rejected", "expired", "withdrawn")
    ApprovalRequest.objects.bulk_create(
        ApprovalRequest(
            kind="execute_quote",
            status=statuses[i % len(statuses)],
            summary=f"Execute quote {quote_id[:8]}",
            payload={},
            maker=maker,
            quote_id=pk,
            idempotency_key=uuid.uuid4(),
            created_at=now - dt.timedelta(minutes=i),
            expires_at=now + dt.timedelta(days=1),
        )
        for i, (pk, quote_id) in enumerate(quotes)
    )
    rules = []
    for kind in ("large_transfer", "velocity", "structuring", "rapid_in_out"):
        rule = MonitoringRule.objects.create(name=f"Sweep {kind}", kind=kind, status="live", created_by=maker)
        version = RuleVersion.objects.create(
            rule=rule, number=1, params=default_params(kind), created_by=maker, approved_by=maker, approved_at=now
        )
        MonitoringRule.objects.filter(pk=rule.pk).update(current_version=version, live_version=version)
        rules.append(rule)
    watchlist = WatchList.objects.create(name="Sweep list", format="opensanctions", entry_count=20_000, imported_at=now)
    WatchListEntry.objects.bulk_create(
        WatchListEntry(
            watchlist=watchlist, source_id=f"NK-{i}", name=f"Listed Person {i}", names=[f"listed person {i}"]
        )
        for i in range(20_000)
    )
    versions = {v.rule_id: v for v in RuleVersion.objects.filter(rule__in=rules)}
    with connection.cursor() as cursor:
        cursor.execute("SELECT min(id) FROM customers_customer")
        c0 = cursor.fetchone()[0]
        # One case in 5,000 escalated to a lead.
        cursor.execute("UPDATE customers_customer SET escalation_level = 1 WHERE id % 5000 = 0")
    alerts = max(1000, customers // 10)
    for start in range(0, alerts, 10_000):
        Alert.objects.bulk_create(
            Alert(
                kind="screening" if i % 10 == 0 else "monitoring",
                customer_id=c0 + (i * 7) % customers,
                rule=None if i % 10 == 0 else rules[i % len(rules)],
                rule_version=None if i % 10 == 0 else versions[rules[i % len(rules)].id],
                dedupe_key=f"sweep-{i}",
                sentence="3 payouts of 9,900-9,990 USD in 20 h",
                status="open" if i % 3 else "decided",
                decision="" if i % 3 else "false_positive",
                created_at=now - dt.timedelta(minutes=i),
            )
            for i in range(start, min(alerts, start + 10_000))
        )
    # The customers' open alert counts, as monitoring's migration fills them.
    from importlib import import_module

    fill = import_module("monitoring.migrations.0002_customer_open_alert_counts").FILL
    with connection.cursor() as cursor:
        cursor.execute(fill)
    staff = list(get_user_model().objects.filter(username__startswith="sweep-"))
    for member in staff:
        Notification.objects.bulk_create(
            Notification(
                recipient=member,
                kind="assigned",
                sentence=f"Case {i} was assigned to you",
                link="/customers/",
                created_at=now - dt.timedelta(minutes=i),
                read_at=None if i % 4 == 0 else now,
                dedupe_key=f"sweep-{member.pk}-{i}",
            )
            for i in range(2_000)
        )
    with connection.cursor() as cursor:
        for table in (
            "payments_approvalrequest",
            "monitoring_alert",
            "notifications_notification",
            "customers_customer",
        ):
            cursor.execute(f"VACUUM ANALYZE {table}")
    return time.perf_counter() - started
