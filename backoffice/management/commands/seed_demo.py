import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command, get_commands
from django.core.management.base import BaseCommand, CommandError
from django.test import override_settings

from core.access import Role
from notifications.demo import seed_demo_notifications


class Command(BaseCommand):
    help = "Create one demo staff user per role (passwords printed once) and seed the sandbox. DEBUG only."

    def add_arguments(self, parser):
        parser.add_argument("--reset-passwords", action="store_true", help="Give the demo users new passwords.")
        parser.add_argument(
            "--server", default="http://127.0.0.1:8000", help="Where the back-office will serve (for the webhook URL)."
        )

    def handle(self, *args, reset_passwords=False, **options):
        if not settings.DEBUG:
            raise CommandError("seed_demo creates users with printed passwords: it runs only with DEBUG on.")
        User = get_user_model()
        created, members = [], {}
        for role in Role:
            username = f"demo-{role.value}"
            user, is_new = User.objects.get_or_create(username=username, defaults={"is_staff": False})
            if is_new or reset_passwords:
                password = secrets.token_urlsafe(12)
                user.set_password(password)
                user.save()
                created.append((username, role.value, password))
            user.groups.set([Group.objects.get(name=role.value)])
            members[role.value] = user
        if created:
            self.stdout.write("Demo staff users (demo only; these passwords are shown once):")
            for username, role, password in created:
                self.stdout.write(f"  {username:<21} role {role:<15} password {password}")
        else:
            self.stdout.write("Demo staff users exist already (demo-<role>); --reset-passwords prints new ones.")
        if made := seed_demo_notifications(members):
            self.stdout.write(f"Demo notifications: {made}, some of them read.")
        if settings.SANDBOX_MOUNTED and "sandbox_seed" in get_commands():
            # The server is not listening yet: reach the mounted sandbox in-process. The webhook
            # endpoint is registered before the demo data is made, so that the data's events
            # (transactions too, which no list operation shows) reach the mirror once the
            # server is up and the sandbox retries its deliveries.
            call_command("sandbox_seed", key_only=True, stdout=self.stdout)
            with override_settings(PAYMENTS_API_IN_PROCESS=True):
                call_command("register_webhook", url=f"{options['server']}/webhooks/payments", stdout=self.stdout)
                call_command("sandbox_seed", stdout=self.stdout)
                call_command("sync_mirror", quiet=True, stdout=self.stdout)
                # Live monitoring rules, a watch list and the patterns that trip them.
                call_command("seed_monitoring", stdout=self.stdout)
