"""Staff roles, what each may do, and the checks every staff view makes.

Each role is a Django group holding permissions of the `core` app; views ask for a permission
(never a group name) through `role_required`, so a role is changed in one place:
ROLE_PERMISSIONS. Views that move money, approve or change staff add `recent_auth_required`.
"""

import time
from functools import wraps

from allauth.account.authentication import get_authentication_records
from allauth.core.exceptions import ReauthenticationRequired
from django.apps import apps as global_apps
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
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


class RoleRequired(PermissionDenied):
    """Raised when the signed-in user lacks the permission; the 403 page names the roles."""

    def __init__(self, codename: str):
        self.codename = codename
        self.roles = roles_with(codename)
        super().__init__(f"This page needs the role {' or '.join(self.roles)}.")


def require_permission(user, codename: str) -> None:
    """For checks inside a view (a second action on one page); raises RoleRequired."""
    if not user.has_perm(f"core.{codename}"):
        raise RoleRequired(codename)


def role_required(codename: str):
    """Require login, then the backoffice permission `codename` (see ROLE_PERMISSIONS above)."""

    def decorator(view):
        @login_required
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            require_permission(request.user, codename)
            return view(request, *args, **kwargs)

        wrapped.required_permission = codename
        return wrapped

    return decorator


def staff_required(view):
    """Require login only: pages every staff member may see (the home page)."""
    view = login_required(view)
    view.required_permission = None
    return view


def recently_authenticated(request) -> bool:
    """Whether the signed-in person proved who they are (password, second factor, single
    sign-on: at login or when asked again) within the last STAFF_REAUTH_MINUTES."""
    if not request.user.is_authenticated:
        return False
    records = get_authentication_records(request, request.user)
    last = max((record.get("at", 0) for record in records), default=0)
    return time.time() - last < settings.STAFF_REAUTH_MINUTES * 60


def recent_auth_required(view):
    """Ask for the password or the second factor again (allauth's re-authentication pages)
    when the last check is older than STAFF_REAUTH_MINUTES. Put it under `role_required`:

        @role_required("move_money")
        @recent_auth_required
        def execute_transaction(request, pk): ...

    A POST that needs it is kept and sent again once the person has re-authenticated, so
    nothing they typed is lost."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not recently_authenticated(request):
            raise ReauthenticationRequired()
        return view(request, *args, **kwargs)

    return wrapped
