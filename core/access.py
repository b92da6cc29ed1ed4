"""Login and role checks: every staff view goes through `role_required`; views that move
money, approve or change staff add `recent_auth_required`."""

import time
from functools import wraps

from allauth.account.authentication import get_authentication_records
from allauth.core.exceptions import ReauthenticationRequired
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied

from .roles import roles_with


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
    """Require login, then the backoffice permission `codename` (see roles.ROLE_PERMISSIONS)."""

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
