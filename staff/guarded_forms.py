"""allauth's forms where a secret is checked, each behind the guessing limits of staff.lockouts
(MFA_FORMS and ACCOUNT_FORMS name them). allauth counts the attempt itself; these turn its
refusal, or the failure that fills a limit, into the lockout page, audited once."""

from allauth.account.forms import UserTokenForm as AllauthUserTokenForm
from allauth.core import context
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.core.internal import ratelimit
from allauth.mfa.adapter import get_adapter
from allauth.mfa.base.forms import AuthenticateForm as AllauthAuthenticateForm
from allauth.mfa.base.forms import ReauthenticateForm as AllauthReauthenticateForm
from allauth.mfa.webauthn.forms import AuthenticateWebAuthnForm as AllauthAuthenticateWebAuthnForm
from allauth.mfa.webauthn.forms import LoginWebAuthnForm as AllauthLoginWebAuthnForm
from allauth.mfa.webauthn.forms import ReauthenticateWebAuthnForm as AllauthReauthenticateWebAuthnForm
from django.core.exceptions import ValidationError

from . import lockouts


def _guarded(check, *, member, what: str, key: str):
    """Run allauth's `check` of a secret of `member`; when the limits refuse the attempt, or
    this failure fills one, answer the lockout page instead of the form."""
    request = context.request
    if not lockouts.store_available():
        raise ImmediateHttpResponse(lockouts.unavailable_page(request))
    try:
        return check()
    except ValidationError:
        locked = lockouts.locked(what=what, key=key, request=request)
        if locked is None or member is None:
            raise
        lockouts.record_lockout(request, member=member, what=what, until=locked.until, at_address=locked.at_address)
        scope = "address" if locked.at_address else "member"
        page = lockouts.lockout_page(request, what=what, until=locked.until, scope=scope)
        raise ImmediateHttpResponse(page) from None


class AuthenticateForm(AllauthAuthenticateForm):
    """The code (or a recovery code) after the password."""

    def clean_code(self):
        return _guarded(super().clean_code, member=self.user, what="code", key=lockouts.code_key(self.user))


class ReauthenticateForm(AllauthReauthenticateForm):
    def clean_code(self):
        return _guarded(super().clean_code, member=self.user, what="code", key=lockouts.code_key(self.user))


def _well_formed(clean):
    """allauth reads a passkey's answer with fido2, which raises KeyError on one missing a
    field: a refusal like any wrong passkey, not a server error."""

    def check():
        try:
            return clean()
        except (KeyError, AttributeError):
            raise get_adapter().validation_error("incorrect_code") from None

    return check


class AuthenticateWebAuthnForm(AllauthAuthenticateWebAuthnForm):
    """A passkey at the second step (allauth counts it with the codes)."""

    def clean_credential(self):
        clean = _well_formed(super().clean_credential)
        return _guarded(clean, member=self.user, what="code", key=lockouts.code_key(self.user))


class ReauthenticateWebAuthnForm(AllauthReauthenticateWebAuthnForm):
    def clean_credential(self):
        clean = _well_formed(super().clean_credential)
        return _guarded(clean, member=self.user, what="code", key=lockouts.code_key(self.user))


class LoginWebAuthnForm(AllauthLoginWebAuthnForm):
    """A passkey instead of the password: no member is known before it is checked (allauth
    limits these per address, "webauthn_login")."""

    def clean_credential(self):
        return _well_formed(super().clean_credential)()


class UserTokenForm(AllauthUserTokenForm):
    """The key of a set-password link, counted per member (the link's user id) and address;
    allauth counts only the form that follows, and only per address."""

    def clean(self):
        request, uid = context.request, self.data.get("uidb36", "")
        key = lockouts.link_key(uid)

        def check():
            usage = ratelimit.consume(request, app=lockouts.APP, action=lockouts.LINKS, key=key, limit_get=True)
            if usage is None:
                raise ValidationError("Too many wrong set-password links.")
            cleaned = super(UserTokenForm, self).clean()
            usage.rollback()  # a good link costs nothing
            return cleaned

        return _guarded(check, member=self._get_user(uid), what="link", key=key)
