import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from core.migration_ops import move_content_types


class Migration(migrations.Migration):
    """StaffPreference, moved from core with its table (core_staffpreference) and content type."""

    initial = True

    dependencies = [
        ("core", "0009_staff_preference_moves_to_staff"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="StaffPreference",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("time_zone", models.CharField(blank=True, max_length=64)),
                        (
                            "user",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="staff_preference",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={"db_table": "core_staffpreference"},
                ),
            ]
        ),
        move_content_types("core", "staff", ["staffpreference"]),
    ]
