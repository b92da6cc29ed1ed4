from django import forms

from core.forms import textarea_field

from .models import AlertDecision, RuleKind, WatchList
from .rules import PARAMS

MAX_UPLOAD = 200 * 1024 * 1024


class DecideForm(forms.Form):
    decision = forms.ChoiceField(choices=AlertDecision.choices, widget=forms.RadioSelect)
    reason = textarea_field("Reason", max_length=2000)


class RuleForm(forms.Form):
    """The rule's name and the parameters of its kind (one field per parameter)."""

    name = forms.CharField(max_length=200)

    def __init__(self, *args, kind: str, initial_params: dict | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.kind = kind
        initial_params = initial_params or {}
        for param in PARAMS[kind]:
            value = initial_params.get(param.name, param.default)
            if param.type == "list":
                value = " ".join(value or [])
            self.fields[param.name] = forms.CharField(
                label=param.label,
                required=False,
                initial="" if value is None else value,
                help_text=param.help,
            )

    def params(self) -> dict:
        return {p.name: self.cleaned_data.get(p.name) for p in PARAMS[self.kind]}


class KindForm(forms.Form):
    kind = forms.ChoiceField(choices=RuleKind.choices)


class ImportForm(forms.Form):
    name = forms.CharField(max_length=200, required=False, help_text="A new list's name.")
    format = forms.ChoiceField(
        choices=[("", "Detect it from the file"), *WatchList.Format.choices], required=False, label="Format"
    )
    match_threshold = forms.IntegerField(
        min_value=50, max_value=100, initial=90, label="Name match threshold (50 to 100)"
    )
    main = forms.FileField(label="sdn.csv or targets.simple.csv")
    aliases = forms.FileField(label="alt.csv (OFAC aliases)", required=False)
    addresses = forms.FileField(label="add.csv (OFAC addresses)", required=False)

    def __init__(self, *args, new: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        if new:
            self.fields["name"].required = True
        else:
            del self.fields["name"]

    def clean(self):
        data = super().clean()
        for name in ("main", "aliases", "addresses"):
            upload = data.get(name)
            if upload is not None and upload.size > MAX_UPLOAD:
                self.add_error(name, "This file is larger than 200 MB.")
        return data
