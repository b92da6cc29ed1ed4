"""The checker's rejection: a reason the maker reads."""

from django import forms


class RejectForm(forms.Form):
    reason = forms.CharField(
        label="Reason (the maker reads it; kept in the audit log)",
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
