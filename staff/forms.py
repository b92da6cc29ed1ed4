from allauth.account.forms import LoginForm as AllauthLoginForm
from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model

from core.access import Role

from .auth import ACCESS_ENDED
from .timezones import all_zones
from .usernames import validate_new

ACCESS_ENDED_MESSAGE = "Your access to the back-office was ended. Ask an admin if you need it again."
ROLE_CHOICES = [(role.value, role.label) for role in Role]


class RolesForm(forms.Form):
    roles = forms.MultipleChoiceField(
        choices=ROLE_CHOICES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=(
            "A compliance lead does what compliance does, and works the escalated cases (decides them, "
            "returns them to the queue, escalates them further). None: signs in, sees only the home page."
        ),
    )


class AddMemberForm(RolesForm):
    username = forms.CharField(max_length=150, validators=[get_user_model().username_validator])
    email = forms.EmailField(required=False, help_text="Where the set-password link goes, if e-mail is configured.")

    field_order = ["username", "email", "roles"]

    def clean_username(self):
        return validate_new(self.cleaned_data["username"])


class LoginForm(AllauthLoginForm):
    """allauth's login by username and password (its adapter words every failure alike:
    staff.accounts). With single sign-on on and OIDC_PASSWORD_LOGIN off, it refuses all."""

    def clean(self):
        if not password_login_enabled():
            raise forms.ValidationError("Log in with single sign-on.")
        try:
            return super().clean()
        except forms.ValidationError:
            # Only the right password of a deactivated member hears why (staff.auth.RoleBackend);
            # a wrong password or an unknown username keeps the one message.
            if getattr(self.request, ACCESS_ENDED, False):
                raise forms.ValidationError(ACCESS_ENDED_MESSAGE, code="access_ended") from None
            raise


def password_login_enabled() -> bool:
    return not settings.OIDC_ISSUER or settings.OIDC_PASSWORD_LOGIN


class TimeZoneForm(forms.Form):
    time_zone = forms.ChoiceField(label="Time zone", choices=[])

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = [(name, name) for name in all_zones()]
