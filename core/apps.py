from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Staff, roles and audit"

    def ready(self):
        from django.db.models.signals import post_migrate

        from .signals import sync_roles_after_migrate

        post_migrate.connect(sync_roles_after_migrate, sender=self)
