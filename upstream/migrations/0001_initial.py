import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from core.migration_ops import move_content_types


class Migration(migrations.Migration):
    """WriteClaim, moved from core with its table (core_writeclaim) and content type."""

    initial = True

    dependencies = [
        ("core", "0011_write_claim_moves_to_upstream"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="WriteClaim",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("key", models.CharField(max_length=200, unique=True)),
                        ("holder", models.CharField(max_length=32)),
                        (
                            "state",
                            models.CharField(
                                choices=[("in_flight", "In flight"), ("done", "Done"), ("unknown", "Outcome unknown")],
                                default="in_flight",
                                max_length=16,
                            ),
                        ),
                        ("lease_until", models.DateTimeField()),
                        ("result", models.CharField(blank=True, max_length=200)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "actor",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={"db_table": "core_writeclaim"},
                ),
            ]
        ),
        move_content_types("core", "upstream", ["writeclaim"]),
    ]
