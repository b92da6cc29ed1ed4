from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.auth.backends import ModelBackend

from .usernames import stored_spelling

# Set on a request whose login gave the right password of a deactivated member.
ACCESS_ENDED = "staff_access_ended"


class RoleBackend(ModelBackend):
    """Staff permissions come from their role groups only, never granted per user.

    The group permissions are ModelBackend's own lookup (one query a request, kept on the user):
    a raw statement in its place measured no faster at full size (docs/benchmarks.md, "Keep or
    remove").
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
