"""Rows of a KYC/KYB form (persons, documents) as formsets."""

from django import forms


class RowFormSet(forms.BaseFormSet):
    def rows_to_send(self) -> list:
        """The filled rows not marked for removal, in order: row i of the request."""
        return [
            form
            for form in self.forms
            if form.has_changed() and not (self.can_delete and self._should_delete_form(form))
        ]


def row_formset(formset_class, data, files, prefix: str):
    """A formset of rows, bound only when the request carries its management form: a request
    without one (one document, a script) has no rows rather than a "tampered" error."""
    bound = data is not None and f"{prefix}-TOTAL_FORMS" in data
    return formset_class(data if bound else None, files if bound else None, prefix=prefix)


def rows_valid(formset) -> bool:
    return not formset.is_bound or formset.is_valid()


def rows_filled(formset) -> bool:
    """A bound formset with a row typed in or refused."""
    return formset.is_bound and any(form.has_changed() or form.errors for form in formset.forms)
