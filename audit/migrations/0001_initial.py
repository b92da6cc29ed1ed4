import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from core.migration_ops import move_content_types


class Migration(migrations.Migration):
    """AuditEvent, moved from core with its table (core_auditevent), its indexes and content type."""

    initial = True

    dependencies = [
        ("core", "0010_audit_event_moves_to_audit"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AuditEvent",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("actor_username", models.CharField(blank=True, max_length=150)),
                        ("action", models.CharField(max_length=64)),
                        ("target_kind", models.CharField(blank=True, max_length=32)),
                        ("target_id", models.CharField(blank=True, max_length=64)),
                        (
                            "outcome",
                            models.CharField(
                                choices=[("success", "Success"), ("failure", "Failure"), ("denied", "Denied")],
                                default="success",
                                max_length=16,
                            ),
                        ),
                        ("request_id", models.CharField(blank=True, max_length=64)),
                        ("details", models.JSONField(blank=True, default=dict)),
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
                    options={
                        "db_table": "core_auditevent",
                        "ordering": ["-created_at", "-id"],
                        "indexes": [
                            models.Index(fields=["-created_at", "-id"], name="audit_keyset"),
                            models.Index(fields=["actor_username", "-created_at"], name="audit_actor"),
                            models.Index(fields=["action", "-created_at"], name="audit_action"),
                            models.Index(fields=["target_kind", "target_id", "-created_at"], name="audit_target"),
                            models.Index(fields=["target_kind", "-created_at", "-id"], name="audit_kind_keyset"),
                            models.Index(fields=["target_id", "-created_at", "-id"], name="audit_target_id"),
                        ],
                    },
                ),
            ]
        ),
        move_content_types("core", "audit", ["auditevent"]),
    ]
