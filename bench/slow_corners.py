"""Corners the sweep did not visit, over 1,000,000 mirrored customers on PostgreSQL: the queue's
SLA filters (`?sla=due` from the customer_sla_start expression index), the customer picker's
search by a common prefix (bounded to the first 1,000 matches), and the create-customer page
with no type, an individual's part or a business's part.

Prints JSON: server time p50/p99 and SQL queries per request (in-process, Django's test Client,
every middleware, a logged-in session), bytes of the create pages, and the plan of `?sla=due`.

    .venv/bin/python bench/slow_corners.py [--customers 1000000] [--repeats 30]
"""

import argparse
import json
import os
import warnings

warnings.filterwarnings("ignore", message="No directory at")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--customers", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()

    from _setup import production_env, setup_django

    os.environ.update(production_env(ALLOWED_HOSTS="testserver", PAYMENTS_API_BASE_URL="http://127.0.0.1:9/unused"))
    setup_django("bench_corners")
    from django.conf import settings

    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group, Permission
    from django.test import Client
    from django.utils import timezone
    from pages import generate, measure

    from core.access import sync_role_groups
    from customers.models import Customer
    from customers.selectors import needs_person_q, sla_q

    seconds = generate(args.customers)
    sync_role_groups(Group, Permission)
    member = get_user_model().objects.create_user("bench-corners", password="x" * 20)
    member.groups.add(*Group.objects.filter(name__in=["compliance", "operations"]))
    client = Client()
    client.force_login(member)

    urls = {
        "queue ?sla=due": "/customers/?sla=due",
        "queue ?sla=breached": "/customers/?sla=breached",
        "queue ?view=all&sla=due": "/customers/?view=all&sla=due",
        "customer picker ?q=Olivia (50,000 matches)": "/payments/customers/search?q=Olivia",
        "customer picker ?q=Olivia Smith 1": "/payments/customers/search?q=Olivia%20Smith%201",
        "create customer, no type": "/customers/new",
        "create customer, individual": "/customers/new?customer_type=INDIVIDUAL",
        "create customer, business": "/customers/new?customer_type=BUSINESS",
    }
    results = {name: measure(client, url, args.repeats) for name, url in urls.items()}
    for name, url in urls.items():
        if url.startswith("/customers/new"):
            results[name]["bytes"] = len(client.get(url).content)
    due = Customer.objects.filter(needs_person_q(), sla_q("due", timezone.now()))
    plan = due.order_by("status_since", "id")[:51].explain(analyze=True)
    print(
        json.dumps(
            {
                "customers": args.customers,
                "generate_seconds": round(seconds, 1),
                "results": results,
                "sla_due_plan": [line.strip() for line in plan.splitlines() if "Scan" in line or "Execution" in line],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
