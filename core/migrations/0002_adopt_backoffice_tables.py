from django.db import migrations

from core.migration_ops import adopt_tables


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [adopt_tables("core", ["staffpermission", "auditevent", "lock", "counter"])]
