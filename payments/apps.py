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
        from .services.approval_writes import register_write
        from .services.holds import account_hold_apply, account_release_apply

        # A hold is the back-office's own write: approving its request sets it, no call upstream.
        register_write(ApprovalKind.ACCOUNT_HOLD, account_hold_apply)
        register_write(ApprovalKind.ACCOUNT_RELEASE, account_release_apply)
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
