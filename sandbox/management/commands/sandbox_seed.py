"""python manage.py sandbox_seed [--customers N]

Makes sure the well-known demo API key exists (sandbox.demo.keys.DEMO_API_KEY, the back-office's
key in the embedded setup) and fills its organization with demo data in every state the
sandbox can reach. Idempotent: when the demo organization has customers already it adds
nothing and says so. `seed_demo` calls it when the sandbox is mounted.
"""

import argparse

from django.core.management.base import BaseCommand

from sandbox.demo.keys import DEMO_API_KEY, DEMO_ORGANIZATION_ID, ensure_demo_key
from sandbox.demo.seed import DEFAULT_CUSTOMERS, MIN_CUSTOMERS, seed, summary


def customer_count(value: str) -> int:
    try:
        count = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {value!r}") from None
    if count < MIN_CUSTOMERS:
        raise argparse.ArgumentTypeError(f"must be at least {MIN_CUSTOMERS}, so that every customer status appears")
    return count


class Command(BaseCommand):
    help = "Create the sandbox's demo API key and demo data (skipped when the demo organization has customers)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--customers",
            type=customer_count,
            default=DEFAULT_CUSTOMERS,
            help=f"How many demo customers (default {DEFAULT_CUSTOMERS}, at least {MIN_CUSTOMERS})",
        )

        parser.add_argument(
            "--key-only", action="store_true", help="Only make sure the demo API key exists (no demo data)."
        )

    def handle(self, *args, customers, key_only=False, **options):
        if key_only:
            ensure_demo_key()
            self.stdout.write(f"Demo API key (well known, not secret): {DEMO_API_KEY}")
            return
        counts = seed(customers=customers)
        if counts is None:
            self.stdout.write(
                f"Sandbox demo data exists already (organization {DEMO_ORGANIZATION_ID} has customers); nothing added."
            )
            counts = summary()
        else:
            self.stdout.write(f"Sandbox demo data created for organization {DEMO_ORGANIZATION_ID}:")
        for group, values in counts.items():
            if isinstance(values, dict):
                text = ", ".join(f"{name} {n}" for name, n in values.items()) or "none"
            else:
                text = str(values)
            self.stdout.write(f"  {group}: {text}")
        self.stdout.write(f"Demo API key (well known, not secret): {DEMO_API_KEY}")
