from django.apps import AppConfig


class SandboxConfig(AppConfig):
    name = "sandbox"
    verbose_name = "Payments API sandbox"

    def ready(self):
        # Django's hook for connecting receivers: the tasks module connects the receivers of
        # sandbox/signals.py that queue its tasks. Nothing imports this module, so no circle.
        from . import tasks  # noqa: F401
