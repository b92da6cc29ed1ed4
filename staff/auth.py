import functools

from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from .usernames import stored_spelling


@functools.cache
def _group_permissions_sql() -> str:
    """The permissions a user holds through groups, as (app label, codename): one statement.

    Django's ModelBackend builds the same query with the ORM on every request, which costs
    about ten times the round trip; here it is written once, with the models' own names.
    """
    quote = connection.ops.quote_name

    def table(model) -> str:
        return quote(model._meta.db_table)

    def column(model, field: str) -> str:
        return quote(model._meta.get_field(field).column)

    group_permission, user_group = Group.permissions.through, Group.user_set.through
    # Names from the models, the user's id as a parameter.
    return (
        f"SELECT ct.{column(ContentType, 'app_label')}, p.{column(Permission, 'codename')} "  # noqa: S608
        f"FROM {table(Permission)} p "
        f"JOIN {table(ContentType)} ct ON ct.{column(ContentType, 'id')} = p.{column(Permission, 'content_type')} "
        f"JOIN {table(group_permission)} gp ON gp.{column(group_permission, 'permission')} = p.{column(Permission, 'id')} "
        f"JOIN {table(user_group)} ug ON ug.{column(user_group, 'group')} = gp.{column(group_permission, 'group')} "
        f"WHERE ug.{column(user_group, 'user')} = %s"
    )


# Set on a request whose login gave the right password of a deactivated member.
ACCESS_ENDED = "staff_access_ended"


class RoleBackend(ModelBackend):
    """Staff permissions come from their role groups only, never granted per user.

    A page asks for a permission once per request (the user is loaded anew each time), so the
    lookup is one plain statement and no per-user query. Inactive and anonymous users hold
    nothing and superusers everything, as in ModelBackend; the set is kept on the user for
    the rest of the request.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        """By the username in any case (staff.usernames). A deactivated member who gave the right
        password is refused as ModelBackend refuses them, and the request notes it
        (ACCESS_ENDED) so that the login form can tell them to ask an admin: no one without the
        password learns anything, and the password is checked once, as for anyone."""
        if username is not None:
            username = stored_spelling(username)
        self._refused_inactive = False
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None and self._refused_inactive and request is not None:
            setattr(request, ACCESS_ENDED, True)
        return user

    def user_can_authenticate(self, user):
        # ModelBackend asks this only once the password has matched.
        allowed = super().user_can_authenticate(user)
        self._refused_inactive = not allowed
        return allowed

    def get_user_permissions(self, user_obj, obj=None):
        return set()

    def get_group_permissions(self, user_obj, obj=None):
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if user_obj.is_superuser:  # every permission, as ModelBackend gives
            return super().get_group_permissions(user_obj)
        if not hasattr(user_obj, "_group_perm_cache"):
            with connection.cursor() as cursor:
                cursor.execute(_group_permissions_sql(), [user_obj.pk])
                user_obj._group_perm_cache = {f"{app_label}.{codename}" for app_label, codename in cursor.fetchall()}
        return user_obj._group_perm_cache


# A session names the backend that logged it in, and Django ends one whose backend is not in
# AUTHENTICATION_BACKENDS. The role backend lived in core before the staff app: sessions opened
# then name its old place, and are read as the new one's rather than logged out at the deploy.
MOVED_BACKENDS = {"core.auth.RoleBackend": "staff.auth.RoleBackend"}


class MovedBackendMiddleware:
    """Points a session at its backend's new place (before AuthenticationMiddleware). The
    session is read on every request anyway (core.middleware.IdleSessionMiddleware)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        backend = request.session.get(BACKEND_SESSION_KEY)
        if backend in MOVED_BACKENDS:
            request.session[BACKEND_SESSION_KEY] = MOVED_BACKENDS[backend]
        return self.get_response(request)
