"""The KYC (individuals) and KYB (businesses) editors, and the rows their forms and the create
page add and remove.

An editor lists the customer's open verification issues (from the mirror), marks the fields
and documents they concern and asks first for what must be sent again; the rest of the form
waits folded under "Other details". The API returns none of the KYC/KYB values it holds
(docs/kyc-updates.md), so the page shows what the mirror and the audit log know instead: the
customer's status and issues, and what was sent from the back-office and when.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from audit.models import AuditEvent
from core.access import role_required
from core.forms import SUBMISSION_LOST, posted_submission
from paymentsapi import PaymentsApiError, ValidationFailed
from upstream.api_errors import api_error_message, outcome_unknown

from .. import services
from ..forms.create import ROW_FORMSETS
from ..forms.issues import open_issues
from ..forms.kyb import KybEdit
from ..forms.kyc import KycEdit
from ..models import Customer, CustomerStatus, CustomerType

ROW_PREFIX = re.compile(r"^(persons|documents|kyc_documents)-(\d{1,2})$")
# The audit actions that sent KYC/KYB data: "what was sent from here" on the editor.
SENT_ACTIONS = ("customer.create", "customer.update_kyc", "customer.update_kyb")
SENT_SHOWN = 5


def _customer(customer_id: str) -> Customer:
    return get_object_or_404(Customer, customer_id=customer_id)


def send_or_explain(form, send: Callable[[], Customer]) -> Customer | None:
    """`send()`'s customer; or None, with the API's refusal put on `form` (a create or an
    editor): field errors where they belong, else the staff message, and whether the write may
    have gone through (the heading must not say "nothing was changed" then)."""
    try:
        return send()
    except ValidationFailed as exc:
        form.add_api_errors(exc.field_errors)
        if not form.top_errors:
            form.top_errors.append("The Payments API refused some fields; see the messages below.")
    except PaymentsApiError as exc:
        # The form keeps its one-time mark: sent again, it is read back before it is written.
        form.top_errors.append(api_error_message(exc, write=True, repeatable=True))
        form.maybe_done = outcome_unknown(exc)
    return None


def bound(request) -> tuple:
    """A form's data: bound on POST even when empty (an empty POST says "nothing to send")."""
    return (request.POST, request.FILES) if request.method == "POST" else (None, None)


def with_one_more_row(request):
    """Without JavaScript, "Add" posts the form: its data with one more row of that kind, for
    the same page to come back (nothing is sent); None when the POST is not an "Add"."""
    kind = request.POST.get("add_row") if request.method == "POST" else None
    if kind not in ROW_FORMSETS:
        return None
    data = request.POST.copy()
    key = f"{kind}-TOTAL_FORMS"
    # The count comes from the browser: anything but a small number is taken as no rows.
    total = data.get(key) or "0"
    rows = int(total) if total.isdigit() and len(total) < 4 else 0
    data[key] = str(min(rows, ROW_FORMSETS[kind].max_num - 1) + 1)
    data.setdefault(f"{kind}-INITIAL_FORMS", "0")
    return data


def _status_notice(customer: Customer) -> str:
    if customer.status in (CustomerStatus.CREATED, CustomerStatus.NEEDS_ADDITIONAL_INFORMATION):
        return ""
    return (
        f"This customer is {customer.get_status_display().lower()}: the API accepts changes only while a "
        "customer is created or needs additional information."
    )


@role_required("change_customers")
@require_http_methods(["GET", "POST"])
def edit_kyc(request, customer_id):
    return _edit_profile(request, customer_id, KYC_EDIT)


@role_required("change_customers")
@require_http_methods(["GET", "POST"])
def edit_kyb(request, customer_id):
    return _edit_profile(request, customer_id, KYB_EDIT)


@dataclass(frozen=True)
class ProfileEdit:
    """What differs between the KYC (individuals) and the KYB (businesses) editors."""

    kind: str
    customer_type: str
    edit_class: type
    template: str
    other_url: str  # the other kind's editor, for a customer of the other type
    send: Callable[..., Customer]  # (actor, customer, data, sections, submission) -> the updated customer


KYC_EDIT = ProfileEdit(
    kind="KYC",
    customer_type=CustomerType.INDIVIDUAL,
    edit_class=KycEdit,
    template="customers/edit_kyc.html",
    other_url="customers-edit-kyb",
    send=services.customer_update_kyc,
)
KYB_EDIT = ProfileEdit(
    kind="KYB",
    customer_type=CustomerType.BUSINESS,
    edit_class=KybEdit,
    template="customers/edit_kyb.html",
    other_url="customers-edit-kyc",
    send=services.customer_update_kyb,
)


def _edit_profile(request, customer_id, profile: ProfileEdit):
    """The KYC (individuals) or KYB (businesses) form: one flow, two kinds of data."""
    template = profile.template
    customer = _customer(customer_id)
    if customer.customer_type != profile.customer_type:
        return redirect(profile.other_url, customer_id=customer_id)
    issues = open_issues(customer.issues.order_by("timestamp", "id"))
    if data := with_one_more_row(request):
        edit = profile.edit_class(data, request.FILES, issues=issues)
        if profile is KYB_EDIT:
            edit.is_valid()
        return render(request, template, _context(customer, profile, edit, quiet=True))
    edit = profile.edit_class(*bound(request), issues=issues)
    if request.method == "POST" and edit.is_valid():
        api_data, sections = edit.api_data()
        submission = posted_submission(request)
        if not api_data:
            edit.top_errors.append("Nothing to send: fill in at least one field.")
        elif submission is None:
            edit.top_errors.append(SUBMISSION_LOST)
        else:
            sent = send_or_explain(
                edit,
                lambda: profile.send(
                    actor=request.user, customer=customer, data=api_data, sections=sections, submission=submission
                ),
            )
            if sent is not None:
                return _updated(request, sent, profile.kind, sections)
    return render(request, template, _context(customer, profile, edit))


def _context(customer: Customer, profile: ProfileEdit, edit, *, quiet: bool = False) -> dict:
    sent = AuditEvent.objects.filter(
        target_kind="customer",
        target_id=customer.customer_id,
        action__in=SENT_ACTIONS,
        outcome=AuditEvent.Outcome.SUCCESS,
    ).order_by("-created_at", "-id")[: SENT_SHOWN * 2]
    return {
        "customer": customer,
        "kind": profile.kind,
        "edit": edit,
        "form": edit.form,
        "notice": _status_notice(customer),
        "quiet": quiet,
        "sent": [
            {"at": event.created_at, "who": event.actor_username, "sections": _words(event.details.get("sections"))}
            for event in sent
            if event.details.get("sections")  # a create without data sent none
        ][:SENT_SHOWN],
        "can_refill": bool(customer.verification_link)
        and customer.status == CustomerStatus.NEEDS_ADDITIONAL_INFORMATION,
    }


def _words(sections) -> str:
    return ", ".join(sorted(str(s) for s in sections or [])).replace("_", " ")


def _updated(request, customer: Customer, what: str, sections: set[str]):
    messages.success(
        request, f"{what} update sent ({_words(sections)}). The customer is now {customer.get_status_display()}."
    )
    return redirect("customers-view-customer", customer_id=customer.customer_id)


ROW_TEMPLATES = {
    "persons": ("customers/_person_row.html", "Associated person", 1),
    "documents": ("customers/_document_row.html", "Business document", 1),
    # The KYC form holds the first identity document: rows are the second and after.
    "kyc_documents": ("customers/_document_row.html", "Identity document", 2),
}


def _new_row(request, kind: str, customer_id: str | None):
    """One more empty row of a KYC/KYB form, for htmx to append (the count goes out of band)."""
    if kind not in ROW_FORMSETS:
        raise Http404
    formset_class = ROW_FORMSETS[kind]
    try:
        index = max(0, min(int(request.GET.get(f"{kind}-TOTAL_FORMS", "0")), formset_class.max_num - 1))
    except ValueError:
        index = 0
    row = formset_class(prefix=kind).empty_form
    row.prefix = f"{kind}-{index}"
    template, legend, first = ROW_TEMPLATES[kind]
    context = {
        "row": row,
        "index": index,
        "number": index + first,
        "legend": legend,
        "kind": kind,
        "total": index + 1,
        "oob": True,
        "customer_id": customer_id,
    }
    return render(request, template, context)


def _removed_row(request):
    """The row's DELETE marker: the formset leaves the row out of the request."""
    match = ROW_PREFIX.match(request.GET.get("prefix", ""))
    if not match:
        raise Http404
    return HttpResponse(
        f'<p class="removed-row"><input type="hidden" name="{match.group(0)}-DELETE" value="on">'
        "Row removed; it will not be sent.</p>"
    )


@role_required("change_customers")
@require_GET
def add_row(request, customer_id, kind):
    _customer(customer_id)
    return _new_row(request, kind, customer_id)


@role_required("change_customers")
@require_GET
def remove_row(request, customer_id):
    _customer(customer_id)
    return _removed_row(request)


@role_required("change_customers")
@require_GET
def add_new_row(request):
    """A row of the create page's KYC/KYB part (no customer yet): ?kind=persons etc."""
    return _new_row(request, request.GET.get("kind", ""), None)


@role_required("change_customers")
@require_GET
def remove_new_row(request):
    return _removed_row(request)
