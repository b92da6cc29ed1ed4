"""Login and role checks: every staff view goes through `role_required`."""

from functools import wraps

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
