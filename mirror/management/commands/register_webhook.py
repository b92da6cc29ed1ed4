from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from mirror.models import WebhookSecret
from paymentsapi import PaymentsApiError
from upstream.client import get_client

# customer.update is the spec's; the others are the sandbox's extensions (ignored elsewhere).
EVENTS = ["customer.update", "transaction.update", "payment_account.update"]


class Command(BaseCommand):
    help = "Register this back-office's webhook receiver with the Payments API and store its secret."

    def add_arguments(self, parser):
        parser.add_argument("--url", required=True, help="Public URL of /webhooks/payments on this back-office.")
        parser.add_argument("--event", action="append", dest="events", help="Event kinds (default: all we handle).")

    def handle(self, *args, url, events=None, **options):
        client = get_client()
        try:
            existing = [e for e in client.webhooks.iter() if e.url == url]
            if existing and WebhookSecret.objects.filter(webhook_id__in=[e.webhook_id for e in existing]).exists():
                self.stdout.write(f"A webhook endpoint for {url} is registered already.")
                return
            endpoint = client.webhooks.create(url=url, events=events or EVENTS)
        except PaymentsApiError as exc:
            raise CommandError(f"The Payments API refused the registration: {exc}") from exc
        if endpoint.secret is None:
            raise CommandError("The Payments API answered without the endpoint's secret.")
        with transaction.atomic():
            WebhookSecret.objects.create(
                webhook_id=endpoint.webhook_id, url=url, secret=endpoint.secret.get_secret_value()
            )
        self.stdout.write(f"Registered webhook endpoint {endpoint.webhook_id} for {url}; its secret is stored.")
