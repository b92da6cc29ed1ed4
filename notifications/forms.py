import apprise
from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef

from .kinds import KINDS, TEAM_KINDS
from .models import Choice, TeamDestination


class PreferencesForm(forms.Form):
    """One choice per kind the member may receive."""

    def __init__(self, *args, member, current: dict[str, str], **kwargs):
        super().__init__(*args, **kwargs)
        received = receivable_kinds(member)
        for code, kind in KINDS.items():
            if code not in received:
                continue
            choices = [(Choice.APP.value, Choice.APP.label)] if kind.app_only else Choice.choices
            self.fields[code] = forms.ChoiceField(
                label=kind.label,
                choices=choices,
                initial=current.get(code, kind.default),
                widget=forms.RadioSelect,
                # Left out of a POST: the choice stays as it was.
                required=False,
            )


def receivable_kinds(member) -> set[str]:
    """The kinds whose audience holds the member, asked of each kind's own audience in one query
    (one EXISTS per kind)."""
    annotations = {f"in_{code}": Exists(kind.audience().filter(pk=OuterRef("pk"))) for code, kind in KINDS.items()}
    row = get_user_model().objects.filter(pk=member.pk).annotate(**annotations).values(*annotations).first()
    return {code for code in KINDS if row and row[f"in_{code}"]}


class DestinationForm(forms.ModelForm):
    url = forms.CharField(
        label="Apprise URL",
        max_length=2000,
        required=False,
        strip=True,
        # Never written back into the page, not even after an error.
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off", "spellcheck": "false"}),
        help_text="slack://…, msteams://…, mailto://user:password@host/?to=team@example.com, json://host/path … "
        "It holds the channel's secret: once saved it is never shown again, only its last characters.",
    )
    kinds = forms.MultipleChoiceField(
        label="Kinds it receives",
        choices=[(kind.code, kind.label) for kind in TEAM_KINDS],
        widget=forms.CheckboxSelectMultiple,
    )

    class Meta:
        model = TeamDestination
        fields = ["name", "url", "kinds", "active"]

    def clean_url(self):
        url = self.cleaned_data["url"]
        if not url:
            if self.instance.pk is None:
                raise forms.ValidationError("Paste the channel's apprise URL.")
            return ""
        if not apprise.Apprise().add(url):
            raise forms.ValidationError(
                "This is not a URL of a service apprise knows (slack://, msteams://, mailto://, json:// …)."
            )
        return url
