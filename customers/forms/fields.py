"""Fields of the KYC/KYB forms: countries, phones, past dates, streets, documents, masked ids."""

import base64
import binascii
import datetime as dt

import phonenumbers
from cryptography.fernet import Fernet, InvalidToken
from django import forms
from django.core.files.uploadedfile import UploadedFile
from django.template.loader import render_to_string
from django.utils.crypto import salted_hmac
from django.utils.html import format_html

from core.forms import FixedChoices, FixedSelect

from .. import choices

MAX_DOCUMENT_BYTES = 10 * 1024 * 1024


# Uploads are recognised by their first bytes, never by their name or declared type.
DOCUMENT_SIGNATURES = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg", b"%PDF-": "application/pdf"}


def choice_field(label, values, *, help_text=""):
    choices = FixedChoices([("", "—"), *values])
    return forms.ChoiceField(label=label, choices=choices, widget=FixedSelect, required=False, help_text=help_text)


def country_field(label, *, help_text=""):
    return choice_field(label, choices.COUNTRIES, help_text=help_text)


def yes_no_field(label, *, help_text=""):
    """Three states: left empty, the value is not sent (an update keeps what the API has)."""
    return forms.TypedChoiceField(
        label=label,
        choices=[("", "—"), ("true", "Yes"), ("false", "No")],
        coerce=lambda value: value == "true",
        empty_value=None,
        required=False,
        help_text=help_text,
    )


def text_field(label, *, max_length=300, help_text="", **attrs):
    return forms.CharField(
        label=label, max_length=max_length, required=False, help_text=help_text, widget=forms.TextInput(attrs=attrs)
    )


class PastDateField(forms.DateField):
    widget = forms.DateInput(attrs={"type": "date"})

    def validate(self, value):
        super().validate(value)
        if value and value > dt.date.today():
            raise forms.ValidationError("This date is in the future.")
        if value and value.year < 1900:
            raise forms.ValidationError("This date is before 1900.")


class PhoneField(forms.CharField):
    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", "International format, e.g. +12025550123.")
        super().__init__(max_length=32, required=False, widget=forms.TextInput(attrs={"type": "tel"}), **kwargs)

    def clean(self, value):
        value = super().clean(value).replace(" ", "")
        if not value:
            return value
        try:
            valid = value.startswith("+") and phonenumbers.is_valid_number(phonenumbers.parse(value, None))
        except phonenumbers.NumberParseException:
            valid = False
        if not valid:
            raise forms.ValidationError("Enter a valid phone number in international format, e.g. +12025550123.")
        return value


class StreetField(forms.CharField):
    def __init__(self, label, **kwargs):
        super().__init__(label=label, required=False, max_length=100, help_text="At least 4 characters.", **kwargs)

    def clean(self, value):
        value = super().clean(value)
        if value and len(value) < 4:
            raise forms.ValidationError(f"A street line needs at least 4 characters (this has {len(value)}).")
        return value


def encode_document(upload: UploadedFile) -> str:
    """The upload as the string the API expects: a data URI with base64 content."""
    if upload.size > MAX_DOCUMENT_BYTES:
        raise forms.ValidationError(
            f"{upload.name} is {upload.size / 1024 / 1024:.1f} MB; the limit is 10 MB. Upload a smaller scan."
        )
    upload.seek(0)
    content = upload.read()
    upload.seek(0)
    mime = next((m for sig, m in DOCUMENT_SIGNATURES.items() if content.startswith(sig)), None)
    if mime is None:
        raise forms.ValidationError(f"{upload.name} is not a PNG, JPEG or PDF file. Upload a photo or a scan.")
    return f"data:{mime};base64,{base64.b64encode(content).decode()}"


def check_data_uri(value: str) -> str:
    """A document kept from an earlier submit of this form: the same checks as an upload."""
    head, _, payload = value.partition(",")
    mime = head.removeprefix("data:").removesuffix(";base64")
    try:
        content = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise forms.ValidationError("The kept document could not be read; upload it again.") from None
    if mime not in DOCUMENT_SIGNATURES.values() or not any(content.startswith(s) for s in DOCUMENT_SIGNATURES):
        raise forms.ValidationError("The kept document is not a PNG, JPEG or PDF file; upload it again.")
    if len(content) > MAX_DOCUMENT_BYTES:
        raise forms.ValidationError("The kept document is larger than 10 MB; upload a smaller one.")
    return value


class DocumentInput(forms.FileInput):
    """A file input that keeps an accepted file across a failed submit (as a hidden data URI)
    and previews images: nothing the staff member gave is lost on an error."""

    def __init__(self, attrs=None):
        super().__init__({"accept": "image/png,image/jpeg,application/pdf", "data-preview": "", **(attrs or {})})

    def value_from_datadict(self, data, files, name):
        return files.get(name) or data.get(f"{name}_kept") or None

    def value_omitted_from_data(self, data, files, name):
        return name not in files and f"{name}_kept" not in data

    def render(self, name, value, attrs=None, renderer=None):
        kept = value if isinstance(value, str) else None
        if isinstance(value, UploadedFile):
            try:
                kept = encode_document(value)
            except forms.ValidationError:
                kept = None
        context = self.get_context(name, None, attrs)
        context["widget"]["kept"] = kept
        context["widget"]["kept_is_image"] = bool(kept and kept.startswith("data:image/"))
        return render_to_string("customers/_document_input.html", context)


class DocumentField(forms.Field):
    widget = DocumentInput

    def __init__(self, label, **kwargs):
        kwargs.setdefault("help_text", "PNG, JPEG or PDF, at most 10 MB.")
        super().__init__(label=label, required=False, **kwargs)

    def to_python(self, value):
        if not value:
            return None
        if isinstance(value, UploadedFile):
            return encode_document(value)
        return check_data_uri(str(value))


# How long a national ID number typed before an error stays usable in the page that kept it.
KEPT_ID_SECONDS = 3600


def _id_cipher() -> Fernet:
    """The key of kept national ID numbers: derived from SECRET_KEY, for this use only."""
    key = salted_hmac("customers.forms.MaskedIdInput", "kept national ID", algorithm="sha256").digest()
    return Fernet(base64.urlsafe_b64encode(key))


class MaskedIdInput(forms.PasswordInput):
    """The national ID number is typed like a password and never written into a page, not even
    after an error: what was typed comes back encrypted in a hidden `<name>_kept` input (valid
    for KEPT_ID_SECONDS) with its last four digits shown, so that nothing typed is lost. Left
    blank, nothing is sent and the API keeps the number on file."""

    def __init__(self):
        super().__init__(render_value=False, attrs={"autocomplete": "off", "spellcheck": "false"})

    def value_from_datadict(self, data, files, name):
        typed = data.get(name)
        if typed:
            return typed
        token = data.get(f"{name}_kept")
        if not token:
            return typed
        try:
            return _id_cipher().decrypt(str(token).encode(), ttl=KEPT_ID_SECONDS).decode()
        except (InvalidToken, UnicodeError, ValueError):
            return ""  # tampered or too old: as if nothing was kept

    def value_omitted_from_data(self, data, files, name):
        return name not in data and f"{name}_kept" not in data

    def render(self, name, value, attrs=None, renderer=None):
        html = super().render(name, value, attrs, renderer)
        if not value:
            return html
        token = _id_cipher().encrypt(str(value).encode()).decode()
        return html + format_html(
            '<input type="hidden" name="{}_kept" value="{}"><span class="kept">Kept from your last submit: {}. '
            "Type another number to replace it.</span>",
            name,
            token,
            masked(str(value)),
        )


def masked(number: str) -> str:
    return f"•••• {number[-4:]}" if len(number) > 4 else "••••"
