from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    name = "payments"

    def ready(self):
        from audit import targets
        from core import labels

        from . import audit_targets
        from .models import ACCOUNT_TYPE_LABELS, STATUS_LABELS, ApprovalKind
        from .rails import METHOD_LABELS
        from .services import ACTION_LABELS

        labels.register(labels.STATUS, STATUS_LABELS)
        labels.register(labels.METHOD, METHOD_LABELS)
        labels.register(labels.ACCOUNT_TYPE, ACCOUNT_TYPE_LABELS)
        labels.register(labels.ACTION, ACTION_LABELS)
        labels.register(labels.APPROVAL_KIND, dict(ApprovalKind.choices))
        labels.register_details(
            {"payment_account.type": labels.ACCOUNT_TYPE, "approval_request.kind": labels.APPROVAL_KIND}
        )
        targets.register("quote", audit_targets.quote_rows, audit_targets.name_quotes, permission="view_payments")
        targets.register(
            "transaction", audit_targets.transaction_rows, audit_targets.name_transactions, permission="view_payments"
        )
        targets.register(
            "automation_rule", audit_targets.rule_rows, audit_targets.name_rules, permission="view_payments"
        )
        targets.register(
            "approval_request", audit_targets.approval_rows, audit_targets.name_approvals, permission="view_payments"
        )
        targets.register(
            "payment_account", audit_targets.account_rows, audit_targets.name_accounts, permission="view_payments"
        )
