from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from core.models import LockHeld
from mirror.models import SyncRun
from mirror.sync import refresh_open_transactions, sync_automation_rules, sync_customers, sync_payment_accounts

KINDS = {
    "customers": sync_customers,
    "payment_accounts": sync_payment_accounts,
    "automation_rules": sync_automation_rules,
    "transactions": refresh_open_transactions,
}


class Command(BaseCommand):
    help = "Sync the mirror from the Payments API: customers, payment accounts, automation rules, open transactions (all by default)."

    def add_arguments(self, parser):
        parser.add_argument("--customers", action="store_true")
        parser.add_argument("--payment-accounts", action="store_true", dest="payment_accounts")
        parser.add_argument("--automation-rules", action="store_true", dest="automation_rules")
        parser.add_argument("--transactions", action="store_true")
        parser.add_argument("--quiet", action="store_true", help="No progress bar.")

    def handle(self, *args, quiet=False, **options):
        chosen = [kind for kind in KINDS if options[kind]] or list(KINDS)
        failed = False
        for kind in chosen:
            with tqdm(desc=kind.replace("_", " "), unit=" records", disable=quiet, file=self.stderr) as bar:
                try:
                    run = KINDS[kind](progress=bar.update)
                except LockHeld:
                    raise CommandError("Another sync is running; try again when it has finished.") from None
            counts = ", ".join(f"{n} {k}" for k, n in run.counts.items()) or "nothing stored"
            if run.outcome == SyncRun.Outcome.SUCCEEDED:
                self.stdout.write(f"{kind}: {counts}")
            else:
                failed = True
                self.stdout.write(f"{kind}: FAILED ({run.error}); kept: {counts}")
        if failed:
            raise CommandError(
                f"Some syncs failed (the reasons are above); what they stored before failing is kept. "
                f"The Payments API is PAYMENTS_API_BASE_URL={settings.PAYMENTS_API_BASE_URL}."
            )
