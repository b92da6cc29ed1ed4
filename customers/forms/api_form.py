"""ApiForm: a form whose fields stand for places in the API's kycData/kybData.

Each field of a KYC/KYB form stands for one place in the API's kycData/kybData (its `PATHS`
table: field -> (path, section)); the same table builds the request from the form and puts
the API's VALIDATION_ERROR paths back onto the fields. The spec's rules are checked here
first, so a request the API would refuse is never sent."""

import datetime as dt
import itertools
from dataclasses import dataclass

from django import forms

from core.forms import ApiErrorsMixin, wire_name

NATIONAL_ID_FIELDS = ["national_id_type", "national_id_number", "national_id_issuing_country"]


NATIONAL_ID_ON_CREATE = "KYC data sent with a new customer needs the national ID: its type, number and issuing country."


NATIONAL_ID_MESSAGE = "Type, number and issuing country of the national ID go together: fill in all three, or none."


def paths(section: str, *names: str, under: tuple = ()) -> dict[str, tuple[tuple, str]]:
    """PATHS of fields named as the API names their places, in `section` (and under `under`):
    paths("identity", "date_of_birth") -> {"date_of_birth": (("dateOfBirth",), "identity")}."""
    return {name: ((*under, wire_name(name)), section) for name in names}


class ApiField(forms.BoundField):
    """A field of an ApiForm: nothing asked of it until forms.issues.mark says otherwise. The
    field template (customers/_field.html) reads both of every field, and an attribute a field
    lacks costs the template language an exception and a dir() of the field."""

    asked = ()
    resend = False


class ApiForm(ApiErrorsMixin, forms.Form):
    """A form whose fields map to places in an API object.

    PATHS: field name -> (path inside the object, section name). A field left empty is not
    sent; `sections` names the parts that were (for the audit log: names, never values). The
    same paths place the API's errors (`api_fields`, core.forms.ApiErrorsMixin).
    """

    PATHS: dict[str, tuple[tuple, str]] = {}
    SECTIONS: dict[str, str] = {}
    bound_field_class = ApiField

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.api_fields = {".".join(map(str, path)): name for name, (path, _section) in cls.PATHS.items()}

    def to_api(self, name, value):
        if isinstance(value, dt.date):
            return value.isoformat()
        return value

    def api_data(self) -> tuple[dict, set[str]]:
        data: dict = {}
        sections: set[str] = set()
        for name, (path, section) in self.PATHS.items():
            value = self.cleaned_data.get(name)
            if value in (None, "", []):
                continue
            set_path(data, path, self.to_api(name, value))
            sections.add(section)
        return data, sections

    def sections_with_fields(self) -> list["Section"]:
        """The form's sections in the order of SECTIONS, for the template."""
        grouped = {key: [] for key in self.SECTIONS}
        for name, (_path, section) in self.PATHS.items():
            grouped[section].append(self[name])
        return [Section(key, self.SECTIONS[key], fields) for key, fields in grouped.items() if fields]


@dataclass
class Section:
    """A fieldset of an ApiForm: its bound fields, and what the open issues ask of them
    (`forms.issues.mark` puts `asked` and `resend` on the fields)."""

    key: str
    title: str
    fields: list

    @property
    def asked(self) -> list:
        """The open issues asking for fields of this section, each once."""
        seen = {}
        for field in self.fields:
            for issue in getattr(field, "asked", []):
                seen.setdefault(issue.code, issue)
        return list(seen.values())

    @property
    def resend(self) -> bool:
        return any(getattr(field, "resend", False) for field in self.fields)

    @property
    def concerned(self) -> bool:
        return bool(self.asked) or self.resend

    @property
    def filled(self) -> bool:
        """Something typed or refused in it: a folded section opens to show it."""
        return any(field.errors or (field.form.is_bound and bool(field.data)) for field in self.fields)


def set_path(data: dict, path: tuple, value) -> None:
    node = data
    for key, next_key in itertools.pairwise(path):
        if isinstance(key, int):
            while len(node) <= key:
                node.append({} if not isinstance(next_key, int) else [])
            node = node[key]
        else:
            node = node.setdefault(key, [] if isinstance(next_key, int) else {})
    node[path[-1]] = value


def check_national_id_triple(form, names) -> None:
    given = [name for name in names if form.cleaned_data.get(name)]
    if given and len(given) < len(names):
        for name in names:
            if not form.cleaned_data.get(name) and name not in form.errors:
                form.add_error(name, NATIONAL_ID_MESSAGE)


def check_document_dates(form, issued, expires) -> None:
    start, end = form.cleaned_data.get(issued), form.cleaned_data.get(expires)
    if start and start > dt.date.today():
        form.add_error(issued, "The issue date is in the future.")
    if start and end and end <= start:
        form.add_error(expires, "The expiry date must come after the issue date.")


def check_document_type(form, type_name, image_names, message) -> None:
    """A document's images without its type: `message` on the type (the API reviews images
    only of a known kind of document)."""
    if any(form.cleaned_data.get(name) for name in image_names) and not form.cleaned_data.get(type_name):
        form.add_error(type_name, message)
