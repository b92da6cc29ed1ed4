"""Property: whatever a browser sends, the KYC/KYB forms validate it or name the fields they
refuse; they never raise. And what they accept, the client's request models accept too (a
form that validates but builds a request the client refuses would be a 500 in the view).

Arbitrary text, unicode, NUL, huge values, valid choices, repeated keys and arbitrary bytes as
files, in every field at once; bounded and derandomized.
"""

import json
import os

from django import forms
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.datastructures import MultiValueDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from customers.forms.fields import DocumentField
from customers.forms.kyb import BusinessDocumentForm, KybEdit, KybForm, PersonForm
from customers.forms.kyc import KycForm
from paymentsapi import types as api

EXAMPLES = int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "60"))
PROPERTY = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PNG = b"\x89PNG\r\n\x1a\n"

text = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=400),
    st.text(alphabet="\x00<>\"'&;-/\\%", max_size=20),
    st.sampled_from(["x" * 100_000, "1" * 70, "2026-02-31", "1e999999", "NaN", "-0", "+12025550123", "   "]),
    st.from_regex(r"\A\d{4}-\d{2}-\d{2}\Z", fullmatch=True),
    st.decimals(allow_nan=True, allow_infinity=True).map(str),
)


def field_values(f: forms.Field):
    """Any text, or one of the field's own choices (so valid forms happen too)."""
    choices = [str(value) for value, _ in getattr(f, "choices", []) if not isinstance(_, list | tuple)]
    options = [text]
    if choices:
        options.append(st.sampled_from(choices))
    if isinstance(f, forms.MultipleChoiceField):
        return st.lists(st.one_of(*options), max_size=3)
    return st.one_of(*options, st.lists(st.one_of(*options), min_size=2, max_size=3))


files = st.builds(
    lambda prefix, content, name: SimpleUploadedFile(name, prefix + content, content_type="image/png"),
    st.sampled_from([b"", PNG, b"\xff\xd8\xff", b"%PDF-", b"GIF89a"]),
    st.binary(max_size=256),
    st.sampled_from(["a.png", "../../etc/passwd.png", "<script>.jpg", "x" * 300 + ".pdf", "nul\x00.png"]),
)


def form_data(form_class, prefix: str = ""):
    """(data, files) for a form: each field absent, or given hostile or valid values."""
    form = form_class(prefix=prefix or None)
    entries, uploads = {}, {}
    for name, f in form.fields.items():
        key = form.add_prefix(name)
        if isinstance(f, DocumentField):
            uploads[key] = st.one_of(st.none(), files)
            entries[f"{key}_kept"] = st.one_of(st.none(), text, st.just("data:image/png;base64,iVBORw0KGgo="))
        else:
            entries[key] = st.one_of(st.none(), field_values(f))
    return st.fixed_dictionaries(entries), st.fixed_dictionaries(uploads)


def as_request(values: dict, uploads: dict) -> tuple[MultiValueDict, MultiValueDict]:
    data = MultiValueDict()
    for key, value in values.items():
        if value is not None:
            data.setlist(key, [str(v) for v in value] if isinstance(value, list) else [str(value)])
    return data, MultiValueDict({key: [f] for key, f in uploads.items() if f is not None})


def assert_clean_outcome(form: forms.BaseForm) -> None:
    if not form.is_valid():
        assert form.errors
        for name, messages in form.errors.items():
            assert name == "__all__" or name in form.fields
            assert all(isinstance(m, str) and m for m in messages)
        json.dumps(form.errors.get_json_data())  # renderable, no lazy objects that fail


def _kyc_data():
    values, uploads = form_data(KycForm)
    return st.tuples(values, uploads)


@PROPERTY
@given(_kyc_data())
def test_kyc_form_validates_or_names_the_fields_it_refuses(generated):
    data, files_ = as_request(*generated)
    form = KycForm(data, files_)
    assert_clean_outcome(form)
    if form.is_valid():
        body, sections = form.api_data()
        api.KycData.model_validate(body)  # what the service sends; never raises for a valid form
        assert sections <= set(KycForm.SECTIONS)
        # The number is never written into the page: no value on the password input.
        assert "value=" not in str(form["national_id_number"]).split(">", 1)[0]


def _kyb_data():
    parts = [
        form_data(KybForm, "kyb"),
        form_data(PersonForm, "persons-0"),
        form_data(BusinessDocumentForm, "documents-0"),
    ]
    management = st.fixed_dictionaries(
        {
            "persons-TOTAL_FORMS": st.sampled_from(["0", "1", "2", "abc", "-1", "99999999", ""]),
            "persons-INITIAL_FORMS": st.sampled_from(["0", "1", "x"]),
            "documents-TOTAL_FORMS": st.sampled_from(["0", "1", "1000"]),
            "documents-INITIAL_FORMS": st.just("0"),
            "persons-0-DELETE": st.one_of(st.none(), st.just("on")),
        }
    )
    return st.tuples(*[p[0] for p in parts], *[p[1] for p in parts], management)


@PROPERTY
@given(_kyb_data())
def test_kyb_editor_validates_or_names_the_fields_it_refuses(generated):
    *values, management = generated
    fields = {**values[0], **values[1], **values[2], **management}
    uploads = {**values[3], **values[4], **values[5]}
    data, files_ = as_request(fields, uploads)
    edit = KybEdit(data, files_)
    if edit.is_valid():
        body, _sections = edit.api_data()
        api.KybData.model_validate(body)
        assert len(body.get("associatedPersons", [])) <= 20
    else:
        for form in [edit.form, *edit.persons.forms, *edit.documents.forms]:
            if form.errors:
                assert_clean_outcome(form)
        edit.persons.non_form_errors()
        edit.documents.non_form_errors()
