"""The create page: the customer, with the KYC or KYB data that may go in the same request."""

from django import forms

from core.forms import ApiErrorsMixin

from ..models import CustomerType
from .api_form import NATIONAL_ID_FIELDS, NATIONAL_ID_ON_CREATE, ApiField
from .kyb import BusinessDocumentFormSet, KybEdit, PersonFormSet
from .kyc import IdentityDocumentFormSet, KycEdit


class CustomerCreateForm(ApiErrorsMixin, forms.Form):
    customer_type = forms.ChoiceField(choices=CustomerType.choices, label="Type", widget=forms.RadioSelect)
    email = forms.EmailField(label="E-mail", max_length=254)
    first_name = forms.CharField(label="First name", max_length=200, required=False, help_text="Individuals")
    last_name = forms.CharField(label="Last name", max_length=200, required=False, help_text="Individuals")
    business_name = forms.CharField(label="Business name", max_length=300, required=False, help_text="Businesses")
    add_data = forms.BooleanField(
        label="Enter KYC/KYB data next", required=False, help_text="Opens the KYC or KYB form once the customer exists."
    )
    # Shown only once the mirror is found to know the e-mail already (the page lists them).
    same_email = forms.BooleanField(label="Create a new customer with this e-mail all the same", required=False)
    # Drawn by the same field template as the KYC/KYB forms' fields.
    bound_field_class = ApiField

    def clean(self):
        data = super().clean()
        if data.get("customer_type") == CustomerType.INDIVIDUAL:
            for name in ("first_name", "last_name"):
                if not data.get(name):
                    self.add_error(name, "An individual needs a first and a last name.")
        elif data.get("customer_type") == CustomerType.BUSINESS and not data.get("business_name"):
            self.add_error("business_name", "A business needs its name.")
        return data


# Row kinds of the KYC/KYB forms: formset prefix -> formset (the prefixes differ, since the
# create page shows the KYC and the KYB parts together).
ROW_FORMSETS = {
    "persons": PersonFormSet,
    "documents": BusinessDocumentFormSet,
    "kyc_documents": IdentityDocumentFormSet,
}


class CustomerCreate(ApiErrorsMixin):
    """The create form, with the KYC data (an individual) or the KYB data (a business) that
    may go in the same POST /customers. Only the part of the chosen type is checked and sent;
    the other keeps what was typed, should the type be switched back."""

    def __init__(self, data=None, files=None, *, initial=None):
        """Bound to `data` (a POST), or unbound with `initial` (the type chosen by the URL, or
        what was typed before the type was chosen without script)."""
        self.form = CustomerCreateForm(data, initial=initial)
        self.kyc = KycEdit(data, files, prefix="kyc")
        self.kyb = KybEdit(data, files)
        self.top_errors: list[str] = []
        # Customers the mirror knows with the e-mail typed, when it asks to confirm a new one.
        self.same_email: list = []
        kind = (data if data is not None else initial or {}).get("customer_type")
        self.data_part = {CustomerType.INDIVIDUAL: self.kyc, CustomerType.BUSINESS: self.kyb}.get(kind)

    @property
    def shows_kyc(self) -> bool:
        return self._shows(self.kyc)

    @property
    def shows_kyb(self) -> bool:
        return self._shows(self.kyb)

    def _shows(self, part) -> bool:
        """The page renders the chosen type's data part, and the other only when it holds what
        was typed (kept, hidden, should the type be switched back); else it comes on demand."""
        if part is self.data_part:
            return True
        if not part.form.is_bound:
            return False
        rows = [self.kyc.documents] if part is self.kyc else [self.kyb.persons, self.kyb.documents]
        return part.form.has_changed() or any(row.has_changed() for formset in rows for row in formset.forms)

    def is_valid(self) -> bool:
        valid = all([self.form.is_valid(), self.data_part is None or self.data_part.is_valid()])
        if valid and self.data_part is self.kyc:
            # Unlike an update, a creation with KYC data must carry the national ID.
            kyc_data, _sections = self.kyc.api_data()
            if kyc_data and "nationalIdType" not in kyc_data:
                for name in NATIONAL_ID_FIELDS:
                    self.kyc.form.add_error(name, NATIONAL_ID_ON_CREATE)
                valid = False
        return valid

    def service_kwargs(self) -> dict:
        """The arguments of services.customer_create (a valid form's)."""
        data = self.form.cleaned_data
        individual = data["customer_type"] == CustomerType.INDIVIDUAL
        api_data, sections = self.data_part.api_data()
        return {
            "customer_type": data["customer_type"],
            "email": data["email"],
            "first_name": data["first_name"] if individual else "",
            "last_name": data["last_name"] if individual else "",
            "business_name": "" if individual else data["business_name"],
            "kyc_data": (api_data or None) if individual else None,
            "kyb_data": None if individual else (api_data or None),
            "sections": sections,
        }

    def api_parts(self) -> dict:
        """Where the API's errors go (core.forms.ApiErrorsMixin): the top level onto the create
        form, kycData or kybData onto the part that was sent."""
        return {"": self.form, **(self.data_part.api_parts() if self.data_part else {})}

    def add_top_error(self, message: str) -> None:
        self.top_errors.append(message)

    @property
    def open_part(self) -> str:
        """The data part to show unfolded: the chosen type's, once something was typed in it."""
        part = self.data_part
        if part is None:
            return ""
        rows = (row for formset in self._row_formsets() for row in formset.forms)
        if not (part.form.has_changed() or any(row.has_changed() for row in rows)):
            return ""
        return "kyc" if part is self.kyc else "kyb"

    @property
    def has_errors(self) -> bool:
        part = self.data_part
        return bool(
            self.form.errors
            or (part is not None and part.form.errors)
            or any(fs.total_error_count() for fs in self._row_formsets())
        )

    def _row_formsets(self):
        if self.data_part is self.kyc:
            return [self.kyc.documents]
        if self.data_part is self.kyb:
            return [self.kyb.persons, self.kyb.documents]
        return []
