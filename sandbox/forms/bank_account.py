"""The form of a pending bank account, behind its bankAccountFormLink."""

from django import forms

from ..errors import flatten
from ..serializers.accounts import BankAccountFormIn
from .fields import choices_of


class BankAccountForm(forms.Form):
    label_suffix = ""

    bankAccountOwnerName = forms.CharField(label="Account owner's name", max_length=200)
    bankName = forms.CharField(label="Bank name", max_length=200)
    bankAccountType = forms.ChoiceField(label="Account type", choices=choices_of(["CHECKING", "SAVINGS"], blank=None))
    bankAccountNumber = forms.RegexField(
        label="Account number",
        regex=r"^\d{4,17}$",
        error_messages={"invalid": "Must be 4 to 17 digits."},
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    bankRoutingNumber = forms.RegexField(
        label="Routing number (ABA)",
        regex=r"^\d{9}$",
        error_messages={"invalid": "Must be the 9 digits of an ABA routing number."},
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    bankAccountPaymentMethod = forms.ChoiceField(
        label="Payment method", choices=[("ACH", "ACH"), ("WIRE", "Wire transfer")]
    )

    def clean(self):
        """The rules of the API's bank-account form helper (ABA checksum included)."""
        cleaned = super().clean()
        if not self.errors:
            fields = ["bankAccountOwnerName", "bankName", "bankAccountType", "bankAccountNumber", "bankRoutingNumber"]
            serializer = BankAccountFormIn(data={name: cleaned[name] for name in fields})
            if serializer.is_valid():
                method = cleaned["bankAccountPaymentMethod"]
                self.validated_data = {**serializer.validated_data, "bankAccountPaymentMethod": method}
            else:
                for item in flatten(serializer.errors, [], "body"):
                    path, message = item["path"], item["message"]
                    self.add_error(path[0] if path and path[0] in self.fields else None, message)
        return cleaned
