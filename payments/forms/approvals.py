"""The checker's decision: an approval with a note if they wish, a rejection with a reason;
the maker reads both."""

from django import forms


class RejectForm(forms.Form):
    reason = forms.CharField(
        label="Reason (the maker reads it; kept in the audit log)",
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class ApproveForm(forms.Form):
    note = forms.CharField(
        label="Note (optional; the maker reads it; kept in the audit log)",
        required=False,
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
