"""The case work on a customer page and in the queue: assign, note, hand out a link, decide,
assign in bulk (the queue's filters are customers.filters.QueueFilter)."""

from django import forms
from django.contrib.auth import get_user_model

from core.forms import textarea_field
from core.live import CompiledQuery

from ..models import CaseDecision
from ..services_cases import UNCHECKED


def colleagues():
    """The active staff who may work on customers (compliance, admin), by username."""
    return (
        get_user_model()
        .objects.filter(is_active=True, groups__permissions__codename="change_customers")
        .distinct()
        .order_by("username")
    )


# Read by the queue's filter form on every page: the ORM compiled its five joins each time,
# here once (docs/benchmarks.md).
_COLLEAGUE_NAMES = CompiledQuery(lambda: colleagues().values_list("pk", "username"))


def colleague_names() -> list[tuple[int, str]]:
    """(pk, username) of each of colleagues(), in its order."""
    return _COLLEAGUE_NAMES.rows()


OUT_OF_DATE = "The page was out of date: reload it and try again."


class AssignForm(forms.Form):
    """Claim (assign to me), hand to a colleague, or release a case; `seen` is the assignee
    the page showed (services_cases.customer_assign)."""

    assignee = forms.ModelChoiceField(
        queryset=get_user_model().objects.none(), required=False, label="Assign to", empty_label="Nobody"
    )
    seen = forms.RegexField(r"^\d{0,12}$", required=False, widget=forms.HiddenInput)

    def __init__(self, *args, colleagues_read=None, **kwargs):
        super().__init__(*args, **kwargs)
        # Only those who may work on customers can be given a case.
        field = self.fields["assignee"]
        field.queryset = colleagues()
        if colleagues_read is not None:
            # Already read with the page's other lists: shown without a query of its own
            # (a POST is still checked against the queryset).
            field.choices = [
                ("", field.empty_label),
                *((user.pk, field.label_from_instance(user)) for user in colleagues_read),
            ]

    def seen_assignee(self):
        """The assignee's pk the page showed (None: unassigned), or UNCHECKED when not sent."""
        if "seen" not in self.data:
            return UNCHECKED
        return int(self.cleaned_data["seen"]) if self.cleaned_data["seen"] else None


class NoteForm(forms.Form):
    body = textarea_field(
        "Internal note", max_length=5000, help_text="Seen by staff only; never sent to the Payments API."
    )


class HandoutForm(forms.Form):
    kind = forms.ChoiceField(choices=[("copied", "copied"), ("opened", "opened"), ("refill", "refill")])


class DecisionForm(forms.Form):
    """A reviewer's decision on the case, with the reason (kept in the case history)."""

    kind = forms.ChoiceField(choices=CaseDecision.Kind.choices, label="Decision", widget=forms.RadioSelect)
    reason = textarea_field(
        "Reason",
        max_length=2000,
        help_text="Seen by staff only; kept on the case timeline.",
        error_messages={"required": "Say why: the reason is kept with the decision."},
    )
    # The newest decision the page showed (services_cases.customer_decide).
    seen = forms.CharField(required=False, max_length=20, widget=forms.HiddenInput)

    def clean(self):
        data = super().clean()
        seen = data.get("seen") or ""
        if seen.isdigit():
            data["seen"] = int(seen)
        else:
            self.add_error(None, OUT_OF_DATE)
        return data


class BulkAssignForm(forms.Form):
    """Assign the ticked queue rows to a colleague, or claim them ("claim" set)."""

    customers = forms.CharField(required=False)
    claim = forms.BooleanField(required=False)
    assignee = forms.ModelChoiceField(queryset=get_user_model().objects.none(), required=False, label="Assign to")
    MAX = 200

    def __init__(self, data=None, *args, **kwargs):
        super().__init__(data, *args, **kwargs)
        self.fields["assignee"].queryset = colleagues()
        self.customer_ids = [c for c in (data.getlist("customers") if data is not None else []) if c][: self.MAX]

    def clean(self):
        cleaned = super().clean()
        if not self.customer_ids:
            raise forms.ValidationError("Tick the cases to assign.")
        if not cleaned.get("claim") and not cleaned.get("assignee"):
            raise forms.ValidationError("Choose a colleague, or claim the cases yourself.")
        return cleaned
