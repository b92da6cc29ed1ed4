from django.apps import AppConfig


class StaffConfig(AppConfig):
    name = "staff"
    verbose_name = "Staff, login and second factor"

    def ready(self):
        from core import labels

        from . import signals  # noqa: F401  (connects the login, lockout and second-factor receivers)
        from .actions import ACTION_LABELS

        labels.register(labels.ACTION, ACTION_LABELS)
