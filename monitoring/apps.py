from django.apps import AppConfig


class MonitoringConfig(AppConfig):
    name = "monitoring"

    def ready(self):
        from core import labels
        from upstream.mirrored import mirror_changed

        from .models import AlertDecision, RuleKind
        from .receivers import queue_evaluation
        from .views import ACTION_LABELS

        mirror_changed.connect(queue_evaluation, dispatch_uid="monitoring.queue_evaluation")
        labels.register(labels.ACTION, ACTION_LABELS)
        labels.register(labels.DECISION, dict(AlertDecision.choices))
        # An alert's kind speaks the review queue's words (customers registers CASE_KIND).
        labels.register_details({"monitoring_alert.kind": labels.CASE_KIND, "monitoring_rule.kind": "rule_kind"})
        labels.register("rule_kind", dict(RuleKind.choices))
