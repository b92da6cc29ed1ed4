from django.apps import AppConfig


class CustomersConfig(AppConfig):
    name = "customers"

    def ready(self):
        from audit import targets
        from core import labels

        from .audit_targets import customer_rows, name_customers
        from .choices import ACTION_LABELS, ISSUE_LABELS
        from .models import CaseDecision, CaseKind, CustomerStatus, CustomerType, HostedLinkHandout

        labels.register(labels.STATUS, dict(CustomerStatus.choices))
        labels.register(labels.ISSUE, ISSUE_LABELS)
        labels.register(labels.ACTION, ACTION_LABELS)
        labels.register(labels.DECISION, dict(CaseDecision.Kind.choices))
        labels.register(labels.CUSTOMER_TYPE, dict(CustomerType.choices))
        labels.register(labels.HANDOUT, dict(HostedLinkHandout.Kind.choices))
        labels.register(labels.CASE_KIND, dict(CaseKind.choices))
        labels.register_details(
            {
                "status": labels.STATUS,
                "decision": labels.DECISION,
                "customer.type": labels.CUSTOMER_TYPE,
                "customer.kind": labels.HANDOUT,
            }
        )
        targets.register("customer", customer_rows, name_customers, permission="view_customers")
