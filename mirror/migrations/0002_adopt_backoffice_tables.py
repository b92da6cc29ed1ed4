from django.db import migrations

from core.migration_ops import adopt_tables


class Migration(migrations.Migration):
    dependencies = [
        ("mirror", "0001_initial"),
        ("core", "0002_adopt_backoffice_tables"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [adopt_tables("mirror", ["webhookevent", "webhooksecret", "syncrun"])]
