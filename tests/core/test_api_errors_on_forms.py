"""core.forms.ApiErrorsMixin: a VALIDATION_ERROR's details onto the fields of a form, of its
rows and of the forms it is made of; what no field takes at the top, naming its path."""

from django import forms

from core.forms import ApiErrorsMixin
from paymentsapi.errors import FieldError


class Address(ApiErrorsMixin, forms.Form):
    city = forms.CharField(required=False)
    api_fields = {"city": "city", "address.city": "city"}


class Person(ApiErrorsMixin, forms.Form):
    """Its fields are named as the request's: they take their errors without `api_fields`."""

    name = forms.CharField(required=False)
    date_of_birth = forms.DateField(required=False)


class Whole(ApiErrorsMixin):
    """Not a form: a form and rows, its unplaced errors in a list of its own."""

    def __init__(self):
        self.form = Address({})
        self.rows = [Person({}), Person({})]
        self.top_errors = []
        for form in [self.form, *self.rows]:
            form.full_clean()

    def api_parts(self):
        return {"data": self.form, "data.persons": self.rows}

    def add_top_error(self, message):
        self.top_errors.append(message)


def test_a_form_takes_its_paths_and_puts_the_rest_at_the_top():
    form = Address({})
    form.full_clean()
    form.add_api_errors(
        [
            FieldError(path=("address", "city"), message="Unknown city."),
            FieldError(path=("zip",), message="Not here."),
            FieldError(path=(), message="Whole request."),
        ]
    )
    assert form.errors["city"] == ["Unknown city."]
    assert form.non_field_errors() == ["zip: Not here.", "Whole request."]


def test_rows_take_the_errors_at_their_index_and_an_object_those_under_its_path():
    whole = Whole()
    whole.add_api_errors(
        [
            FieldError(path=("data", "persons", 1, "name"), message="Too short."),
            FieldError(path=("data", "city"), message="Unknown city."),
            FieldError(path=("data", "persons", 2, "name"), message="No third row."),
            FieldError(path=("data", "persons", 0, "age"), message="No such field."),
        ]
    )
    assert whole.rows[1].errors["name"] == ["Too short."]
    assert not whole.rows[0].errors
    assert whole.form.errors["city"] == ["Unknown city."]
    assert whole.top_errors == ["data.persons.2.name: No third row.", "data.persons.0.age: No such field."]


def test_a_row_that_misses_leaves_the_error_to_the_shorter_path():
    """The KYC form's own document is documents[0] of the request: its fields are named
    "documents.0.…" on the form, which takes what the row (the form itself) does not."""

    class WithDocument(ApiErrorsMixin, forms.Form):
        kind = forms.CharField(required=False)
        api_fields = {"documents.0.type": "kind"}

    form = WithDocument({})
    form.full_clean()

    class Edit(Whole):
        def api_parts(self):
            return {"kycData": form, "kycData.documents": [form, *self.rows]}

    edit = Edit()
    edit.add_api_errors([FieldError(path=("kycData", "documents", 0, "type"), message="Wrong type.")])
    assert form.errors["kind"] == ["Wrong type."]
    assert edit.top_errors == []


def test_a_field_named_as_the_requests_field_takes_its_errors():
    person = Person({})
    person.full_clean()
    person.add_api_errors(
        [
            FieldError(path=("dateOfBirth",), message="In the future."),
            FieldError(path=("date_of_birth",), message="Not the wire's name."),
            FieldError(path=("address", "dateOfBirth"), message="Not a top-level field."),
        ]
    )
    assert person.errors["date_of_birth"] == ["In the future."]
    assert person.non_field_errors() == [
        "date_of_birth: Not the wire's name.",
        "address.dateOfBirth: Not a top-level field.",
    ]
