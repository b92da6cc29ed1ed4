"""Usernames are kept normalised, NFKC then case-folded (staff/usernames.py): existing ones are
normalised here, except where two would become one; those keep their spelling, and a login
that types it exactly still finds them."""

import unicodedata
from collections import Counter

from django.conf import settings
from django.db import migrations


def normalized(username: str) -> str:
    # As staff.usernames.normalized on the day of this migration.
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", username).casefold())


def normalise(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    names = dict(User.objects.values_list("pk", "username"))
    counts = Counter(normalized(name) for name in names.values())
    for pk, name in names.items():
        if normalized(name) != name and counts[normalized(name)] == 1:
            User.objects.filter(pk=pk).update(username=normalized(name))


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0006_audit_kind_keyset"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(normalise, migrations.RunPython.noop)]
