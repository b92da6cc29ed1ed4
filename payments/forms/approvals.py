"""The checker's decision: an approval with a note if they wish, a rejection with a reason;
the maker reads both. The maker's reason for a hold or release of a payment account."""

from django import forms

from core.forms import textarea_field


class RejectForm(forms.Form):
    reason = textarea_field("Reason (the maker reads it; kept in the audit log)", max_length=500)


class ApproveForm(forms.Form):
    note = textarea_field(
        "Note (optional; the maker reads it; kept in the audit log)", max_length=500, rows=2, required=False
    )


class HoldForm(forms.Form):
    reason = textarea_field("Reason (the checker reads it; the account's page shows it)", max_length=500, rows=2)
