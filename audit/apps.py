from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "audit"
    verbose_name = "Audit log"

    def ready(self):
        from core import labels

        from .models import AuditEvent

        labels.register(labels.OUTCOME, dict(AuditEvent.Outcome.choices))
