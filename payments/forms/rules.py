"""The automation rule form: a transaction template and its trigger (cron or threshold)."""

import datetime as dt
import functools

from cron_descriptor import get_description
from croniter import croniter
from django import forms
from django.utils import timezone

from core.forms import ApiErrorsMixin
from customers.models import Customer

from ..models import PaymentAccount
from ..rails import CHAINS, PAYMENT_METHOD_CHOICES
from ..selectors import accounts_by_id, quote_accounts
from .fields import AmountField, CustomerPicker, FieldsetsMixin
from .transactions import account_label


# Remembered: cron-descriptor reads its translations on every call, a list of 50
# rules said the same few schedules 50 times, and the words depend only on the expression.
@functools.lru_cache(maxsize=1024)
def describe_cron(expression: str) -> str:
    """The cron expression in plain words ("At 09:00 AM, Monday through Friday"), in UTC."""
    try:
        return get_description(expression) + " (UTC)"
    except Exception:  # cron-descriptor raises several unrelated types for bad input
        return expression


def trigger_words(terms) -> str:
    """When a rule runs, in plain words (its RuleTerms' schedule and threshold)."""
    if terms.cron_schedule and terms.threshold_amount is not None:
        return f"{describe_cron(terms.cron_schedule)}, when the source balance is at least {terms.threshold_amount}"
    if terms.cron_schedule:
        return describe_cron(terms.cron_schedule)
    if terms.threshold_amount is not None:
        return f"When the source balance reaches {terms.threshold_amount}"
    return "—"


def next_runs(expression: str, *, count: int = 3, now: dt.datetime | None = None) -> list[dt.datetime]:
    """The next `count` runs of a UTC cron expression, in the current (the member's) time zone;
    none for an expression that is not one."""
    if not expression or len(expression.split()) != 5 or not croniter.is_valid(expression):
        return []
    runs = croniter(expression, (now or timezone.now()).astimezone(dt.UTC))
    return [timezone.localtime(runs.get_next(dt.datetime)) for _ in range(count)]


def _id_or_blank(value) -> str:
    """A typed or posted id to look up, or "" for what no id is (a NUL byte, which no database
    column takes, is refused by the field's own validation)."""
    return value.strip() if isinstance(value, str) and "\x00" not in value else ""


class AutomationRuleForm(FieldsetsMixin, ApiErrorsMixin, forms.Form):
    TRIGGER_CHOICES = [("CRON", "On a schedule (cron)"), ("THRESHOLD", "When the source balance reaches an amount")]
    # The transaction template; the name and owner come before it, the trigger after.
    FIELDSETS = {
        "Source": ("source_account_id", "source_payment_method", "source_currency"),
        "Destination": ("destination_account_id", "destination_payment_method", "destination_currency"),
        "Amount": ("amount", "developer_fee"),
    }

    name = forms.CharField(label="Name", max_length=200)
    customer_id = forms.CharField(label="Customer", max_length=64, widget=CustomerPicker)
    # Chosen by name among the customer's accounts; the value stays the account's id, checked
    # by _check_owners (not by the choices: a rule's account may since have been deactivated).
    source_account_id = forms.CharField(label="Source account", max_length=64, widget=forms.Select)
    source_payment_method = forms.ChoiceField(label="Source payment method", choices=PAYMENT_METHOD_CHOICES)
    source_currency = forms.CharField(
        label="Source currency", max_length=64, widget=forms.TextInput(attrs={"list": "currency-labels"})
    )
    destination_account_id = forms.CharField(label="Destination account", max_length=64, widget=forms.Select)
    destination_payment_method = forms.ChoiceField(label="Destination payment method", choices=PAYMENT_METHOD_CHOICES)
    destination_currency = forms.CharField(
        label="Destination currency", max_length=64, widget=forms.TextInput(attrs={"list": "currency-labels"})
    )
    amount = AmountField(label="Amount (source currency)")
    developer_fee = AmountField(label="Developer fee (USD)", positive=False, places=2, required=False)
    trigger_type = forms.ChoiceField(label="Trigger", choices=TRIGGER_CHOICES, widget=forms.RadioSelect)
    cron_schedule = forms.CharField(
        label="Cron schedule (5 fields, UTC)",
        max_length=100,
        required=False,
        help_text="The API runs the schedule in UTC; the next runs below are shown in your time zone.",
        widget=forms.TextInput(attrs={"placeholder": "0 9 * * 1-5", "spellcheck": "false"}),
    )
    threshold_amount = AmountField(label="Threshold amount (source currency)", required=False)

    api_fields = {
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
        self._account_choices()

    def _account_choices(self) -> None:
        """The chosen customer's accounts by name (as the quote builder offers them): sources its
        own, destinations also its organization's third parties. A current value the list does
        not offer (a rule's account since deactivated) stays choosable, by name, or by id when
        the mirror does not hold it; _check_owners judges it."""
        field = self.fields["customer_id"]
        if self.is_bound and not field.disabled:
            customer_id = self.data.get(self.add_prefix("customer_id"), "")
        else:
            customer_id = self.initial.get("customer_id", "")
        customer_id = _id_or_blank(customer_id)
        customer = Customer.objects.filter(customer_id=customer_id).first() if customer_id else None
        field.widget.customer = customer
        sources, destinations = quote_accounts(customer=customer) if customer else ([], [])
        offered = {"source_account_id": sources, "destination_account_id": destinations}
        current = {
            name: _id_or_blank(self.data.get(self.add_prefix(name)) if self.is_bound else self.initial.get(name))
            for name in offered
        }
        offered_ids = {a.account_id for accounts in offered.values() for a in accounts}
        others = accounts_by_id(*(value for value in current.values() if value and value not in offered_ids))
        for name, accounts in offered.items():
            choices = [("", "Choose the customer first" if customer is None else "Choose an account")]
            choices += [(a.account_id, account_label(a)) for a in accounts]
            value = current[name]
            if value and value not in {choice for choice, _ in choices}:
                choices.append((value, account_label(others[value]) if value in others else f"account {value}"))
            self.fields[name].widget.choices = choices

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
        self._check_direction(data)
        self._check_owners(data)
        return data

    def _check_direction(self, data) -> None:
        """As in the quote builder: fiat to crypto or crypto to fiat. Caught here, because the
        API sees a rule only once another person has approved it."""
        source, destination = data.get("source_payment_method"), data.get("destination_payment_method")
        if source and destination and (source in CHAINS) == (destination in CHAINS):
            kind = "crypto" if source in CHAINS else "fiat"
            self.add_error(
                "destination_payment_method",
                f"{source} → {destination} is {kind} to {kind}: a rule converts fiat to crypto or crypto to fiat.",
            )

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

    def _cron_value(self) -> str:
        """The schedule shown: the checked input, else the rule's current one."""
        if self.is_bound:
            return getattr(self, "cleaned_data", {}).get("cron_schedule") or ""
        return self.initial.get("cron_schedule") or ""

    def cron_words(self) -> str:
        """The schedule in plain words."""
        value = self._cron_value()
        return describe_cron(value) if value else ""

    def cron_next_runs(self) -> list[dt.datetime]:
        """The schedule's next three runs, in the member's time zone."""
        return next_runs(self._cron_value())

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
        """The edit form's values from a mirrored rule."""
        terms = rule.terms
        return {
            "name": rule.name,
            "customer_id": rule.customer_upstream_id,
            "source_account_id": terms.source_account_id,
            "source_payment_method": terms.source_payment_method,
            "source_currency": terms.source_currency,
            "destination_account_id": terms.destination_account_id,
            "destination_payment_method": terms.destination_payment_method,
            "destination_currency": terms.destination_currency,
            "amount": terms.amount,
            "developer_fee": terms.developer_fee,
            "trigger_type": "CRON" if terms.cron_schedule else "THRESHOLD",
            "cron_schedule": terms.cron_schedule,
            "threshold_amount": terms.threshold_amount,
        }
