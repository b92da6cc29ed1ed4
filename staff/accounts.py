"""How the back-office adapts django-allauth: no sign-up, one message for every failed login,
and the last check of the person (password, second factor, SSO) as the re-authentication clock."""

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context
from allauth.mfa.adapter import DefaultMFAAdapter
from django.conf import settings

from core.access import recently_authenticated

from .client_ip import client_ip
from .forms import password_login_enabled
from .usernames import validate_new


def login_options(request) -> dict:
    """For allauth's pages: whether the password form shows, the single sign-on's name, and
    whether a second factor is required."""
    return {
        "password_login": password_login_enabled(),
        "sso_name": settings.OIDC_NAME if settings.OIDC_ISSUER else "",
        "staff_mfa_required": settings.STAFF_MFA_REQUIRED,
    }


class AccountAdapter(DefaultAccountAdapter):
    # One message for every failure: no hint whether the user exists or is active.
    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "username_password_mismatch": "Wrong username or password.",
        "account_inactive": "Wrong username or password.",
    }

    def pre_authenticate(self, request, **credentials) -> None:
        """Password failures are django-axes', per username and address. allauth's own count of
        them ("login_failed" per username) is skipped: a stranger could fill it to lock a member
        out from everywhere. The rate stays for what follows the password (staff/lockouts.py)."""

    def clean_username(self, username: str, shallow: bool = False) -> str:
        return validate_new(username)

    def get_client_ip(self, request) -> str:
        """The address allauth's rate limits count by: the trusted-proxy setting's (staff.client_ip)."""
        return client_ip(request)

    def is_open_for_signup(self, request):
        """Staff are added by an admin (the staff page, `create_staff`), never sign themselves up."""
        return False

    def is_reauthentication_required(self, *, app: str, **kwargs) -> bool:
        """allauth's own sensitive pages (adding a second factor) ask again only when the last
        check is older than STAFF_REAUTH_MINUTES, as core.access.recent_auth_required does."""
        request = context.request
        if request is not None and recently_authenticated(request):
            return False
        return super().is_reauthentication_required(app=app, **kwargs)


class MFAAdapter(DefaultMFAAdapter):
    def can_delete_authenticator(self, authenticator) -> bool:
        """Where a second factor is required, nobody removes their last one (an admin may reset it)."""
        if not settings.STAFF_MFA_REQUIRED or authenticator.type == authenticator.Type.RECOVERY_CODES:
            return True
        from .mfa import second_factors

        return second_factors(authenticator.user).exclude(pk=authenticator.pk).exists()
