"""python manage.py sandbox_keys create [--organization UUID] [--tier builder] [--read-only]

Prints the one new key on stdout and nothing else, so that a script can capture it:
    PAYMENTS_API_KEY=$(python manage.py sandbox_keys create)
"""

import argparse
import uuid

from django.core.management.base import BaseCommand

from sandbox.auth import create_key
from sandbox.models import Tier


def organization_id(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a UUID, not {value!r}") from None


class Command(BaseCommand):
    help = "Manage API keys of the Payments API sandbox."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        create = actions.add_parser("create", help="Create a key and print it (shown only this once).")
        create.add_argument("--organization", type=organization_id, help="Organization UUID (default: a new one)")
        create.add_argument("--tier", choices=Tier.values, default=Tier.STANDARD)
        create.add_argument("--read-only", action="store_true", help="The key may only read")

    def handle(self, *args, action, **options):
        _, plain = create_key(
            organization_id=options["organization"], tier=options["tier"], read_only=options["read_only"]
        )
        self.stdout.write(plain)
