from django.apps import AppConfig


class StaffConfig(AppConfig):
    name = "staff"
    verbose_name = "Staff, login and second factor"

    def ready(self):
        from audit import targets
        from core import labels

        from . import signals  # noqa: F401  (connects the login, lockout and second-factor receivers)
        from .actions import ACTION_LABELS
        from .audit_targets import member_rows, name_members

        labels.register(labels.ACTION, ACTION_LABELS)
        targets.register("user", member_rows, name_members, permission="manage_staff")
