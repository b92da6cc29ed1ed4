from django import forms
from django.contrib.auth import get_user_model

from ..roles import Role
from ..usernames import validate_new

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
