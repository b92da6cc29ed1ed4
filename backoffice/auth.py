from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Permission


class RoleBackend(ModelBackend):
    """Staff permissions come from their role groups only, never granted per user; skipping
    the per-user lookup saves a query on every page."""

    def _get_user_permissions(self, user_obj):
        return Permission.objects.none()
