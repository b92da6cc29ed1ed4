import uuid

from django import forms
from django.utils.html import format_html, format_html_join

# The one-time mark of a form that makes something (upstream.claims): however often one filled-in
# form is sent, it makes one thing, and a resend answers with what the first made.
SUBMISSION_FIELD = "submission"
SUBMISSION_LOST = "This form had lost its one-time mark (an old page?): check it and send it again."


def posted_submission(request) -> str | None:
    """The mark the form was sent with, or None when it is missing or malformed."""
    try:
        return str(uuid.UUID(request.POST.get(SUBMISSION_FIELD, "")))
    except ValueError:
        return None


def submission_mark(request) -> str:
    """The mark the page's form carries: the one it was sent with when shown again (so that a
    resend after an error still counts as one), else a new one."""
    posted = posted_submission(request) if request is not None and request.method == "POST" else None
    return posted or str(uuid.uuid4())


class ApiErrorsMixin:
    """Puts the messages of a ValidationFailed on the fields they name.

    `api_fields` maps an error path ("externalCryptoWallet.address.address") to a field; an
    error on an unknown path becomes a form error that names the path.
    """

    api_fields: dict[str, str] = {}

    def add_api_errors(self, messages_by_field: dict[str, list[str]]) -> None:
        for path, messages in messages_by_field.items():
            name = self.api_fields.get(path)
            for message in messages:
                if name in self.fields:
                    self.add_error(name, message)
                else:
                    self.add_error(None, f"{path}: {message}" if path else message)


class SuggestInput(forms.TextInput):
    """A text input that suggests the values it knows (a <datalist>, staff words beside the
    codes) and still takes one it does not: a code added later, a bookmarked filter.
    `suggestions()` gives (value, word) pairs when the input is written."""

    def __init__(self, suggestions, attrs=None):
        super().__init__(attrs)
        self.suggestions = suggestions

    def render(self, name, value, attrs=None, renderer=None):
        list_id = f"{(attrs or {}).get('id') or name}-suggestions"
        attrs = {**(attrs or {}), "list": list_id, "autocomplete": "off"}
        options = format_html_join("", '<option value="{}">{}</option>', self.suggestions())
        return format_html(
            '{}<datalist id="{}">{}</datalist>', super().render(name, value, attrs, renderer), list_id, options
        )
