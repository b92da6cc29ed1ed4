"""Staff roles and what each may do.

Each role is a Django group holding permissions of the `core` app; views ask for a
permission (never a group name), so a role is changed in one place: ROLE_PERMISSIONS.
"""

from django.apps import apps as global_apps
from django.db import models


class Role(models.TextChoices):
    COMPLIANCE = "compliance", "Compliance"
    # Compliance, and the cases others escalated: decides them, returns them, escalates further.
    COMPLIANCE_LEAD = "compliance_lead", "Compliance lead"
    OPERATIONS = "operations", "Operations"
    ADMIN = "admin", "Admin"
    AUDITOR = "auditor", "Auditor"


# codename -> description. Kept in the Meta of core.models.StaffPermission.
PERMISSIONS = {
    "view_customers": "Read customers and the review queue",
    "change_customers": "Submit KYC/KYB updates, open and refill hosted forms, refresh customers",
    "view_payments": "Read payment accounts, exchange rates, quotes, transactions and rules",
    "move_money": "Quote, execute and cancel transactions",
    "manage_accounts": "Create payment accounts",
    "manage_rules": "Create and edit automation rules",
    "manage_webhooks": "Manage webhook endpoints and replay inbox events",
    "manage_staff": "Manage staff users",
    "view_audit": "Read the audit log and the webhook inbox",
    "work_escalations": "Decide, return to the queue and escalate further the cases already escalated",
    "view_monitoring": "Read monitoring alerts, rules and watch lists",
    "decide_alerts": "Decide monitoring and screening alerts",
    "manage_monitoring": "Draft, approve and pause monitoring rules; import watch lists",
    "hold_accounts": "Ask for and approve holds and releases of payment accounts in the back-office",
}

COMPLIANCE_PERMISSIONS = {"view_customers", "change_customers", "view_payments", "view_monitoring", "decide_alerts"}
ROLE_PERMISSIONS = {
    Role.COMPLIANCE: COMPLIANCE_PERMISSIONS,
    Role.COMPLIANCE_LEAD: {*COMPLIANCE_PERMISSIONS, "work_escalations"},
    Role.OPERATIONS: {"view_customers", "view_payments", "move_money"},
    Role.ADMIN: set(PERMISSIONS),
    Role.AUDITOR: {"view_customers", "view_payments", "view_audit", "view_monitoring"},
}


def roles_with(codename: str) -> list[str]:
    """The roles that hold a permission, for the 403 page."""
    return [role.value for role in Role if codename in ROLE_PERMISSIONS[role]]


def roles_of(user) -> list[str]:
    if not user.is_authenticated:
        return []
    names = {group.name for group in user.groups.all()}
    return [role.value for role in Role if role.value in names]


def sync_role_groups(group_model, permission_model) -> None:
    """Make each role's group hold exactly its permissions. Takes the models so that a
    migration can pass its historical ones."""
    for role, codenames in ROLE_PERMISSIONS.items():
        group, _ = group_model.objects.get_or_create(name=role.value)
        group.permissions.set(permission_model.objects.filter(content_type__app_label="core", codename__in=codenames))


def sync_roles_after_migrate(sender, apps=global_apps, **kwargs):
    """After every `migrate`, each role's group holds exactly the permissions of ROLE_PERMISSIONS
    (auth's own post_migrate handler has made the permissions by then)."""
    sync_role_groups(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))
