"""The base of the verification forms: a form whose fields are places in the API's kycData or
kybData object.

Each form field stands for one place in the data object (its `paths` table), so the same table
builds the data from the form, prefills the form from the stored data on a refill, and maps the
API validator's error paths back onto the fields. The API's rules are not repeated here: the
form runs the API's validator (sandbox.serializers.customers) on what it builds.

A form edits one item of each list it touches (the government ID of `documents`, the first
associated person, the first business document). Stored items it does not show are kept after
it, and an image left empty on a refill keeps the image already on file.
"""

import datetime as dt
import itertools

from django import forms

from ..errors import flatten
from ..serializers.customers import CustomerUpdateSerializer
from .fields import DocumentUploadField


def value_at(data, path):
    for key in path:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def set_value_at(data: dict, path, value) -> None:
    for key, following in itertools.pairwise(path):
        container = [] if isinstance(following, int) else {}
        if isinstance(key, int):
            while len(data) <= key:
                data.append(container)
            data = data[key]
        else:
            data = data.setdefault(key, container)
    data[path[-1]] = value


class ApiDataForm(forms.Form):
    """A form whose fields are places in an API data object (see the module docstring)."""

    # "kycData" or "kybData", and the customer type the data belongs to
    data_key: str
    customer_type: str
    # form field -> path in the data object
    paths: dict[str, tuple] = {}
    # values the form always sends, e.g. the type of the ID document
    constants: dict[tuple, object] = {}
    # fieldsets: (legend, [field names])
    sections: list[tuple[str, list[str]]] = []

    def __init__(self, *args, stored: dict | None = None, **kwargs):
        self.stored = self.reorder(dict(stored or {}))
        kwargs.setdefault("initial", self.initial_from(self.stored))
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            if not field.required and not isinstance(field, forms.BooleanField):
                field.label = f"{field.label} (optional)"
        for name, field in self.fields.items():
            if isinstance(field, DocumentUploadField) and value_at(self.stored, self.paths[name]):
                field.help_text = "An image is on file; upload a new one only to replace it. " + field.help_text

    # Which item of each list the form edits: moved to index 0, the others kept after it.
    def edited_index(self, key: str, items: list) -> int:
        return 0

    def list_keys(self) -> set[str]:
        return {path[0] for path in self.paths.values() if len(path) > 1 and isinstance(path[1], int)}

    def reorder(self, stored: dict) -> dict:
        for key in self.list_keys():
            items = [item for item in stored.get(key) or [] if isinstance(item, dict)]
            if items:
                index = self.edited_index(key, items)
                stored[key] = [items[index], *items[:index], *items[index + 1 :]]
        return stored

    def initial_from(self, stored: dict) -> dict:
        initial = {}
        for name, path in self.paths.items():
            value = value_at(stored, path)
            if value is not None and not isinstance(self.base_fields[name], DocumentUploadField):
                initial[name] = self.to_form(name, value)
        return initial

    def to_form(self, name, value):
        return value

    def to_api(self, name, value):
        if isinstance(value, dt.date):
            return value.isoformat()
        return value

    def api_data(self) -> dict:
        """The data object built from the cleaned form (call after is_valid())."""
        data: dict = {}
        for name, path in self.paths.items():
            value = self.cleaned_data.get(name)
            if value in (None, "") and isinstance(self.fields[name], DocumentUploadField):
                value = value_at(self.stored, path)
            if value in (None, ""):
                continue
            set_value_at(data, path, self.to_api(name, value))
        for path, value in self.constants.items():
            set_value_at(data, path, value)
        for key in self.list_keys():
            kept = (self.stored.get(key) or [])[1:]
            if kept:
                data[key] = [*data.get(key, []), *kept]
        return data

    def clean(self):
        """The API's own validation (as for PATCH /customers) of the data the form builds, once
        the fields themselves are valid. Its result is `validated_data`."""
        cleaned = super().clean()
        if not self.errors:
            serializer = CustomerUpdateSerializer(
                data={self.data_key: self.api_data()}, partial=True, context={"customer_type": self.customer_type}
            )
            if serializer.is_valid():
                self.validated_data = serializer.validated_data
            else:
                self.add_api_errors(serializer.errors.get(self.data_key, serializer.errors))
        return cleaned

    def add_api_errors(self, errors) -> None:
        """Put the API validator's errors (relative to the data object) on their fields."""
        fields_by_path = {path: name for name, path in self.paths.items()}
        for item in flatten(errors, [], "body"):
            path, message = item["path"], item["message"]
            name = fields_by_path.get(tuple(path))
            if name:
                self.add_error(name, message)
            else:
                where = ".".join(str(part) for part in path)
                self.add_error(None, f"{where}: {message}" if where else message)

    def fieldsets(self):
        return [(legend, [self[name] for name in names]) for legend, names in self.sections]
