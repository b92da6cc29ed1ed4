from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Roles, access and what every app shares"

    def ready(self):
        from django.db.models.signals import post_migrate

        from . import labels
        from .access import Role, sync_roles_after_migrate

        post_migrate.connect(sync_roles_after_migrate, sender=self)
        labels.register(labels.ROLE, dict(Role.choices))
        labels.register_details(
            {"error": labels.ERROR, "roles": labels.ROLE, "before": labels.ROLE, "after": labels.ROLE}
        )
