from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Roles, access and audit"

    def ready(self):
        from django.db.models.signals import post_migrate

        from . import labels
        from .api_errors import ERROR_CODE_MESSAGES
        from .audit import ACTION_LABELS
        from .models import AuditEvent
        from .roles import Role, sync_roles_after_migrate

        post_migrate.connect(sync_roles_after_migrate, sender=self)
        labels.register(labels.ACTION, ACTION_LABELS)
        labels.register(labels.ROLE, dict(Role.choices))
        labels.register(labels.OUTCOME, dict(AuditEvent.Outcome.choices))
        labels.register(labels.ERROR, ERROR_CODE_MESSAGES)
        labels.register_details(
            {"error": labels.ERROR, "roles": labels.ROLE, "before": labels.ROLE, "after": labels.ROLE}
        )
