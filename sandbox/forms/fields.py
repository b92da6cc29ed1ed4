"""Fields of the hosted forms: countries, choices, dates, street lines and document uploads."""

import base64

import pycountry
from django import forms

MAX_UPLOAD_BYTES = 10 * 1024 * 1024
# Uploads are identified by their first bytes, never by name or declared type.
UPLOAD_SIGNATURES = {
    b"\x89PNG\r\n\x1a\n": "image/png",
    b"\xff\xd8\xff": "image/jpeg",
    b"%PDF-": "application/pdf",
}
# The spec's hosted-form limit; the API itself asks at least 4 characters.
STREET_MAX_LENGTH = 100
STREET_MIN_LENGTH = 4

COUNTRIES = [
    ("", "Choose a country"),
    *sorted(((country.alpha_2, country.name) for country in pycountry.countries), key=lambda pair: pair[1]),
]


def choice_label(value: str) -> str:
    return value.replace("_", " ").capitalize()


def choices_of(values, *, blank: str | None = "Choose…") -> list[tuple[str, str]]:
    return ([("", blank)] if blank is not None else []) + [(value, choice_label(value)) for value in values]


def country_field(label: str, *, required: bool = True) -> forms.ChoiceField:
    return forms.ChoiceField(label=label, choices=COUNTRIES, required=required)


def choice_field(label: str, values, *, required: bool = False) -> forms.ChoiceField:
    return forms.ChoiceField(label=label, choices=choices_of(values), required=required)


def date_field(label: str, *, required: bool = True) -> forms.DateField:
    return forms.DateField(label=label, required=required, widget=forms.DateInput(attrs={"type": "date"}))


def street_field(label: str, *, required: bool) -> forms.CharField:
    return forms.CharField(
        label=label,
        required=required,
        min_length=STREET_MIN_LENGTH,
        max_length=STREET_MAX_LENGTH,
        error_messages={
            "min_length": f"Must be at least {STREET_MIN_LENGTH} characters.",
            "max_length": f"Must be at most {STREET_MAX_LENGTH} characters (this is %(show_value)d).",
        },
        # No maxlength attribute: a browser would cut a pasted address short without a word.
        widget=forms.TextInput(attrs={"autocomplete": "address-line1"}),
    )


class DocumentUploadField(forms.FileField):
    """A PNG, JPEG or PDF of at most MAX_UPLOAD_BYTES, cleaned to a data URI string (the API's "strings
    carrying image content")."""

    widget = forms.FileInput(attrs={"accept": ",".join(UPLOAD_SIGNATURES.values())})

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("help_text", "PNG, JPEG or PDF, up to 10 MB.")
        super().__init__(**kwargs)

    def clean(self, data, initial=None):
        upload = super().clean(data, initial)
        if not upload:
            return None
        if upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError("The file is larger than 10 MB. Send a smaller scan or photo.")
        head = upload.read(8)
        upload.seek(0)
        content_type = next((kind for magic, kind in UPLOAD_SIGNATURES.items() if head.startswith(magic)), None)
        if content_type is None:
            raise forms.ValidationError("The file is not a PNG, JPEG or PDF image. Upload a photo or scan.")
        return f"data:{content_type};base64,{base64.b64encode(upload.read()).decode()}"
