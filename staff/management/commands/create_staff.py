from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from core.access import Role, sync_role_groups
from staff import services


class Command(BaseCommand):
    help = (
        "Add a staff member with roles (the first admin of a new installation) and print the link "
        "where they choose their password. Later members are added on the staff page."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument(
            "--role", action="append", choices=[role.value for role in Role], default=[], help="Repeat for several."
        )
        parser.add_argument("--email", default="", help="Where the link is e-mailed too, if EMAIL_URL is set.")
        parser.add_argument(
            "--site",
            default="",
            help="The address staff reach the back-office at, for the link (default: the first of "
            "CSRF_TRUSTED_ORIGINS, else https:// and the first of ALLOWED_HOSTS; http://127.0.0.1:8000 with DEBUG on).",
        )

    def handle(self, *args, username, role, email, site, **options):
        site = site or default_site()
        sync_role_groups(Group, Permission)
        try:
            # Normalised, and refused when taken, of mixed scripts or a look-alike (staff.usernames).
            member = services.add_member(actor=None, username=username, email=email, roles=role)
        except ValidationError as refused:
            raise CommandError(f"{username}: {' '.join(refused.messages)}") from None
        username = member.get_username()
        link = services.set_password_link(site, member)
        self.stdout.write(f"Added {username} with the roles {', '.join(role) or 'none'}.")
        self.stdout.write("They choose their password here (the link works once; shown only now):")
        self.stdout.write(f"  {link}")


def default_site() -> str:
    """Where staff reach this installation, from the settings that already name it."""
    if settings.DEBUG:
        return "http://127.0.0.1:8000"
    if settings.CSRF_TRUSTED_ORIGINS:
        return settings.CSRF_TRUSTED_ORIGINS[0].rstrip("/")
    hosts = [host.lstrip(".") for host in settings.ALLOWED_HOSTS if host not in ("*", "")]
    if hosts:
        return f"https://{hosts[0]}"
    raise CommandError("Give --site https://<the address staff use>: no setting names it.")
