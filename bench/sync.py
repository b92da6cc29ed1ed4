"""Full sync of N sandbox customers into the mirror on PostgreSQL.

Prints JSON: customers per second, SQL statements per 100 customers on the mirror's side,
and peak memory. Each size runs in its own process, so peaks compare: run with the default
sizes (10,000 and 100,000) to see whether memory stays flat as the count grows.

    .venv/bin/python bench/sync.py [--sizes 10000 100000]
"""

import argparse
import json
import resource
import subprocess
import sys
import time


def one(size: int) -> dict:
    from _setup import in_process_upstream, setup_django

    setup_django(f"bench_sync_{size}")
    import datetime as dt
    import uuid

    from django.db import connection
    from django.utils import timezone

    import mirror.sync as sync
    from customers.models import Customer
    from sandbox import models as sbx

    key, _ = in_process_upstream()
    now = timezone.now()
    for start in range(0, size, 5000):
        sbx.Customer.objects.bulk_create(
            sbx.Customer(
                organization_id=key.organization_id,
                customer_type="INDIVIDUAL",
                status=("ACTIVE", "UNDER_REVIEW", "NEEDS_ADDITIONAL_INFORMATION")[i % 3],
                email=f"p{i}@example.com",
                first_name=f"First{i}",
                last_name=f"Last{i}",
                verification_token=uuid.uuid4().hex,
                created_at=now + dt.timedelta(microseconds=i),
                updated_at=now,
            )
            for i in range(start, min(size, start + 5000))
        )

    # The provider's side is analysed once loaded (it stands for a provider's own database);
    # the mirror's tables are left as a new deployment has them: empty, analysed at 0 rows.
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {sbx.Customer._meta.db_table}")
        cursor.execute("ANALYZE customers_customer")
        cursor.execute(
            "SELECT name, setting FROM pg_settings WHERE name IN "
            "('server_version', 'autovacuum', 'shared_buffers', 'work_mem', 'synchronous_commit', 'fsync')"
        )
        postgresql = dict(cursor.fetchall())

    # Count the statements of the mirror's side only (the in-process sandbox shares the connection).
    counting = {"on": False, "n": 0}

    def counter(execute, sql, params, many, context):
        if counting["on"]:
            counting["n"] += 1
        return execute(sql, params, many, context)

    real_upsert = sync.customers_upsert

    def counted_upsert(**kwargs):
        counting["on"] = True
        try:
            return real_upsert(**kwargs)
        finally:
            counting["on"] = False

    sync.customers_upsert = counted_upsert
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with connection.execute_wrapper(counter):
        started = time.perf_counter()
        run = sync.sync_customers()
        elapsed = time.perf_counter() - started
    assert run.outcome == "succeeded", run.error
    assert Customer.objects.count() == size
    return {
        "customers": size,
        "postgresql": postgresql,
        "seconds": round(elapsed, 2),
        "customers_per_second": round(size / elapsed),
        "mirror_sql_statements_per_100_customers": round(counting["n"] / (size / 100), 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "rss_growth_during_sync_mb": round((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024, 1),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one)))
        return
    from _setup import machine_speed, scaled_target

    results, speed = [], [machine_speed()]
    for size in args.sizes:
        out = subprocess.run([sys.executable, __file__, "--one", str(size)], capture_output=True, text=True, check=True)
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    speed.append(machine_speed())
    report = {"benchmark": "sync", "database": "postgresql", "runs": results}
    report["machine_speed_ms_before_after"] = speed
    report["customers_per_second_target_scaled"] = scaled_target(2000, speed)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
