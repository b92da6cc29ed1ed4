"""Forms of the payment-account, automation-rule and exchange-rate pages.

Each create form checks locally what it can (formats, ranges), so that the obvious mistakes
never reach the API; the API's own VALIDATION_ERROR details are mapped back onto the fields
with `add_api_errors`.
"""

import re
from decimal import Decimal

import django_filters
from cron_descriptor import get_description
from croniter import croniter
from django import forms

from customers.models import Customer

from .models import ACCOUNT_TYPE_LABELS, AutomationRule, PaymentAccount, PaymentAccountStatus

# The spec's payment methods: fiat rails, then chains.
RAILS = [
    "ACH", "WIRE", "ACH_SAME_DAY", "SWIFT", "SEPA", "AE_UAEFTS", "AR_TRANSFERS_3", "AU_BECS", "BD_BEFTN", "BO_RTGS",
    "BR_TED_DOC_PIX", "CA_INTERAC", "CL_TEF", "CN_CNAPS", "CO_ACH", "CR_SINPE", "CZ_CERTIS", "DK_NEMKONTO_FI",
    "DO_ACH", "EC_LOCAL", "EG_RTGS_IPN", "GB_BACS_CHAPS_FPS", "GH_GHIPSS", "GT_ACH", "HK_HKICL_CHATS_ECG", "HU_GIRO",
    "ID_SKN_RTGS", "IL_ZAHAV", "IN_NEFT_RTGS_IMPS", "JM_LOCAL", "JO_ACH", "JP_ZENGIN", "KE_KIBBS_PESALINK",
    "KR_LOCAL", "LK_LOCAL", "MX_SPEI", "MY_IBG_RENTAS", "NG_NIBSS_NEFT", "NO_NICS", "NP_LOCAL", "NZ_LOCAL", "PE_CCE",
    "PH_INSTAPAY_PESONET", "PK_RAAST_IBFT", "PL_ELIXIR_BLUE_CASH", "QA_QPS", "RO_RTGS", "SA_MADA", "SE_BANKGIROT",
    "SG_FAST_MEPS", "SV_LOCAL", "TH_BAHTNET_PROMPTPAY", "TR_FAST_EFT", "TZ_RTGS", "VN_IBPS", "ZA_RTGS_EFT",
]  # fmt: skip
CHAINS = ["ARBITRUM", "BASE", "ETHEREUM", "OPTIMISM", "POLYGON", "SOLANA"]
EVM_CHAINS = frozenset(CHAINS) - {"SOLANA"}
TOKENS = ["USDC", "USDT", "EURC", "ETH", "SOL"]
# Which tokens each chain carries (docs/decisions/sandbox-payments.md). Used to offer a service
# wallet's balances; a token the API does not know on a chain is simply shown as unavailable.
CHAIN_TOKENS = {
    "ARBITRUM": ["USDC", "USDT", "ETH"],
    "BASE": ["USDC", "EURC", "ETH"],
    "ETHEREUM": ["USDC", "USDT", "EURC", "ETH"],
    "OPTIMISM": ["USDC", "USDT", "ETH"],
    "POLYGON": ["USDC", "USDT"],
    "SOLANA": ["USDC", "USDT", "EURC", "SOL"],
}
# The currency of each rail where the rail fixes it; the others are the country's currency,
# read from the rail's two-letter prefix by `rail_currency`.
_RAIL_CURRENCY = {"ACH": "USD", "WIRE": "USD", "ACH_SAME_DAY": "USD", "SWIFT": "USD", "SEPA": "EUR"}
_COUNTRY_CURRENCY = {
    "AE": "AED", "AR": "ARS", "AU": "AUD", "BD": "BDT", "BO": "BOB", "BR": "BRL", "CA": "CAD", "CL": "CLP",
    "CN": "CNY", "CO": "COP", "CR": "CRC", "CZ": "CZK", "DK": "DKK", "DO": "DOP", "EC": "USD", "EG": "EGP",
    "GB": "GBP", "GH": "GHS", "GT": "GTQ", "HK": "HKD", "HU": "HUF", "ID": "IDR", "IL": "ILS", "IN": "INR",
    "JM": "JMD", "JO": "JOD", "JP": "JPY", "KE": "KES", "KR": "KRW", "LK": "LKR", "MX": "MXN", "MY": "MYR",
    "NG": "NGN", "NO": "NOK", "NP": "NPR", "NZ": "NZD", "PE": "PEN", "PH": "PHP", "PK": "PKR", "PL": "PLN",
    "QA": "QAR", "RO": "RON", "SA": "SAR", "SE": "SEK", "SG": "SGD", "SV": "USD", "TH": "THB", "TR": "TRY",
    "TZ": "TZS", "VN": "VND", "ZA": "ZAR",
}  # fmt: skip
FIAT_CURRENCIES = sorted({*_RAIL_CURRENCY.values(), *_COUNTRY_CURRENCY.values()})

PAYMENT_METHOD_CHOICES = [
    ("", "—"),
    ("Fiat rails", [(rail, rail) for rail in RAILS]),
    ("Chains", [(chain, chain) for chain in CHAINS]),
]
CHAIN_CHOICES = [(chain, chain) for chain in CHAINS]
TOKEN_CHOICES = [(token, token) for token in TOKENS]

EVM_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
SOLANA_ADDRESS = re.compile(r"^[1-9A-HJ-NP-Za-km-z]{32,44}$")


def rail_currency(method: str) -> str | None:
    """The fiat currency of a rail, None for a chain or an unknown method."""
    if method in _RAIL_CURRENCY:
        return _RAIL_CURRENCY[method]
    return _COUNTRY_CURRENCY.get(method[:2]) if method in RAILS else None


def address_error(chain: str, address: str) -> str | None:
    """Why `address` cannot be a wallet on `chain`, or None when its format fits."""
    if chain in EVM_CHAINS and not EVM_ADDRESS.match(address):
        return f"An address on {chain} is 0x followed by 40 hexadecimal characters."
    if chain == "SOLANA" and not SOLANA_ADDRESS.match(address):
        return "A Solana address is 32 to 44 base58 characters (no 0, O, I or l)."
    return None


def aba_checksum_ok(number: str) -> bool:
    return sum(w * int(d) for w, d in zip([3, 7, 1] * 3, number, strict=True)) % 10 == 0


def describe_cron(expression: str) -> str:
    """The cron expression in plain words ("At 09:00 AM, Monday through Friday"), in UTC."""
    try:
        return get_description(expression) + " (UTC)"
    except Exception:  # cron-descriptor raises several unrelated types for bad input
        return expression


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


# --- Payment accounts -------------------------------------------------------------------------


class PaymentAccountFilter(django_filters.FilterSet):
    account_type = django_filters.ChoiceFilter(
        label="Type",
        choices=[
            (t, t.replace("_", " ").capitalize())
            for t in (
                "EXTERNAL_BANK_ACCOUNT",
                "EXTERNAL_CRYPTO_WALLET",
                "SERVICE_CRYPTO_WALLET",
                "SERVICE_AUTO_FIAT_ACCOUNT",
                "SERVICE_FIAT_ACCOUNT",
            )
        ],
        empty_label="Any type",
    )
    status = django_filters.ChoiceFilter(label="Status", choices=PaymentAccountStatus.choices, empty_label="Any status")
    customer = django_filters.CharFilter(label="Customer id", method="filter_customer")

    class Meta:
        model = PaymentAccount
        fields = []

    def filter_customer(self, queryset, name, value):
        # A subquery on the customer's upstream id keeps the page one query and uses the
        # (customer, first_seen_at, id) index.
        return queryset.filter(customer__in=Customer.objects.filter(customer_id=value.strip()).values("pk"))


class AccountBaseForm(ApiErrorsMixin, forms.Form):
    account_type: str = ""
    customer_id = forms.CharField(label="Customer id", max_length=64)
    nickname = forms.CharField(label="Nickname", max_length=200, required=False)

    api_fields = {"customerId": "customer_id", "nickname": "nickname", "isThirdParty": "is_third_party"}

    def clean_customer_id(self):
        value = self.cleaned_data["customer_id"].strip()
        customer = Customer.objects.filter(customer_id=value).first()
        if customer is None:
            raise forms.ValidationError("No customer with this id in the back-office; sync customers first.")
        if customer.status in ("REJECTED", "DEACTIVATED"):
            raise forms.ValidationError(f"This customer is {customer.status.lower()}: it cannot get payment accounts.")
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
    account_number = forms.RegexField(
        label="Account number",
        regex=r"^\d{4,17}$",
        required=False,
        error_messages={"invalid": "4 to 17 digits."},
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    routing_number = forms.RegexField(
        label="ABA routing number",
        regex=r"^\d{9}$",
        required=False,
        error_messages={"invalid": "9 digits."},
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    is_third_party = forms.BooleanField(label="Belongs to a third party", required=False)

    api_fields = {
        **AccountBaseForm.api_fields,
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
        **AccountBaseForm.api_fields,
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
        **AccountBaseForm.api_fields,
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
        **AccountBaseForm.api_fields,
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


# --- Automation rules -------------------------------------------------------------------------


class AutomationRuleFilter(django_filters.FilterSet):
    customer = django_filters.CharFilter(label="Customer id", field_name="customer_upstream_id")
    source = django_filters.CharFilter(label="Source account id", field_name="source_account_id")

    class Meta:
        model = AutomationRule
        fields = []


# Amounts as text: a number input's step and locale rules get in the way of exact decimals.
AMOUNT = forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"})


def _positive(value: Decimal):
    if value is not None and value <= 0:
        raise forms.ValidationError("Must be greater than 0.")


class AutomationRuleForm(ApiErrorsMixin, forms.Form):
    TRIGGER_CHOICES = [("CRON", "On a schedule (cron)"), ("THRESHOLD", "When the source balance reaches an amount")]

    name = forms.CharField(label="Name", max_length=200)
    customer_id = forms.CharField(label="Customer id", max_length=64)
    source_account_id = forms.CharField(label="Source payment account id", max_length=64)
    source_payment_method = forms.ChoiceField(label="Source payment method", choices=PAYMENT_METHOD_CHOICES)
    source_currency = forms.CharField(
        label="Source currency", max_length=64, widget=forms.TextInput(attrs={"list": "currency-labels"})
    )
    destination_account_id = forms.CharField(label="Destination payment account id", max_length=64)
    destination_payment_method = forms.ChoiceField(label="Destination payment method", choices=PAYMENT_METHOD_CHOICES)
    destination_currency = forms.CharField(
        label="Destination currency", max_length=64, widget=forms.TextInput(attrs={"list": "currency-labels"})
    )
    amount = forms.DecimalField(
        label="Amount (source currency)", max_digits=38, decimal_places=18, validators=[_positive], widget=AMOUNT
    )
    developer_fee = forms.DecimalField(
        label="Developer fee (USD)", max_digits=20, decimal_places=2, min_value=0, required=False, widget=AMOUNT
    )
    trigger_type = forms.ChoiceField(label="Trigger", choices=TRIGGER_CHOICES, widget=forms.RadioSelect)
    cron_schedule = forms.CharField(
        label="Cron schedule (5 fields, UTC)",
        max_length=100,
        required=False,
        widget=forms.TextInput(attrs={"placeholder": "0 9 * * 1-5", "spellcheck": "false"}),
    )
    threshold_amount = forms.DecimalField(
        label="Threshold amount (source currency)",
        max_digits=38,
        decimal_places=18,
        required=False,
        validators=[_positive],
        widget=AMOUNT,
    )

    api_fields = {
        "name": "name",
        "customerId": "customer_id",
        "transactionTemplate.source.sourcePaymentAccountId": "source_account_id",
        "transactionTemplate.source.sourcePaymentMethod": "source_payment_method",
        "transactionTemplate.source.sourceCurrency": "source_currency",
        "transactionTemplate.destination.destinationPaymentAccountId": "destination_account_id",
        "transactionTemplate.destination.destinationPaymentMethod": "destination_payment_method",
        "transactionTemplate.destination.destinationCurrency": "destination_currency",
        "transactionTemplate.amount.value": "amount",
        "transactionTemplate.amount": "amount",
        "transactionTemplate.developerFee.developerFeeAmount": "developer_fee",
        "transactionTemplate.developerFee": "developer_fee",
        "trigger.cronSchedule": "cron_schedule",
        "trigger.thresholdAmount": "threshold_amount",
        "trigger": "trigger_type",
    }
    # The template's errors may also come without the "transactionTemplate." prefix.
    api_fields |= {
        path.removeprefix("transactionTemplate."): name
        for path, name in api_fields.items()
        if path.startswith("transactionTemplate.")
    }

    def __init__(self, *args, editing: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if editing:
            # PUT may not change the owner (the API refuses it); keep it visible, not editable.
            self.fields["customer_id"].disabled = True

    def clean_cron_schedule(self):
        value = " ".join(self.cleaned_data["cron_schedule"].split())
        if value and (len(value.split()) != 5 or not croniter.is_valid(value)):
            raise forms.ValidationError("Not a cron expression of five fields (minute hour day month weekday).")
        return value

    def clean(self):
        data = super().clean()
        trigger = data.get("trigger_type")
        if trigger == "CRON" and not data.get("cron_schedule") and "cron_schedule" not in self.errors:
            self.add_error("cron_schedule", "Needed for a scheduled rule.")
        if trigger == "THRESHOLD" and data.get("threshold_amount") is None and "threshold_amount" not in self.errors:
            self.add_error("threshold_amount", "Needed for a threshold rule.")
        self._check_owners(data)
        return data

    def _check_owners(self, data) -> None:
        """The customer and both accounts must be in the mirror, and the accounts the customer's
        own (a destination may also be a third party's of the same organization): an id typed
        or tampered with never reaches the API on behalf of another customer."""
        customer_id = (data.get("customer_id") or "").strip()
        if not customer_id:
            return
        customer = Customer.objects.filter(customer_id=customer_id).first()
        if customer is None:
            self.add_error("customer_id", "No customer with this id in the back-office; sync customers first.")
            return
        for name, may_be_third_party in (("source_account_id", False), ("destination_account_id", True)):
            account_id = (data.get(name) or "").strip()
            if not account_id or name in self.errors:
                continue
            account = PaymentAccount.objects.select_related("customer").filter(account_id=account_id).first()
            if account is None:
                self.add_error(name, "No payment account with this id in the back-office; sync accounts first.")
            elif account.customer_upstream_id != customer.customer_id and not (
                may_be_third_party
                and account.is_third_party
                and account.customer is not None
                and account.customer.organization_id == customer.organization_id
            ):
                self.add_error(name, "This account belongs to another customer: a rule moves its own customer's money.")

    def cron_words(self) -> str:
        """The schedule in plain words: the checked input, else the rule's current one."""
        if self.is_bound:
            value = getattr(self, "cleaned_data", {}).get("cron_schedule")
        else:
            value = self.initial.get("cron_schedule")
        return describe_cron(value) if value else ""

    def template(self) -> dict:
        data = self.cleaned_data
        template = {
            "source": {
                "sourcePaymentAccountId": data["source_account_id"].strip(),
                "sourcePaymentMethod": data["source_payment_method"],
                "sourceCurrency": data["source_currency"].strip(),
            },
            "destination": {
                "destinationPaymentAccountId": data["destination_account_id"].strip(),
                "destinationPaymentMethod": data["destination_payment_method"],
                "destinationCurrency": data["destination_currency"].strip(),
            },
            "amount": {"value": data["amount"]},
        }
        if data.get("developer_fee") is not None:
            template["developerFee"] = {"developerFeeType": "USD", "developerFeeAmount": data["developer_fee"]}
        return template

    def trigger(self) -> dict:
        data = self.cleaned_data
        if data["trigger_type"] == "CRON":
            return {"cronSchedule": data["cron_schedule"]}
        return {"thresholdAmount": data["threshold_amount"]}

    @classmethod
    def initial_from(cls, rule) -> dict:
        """The edit form's values from a mirrored rule (currencies are objects in the mirror)."""
        template, trigger = rule.transaction_template or {}, rule.trigger or {}
        source, destination = template.get("source", {}), template.get("destination", {})

        def label(value):
            return value.get("label") or value.get("contractAddress", "") if isinstance(value, dict) else value or ""

        return {
            "name": rule.name,
            "customer_id": rule.customer_upstream_id,
            "source_account_id": source.get("sourcePaymentAccountId", ""),
            "source_payment_method": source.get("sourcePaymentMethod", ""),
            "source_currency": label(source.get("sourceCurrency")),
            "destination_account_id": destination.get("destinationPaymentAccountId", ""),
            "destination_payment_method": destination.get("destinationPaymentMethod", ""),
            "destination_currency": label(destination.get("destinationCurrency")),
            "amount": (template.get("amount") or {}).get("value"),
            "developer_fee": (template.get("developerFee") or {}).get("developerFeeAmount"),
            "trigger_type": "CRON" if trigger.get("cronSchedule") else "THRESHOLD",
            "cron_schedule": trigger.get("cronSchedule", ""),
            "threshold_amount": trigger.get("thresholdAmount"),
        }


# --- Exchange rates ---------------------------------------------------------------------------


class ExchangeRateForm(ApiErrorsMixin, forms.Form):
    source_payment_method = forms.ChoiceField(label="From (rail or chain)", choices=PAYMENT_METHOD_CHOICES)
    source_currency = forms.CharField(
        label="Source currency",
        max_length=64,
        required=False,
        help_text="Blank: the rail's own currency.",
        widget=forms.TextInput(attrs={"list": "currency-labels"}),
    )
    destination_payment_method = forms.ChoiceField(label="To (rail or chain)", choices=PAYMENT_METHOD_CHOICES)
    destination_currency = forms.CharField(
        label="Destination currency",
        max_length=64,
        required=False,
        help_text="Blank: the rail's own currency.",
        widget=forms.TextInput(attrs={"list": "currency-labels"}),
    )
    source_amount = forms.DecimalField(
        label="Amount (optional)",
        max_digits=38,
        decimal_places=18,
        required=False,
        validators=[_positive],
        widget=AMOUNT,
    )

    api_fields = {
        "sourcePaymentMethod": "source_payment_method",
        "sourceCurrency": "source_currency",
        "destinationPaymentMethod": "destination_payment_method",
        "destinationCurrency": "destination_currency",
        "sourceAmount": "source_amount",
    }

    def clean(self):
        data = super().clean()
        for side in ("source", "destination"):
            method = data.get(f"{side}_payment_method")
            currency = (data.get(f"{side}_currency") or "").strip()
            if method and not currency:
                currency = rail_currency(method) or ""
                if not currency:
                    self.add_error(f"{side}_currency", "Name the token for a chain (USDC, ETH, ...).")
            data[f"{side}_currency"] = currency
        return data
