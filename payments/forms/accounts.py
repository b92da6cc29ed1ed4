"""Create forms of payment accounts, one per account type.

Each checks locally what it can (formats, ranges), so that the obvious mistakes never reach the
API; the API's own VALIDATION_ERROR details are mapped back onto the fields (core.forms.ApiErrorsMixin).
"""

from django import forms

from core.forms import ApiErrorsMixin
from customers.models import Customer

from ..models import ACCOUNT_TYPE_LABELS, NO_NEW_ACCOUNT_STATUSES
from ..rails import CHAIN_CHOICES, FIAT_CURRENCIES, TOKEN_CHOICES, address_error
from .fields import CustomerPicker


def aba_checksum_ok(number: str) -> bool:
    return sum(w * int(d) for w, d in zip([3, 7, 1] * 3, number, strict=True)) % 10 == 0


def _bank_number_field(label: str, regex: str, invalid: str) -> forms.RegexField:
    """Digits typed on a numeric keypad, never remembered by the browser."""
    return forms.RegexField(
        label=label,
        regex=regex,
        required=False,
        error_messages={"invalid": invalid},
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )


class AccountBaseForm(ApiErrorsMixin, forms.Form):
    account_type: str = ""
    customer_id = forms.CharField(label="Customer", max_length=64, widget=CustomerPicker())
    nickname = forms.CharField(label="Nickname", max_length=200, required=False)

    def clean_customer_id(self):
        value = self.cleaned_data["customer_id"].strip()
        customer = Customer.objects.filter(customer_id=value).first()
        if customer is None:
            raise forms.ValidationError("No customer with this id in the back-office; sync customers first.")
        if customer.status in NO_NEW_ACCOUNT_STATUSES:
            raise forms.ValidationError(f"This customer is {customer.status.lower()}: it cannot get payment accounts.")
        self.fields["customer_id"].widget.customer = customer  # shown again without reading it again
        return value

    def details(self) -> dict:
        """The type's request object (externalBankAccount, ...), in the API's names."""
        raise NotImplementedError

    def is_third_party(self) -> bool | None:
        return self.cleaned_data.get("is_third_party") or None


class ExternalBankAccountForm(AccountBaseForm):
    account_type = "EXTERNAL_BANK_ACCOUNT"
    title = ACCOUNT_TYPE_LABELS[account_type]
    ENTRY_CHOICES = [
        ("DETAILS", "I have the account and routing numbers"),
        ("HOSTED_FORM", "Send the hosted bank form (the owner types the numbers)"),
    ]

    entry = forms.ChoiceField(label="How are the numbers given?", choices=ENTRY_CHOICES, widget=forms.RadioSelect)
    bank_account_type = forms.ChoiceField(
        label="Account type", choices=[("CHECKING", "Checking"), ("SAVINGS", "Savings")]
    )
    owner_name = forms.CharField(label="Owner name", max_length=200)
    owner_email = forms.EmailField(label="Owner e-mail", required=False)
    bank_name = forms.CharField(label="Bank name", max_length=200, required=False)
    # The spec: only USD bank accounts with domestic ACH or wire routing.
    currency = forms.ChoiceField(label="Currency", choices=[("USD", "USD")])
    payment_method = forms.ChoiceField(label="Routing method", choices=[("ACH", "ACH"), ("WIRE", "Wire")])
    account_number = _bank_number_field("Account number", r"^\d{4,17}$", "4 to 17 digits.")
    routing_number = _bank_number_field("ABA routing number", r"^\d{9}$", "9 digits.")
    is_third_party = forms.BooleanField(label="Belongs to a third party", required=False)

    api_fields = {
        "externalBankAccount.bankAccountType": "bank_account_type",
        "externalBankAccount.bankAccountOwnerName": "owner_name",
        "externalBankAccount.bankAccountOwnerEmail": "owner_email",
        "externalBankAccount.bankName": "bank_name",
        "externalBankAccount.bankAccountCurrency": "currency",
        "externalBankAccount.bankAccountPaymentMethod": "payment_method",
        "externalBankAccount.bankAccountNumber": "account_number",
        "externalBankAccount.bankRoutingNumber": "routing_number",
    }

    def clean_routing_number(self):
        value = self.cleaned_data["routing_number"]
        if value and not aba_checksum_ok(value):
            raise forms.ValidationError("Not a valid ABA routing number (the check digit does not match).")
        return value

    def clean(self):
        data = super().clean()
        if data.get("entry") == "DETAILS":
            for name in ("account_number", "routing_number"):
                if not data.get(name) and name not in self.errors:
                    self.add_error(name, "Needed when you give the numbers.")
        elif data.get("entry") == "HOSTED_FORM":
            # Numbers typed here would be silently dropped: say so instead.
            for name in ("account_number", "routing_number"):
                if data.get(name):
                    self.add_error(name, "Leave empty: the owner types it in the hosted form.")
        return data

    def details(self) -> dict:
        data = self.cleaned_data
        body = {
            "bankAccountType": data["bank_account_type"],
            "bankAccountOwnerName": data["owner_name"],
            "bankAccountOwnerEmail": data["owner_email"] or None,
            "bankName": data["bank_name"] or None,
            "bankAccountCurrency": data["currency"],
            "bankAccountPaymentMethod": data["payment_method"],
        }
        if data["entry"] == "DETAILS":
            body |= {"bankAccountNumber": data["account_number"], "bankRoutingNumber": data["routing_number"]}
        return {name: value for name, value in body.items() if value is not None}


class ExternalCryptoWalletForm(AccountBaseForm):
    account_type = "EXTERNAL_CRYPTO_WALLET"
    title = ACCOUNT_TYPE_LABELS[account_type]

    chain = forms.ChoiceField(label="Chain", choices=CHAIN_CHOICES)
    currency = forms.CharField(
        label="Currency (token label or contract address)",
        max_length=64,
        widget=forms.TextInput(attrs={"list": "token-labels", "autocomplete": "off"}),
    )
    address = forms.CharField(
        label="Wallet address", max_length=64, widget=forms.TextInput(attrs={"spellcheck": "false"})
    )
    is_third_party = forms.BooleanField(label="Belongs to a third party", required=False)

    api_fields = {
        "externalCryptoWallet.currency": "currency",
        "externalCryptoWallet.address.address": "address",
        "externalCryptoWallet.address.chain": "chain",
    }

    def clean(self):
        data = super().clean()
        chain, address = data.get("chain"), (data.get("address") or "").strip()
        if chain and address:
            error = address_error(chain, address)
            if error:
                self.add_error("address", error)
            data["address"] = address
        return data

    def details(self) -> dict:
        data = self.cleaned_data
        return {"currency": data["currency"].strip(), "address": {"address": data["address"], "chain": data["chain"]}}


class ServiceCryptoWalletForm(AccountBaseForm):
    account_type = "SERVICE_CRYPTO_WALLET"
    title = ACCOUNT_TYPE_LABELS[account_type]

    chain = forms.ChoiceField(label="Chain", choices=CHAIN_CHOICES)

    api_fields = {
        "serviceCryptoWallet.chain": "chain",
        "serviceCryptoWallet.cryptoWalletType": "chain",
    }

    def details(self) -> dict:
        chain = self.cleaned_data["chain"]
        return {"chain": chain, "cryptoWalletType": "SOLANA" if chain == "SOLANA" else "EVM"}


class ServiceAutoFiatAccountForm(AccountBaseForm):
    account_type = "SERVICE_AUTO_FIAT_ACCOUNT"
    title = ACCOUNT_TYPE_LABELS[account_type]

    currency = forms.ChoiceField(label="Fiat currency received", choices=[(c, c) for c in FIAT_CURRENCIES])
    destination_currencies = forms.MultipleChoiceField(
        label="Converted into", choices=TOKEN_CHOICES, widget=forms.CheckboxSelectMultiple
    )

    api_fields = {
        "serviceAutoFiatAccount.currency": "currency",
        "serviceAutoFiatAccount.supportedDestinationCurrencies": "destination_currencies",
    }

    def details(self) -> dict:
        data = self.cleaned_data
        return {"currency": data["currency"], "supportedDestinationCurrencies": list(data["destination_currencies"])}


ACCOUNT_FORMS = {
    form.account_type: form
    for form in (ExternalBankAccountForm, ExternalCryptoWalletForm, ServiceCryptoWalletForm, ServiceAutoFiatAccountForm)
}
