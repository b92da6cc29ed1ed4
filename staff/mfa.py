"""The second factor of staff (allauth's mfa: TOTP, WebAuthn passkeys, recovery codes).

Where STAFF_MFA_REQUIRED is on (by default whenever DEBUG is off), a signed-in person without
a TOTP app or a passkey sees only allauth's pages (enrolment, logout) until they add one.
"""

from allauth.mfa.models import Authenticator
from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse

# Recovery codes only back up a factor: they do not count as one.
SECOND_FACTOR_TYPES = (Authenticator.Type.TOTP, Authenticator.Type.WEBAUTHN)


def second_factors(user):
    return Authenticator.objects.filter(user=user, type__in=SECOND_FACTOR_TYPES)


class SecondFactorRequiredMiddleware:
    """Sends staff without a second factor to enrol before any other page.

    Once a session's person is seen with one, the session remembers it (no query on later
    pages); an admin's reset of their second factor ends their sessions.
    """

    SESSION_KEY = "staff_second_factor"

    # Login, enrolment, re-authentication and logout live under /accounts/; the rest needs no person.
    OPEN_PREFIXES = ("/accounts/", "/static/", "/sandbox/", "/healthz", "/webhooks/")

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if (
            settings.STAFF_MFA_REQUIRED
            and request.user.is_authenticated
            and not request.path_info.startswith(self.OPEN_PREFIXES)
            and request.session.get(self.SESSION_KEY) != request.user.pk
        ):
            if not second_factors(request.user).exists():
                messages.warning(request, "Set up a second factor (an authenticator app or a passkey) to go on.")
                return redirect(reverse("mfa_index"))
            request.session[self.SESSION_KEY] = request.user.pk
        return self.get_response(request)
