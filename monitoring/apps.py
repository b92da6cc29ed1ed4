from django.apps import AppConfig


class MonitoringConfig(AppConfig):
    name = "monitoring"

    def ready(self):
        from core import labels
        from payments.models import ApprovalKind
        from payments.services.approval_states import request_closed
        from payments.services.approval_writes import register_write
        from upstream.mirrored import mirror_changed

        from .models import AlertDecision, RuleKind
        from .receivers import queue_evaluation
        from .services import ACTION_LABELS, make_version_live, put_back_draft

        mirror_changed.connect(queue_evaluation, dispatch_uid="monitoring.queue_evaluation")
        # A rule goes live through payments' four-eyes: approving its request makes it live.
        register_write(ApprovalKind.MONITORING_RULE, make_version_live)
        request_closed.connect(put_back_draft, dispatch_uid="monitoring.put_back_draft")
        labels.register(labels.ACTION, ACTION_LABELS)
        labels.register(labels.DECISION, dict(AlertDecision.choices))
        # An alert's kind speaks the review queue's words (customers registers CASE_KIND).
        labels.register_details({"monitoring_alert.kind": labels.CASE_KIND, "monitoring_rule.kind": "rule_kind"})
        labels.register("rule_kind", dict(RuleKind.choices))
