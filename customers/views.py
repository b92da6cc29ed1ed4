"""The compliance workspace: the review queue, the customer page, case work, KYC/KYB editors.

Reads need view_customers, writes change_customers; every write calls one service, which
talks to the API first and leaves an audit event.
"""

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.access import role_required
from core.api_errors import api_error_message, outcome_unknown
from core.htmx import page_or_partial
from core.live import live_url
from core.pagination import paginate_keyset
from paymentsapi import PaymentsApiError, ValidationFailed

from . import choices, page_sections, selectors, services
from .forms.casework import AssignForm, DecisionForm, HandoutForm, NoteForm, QueueFilterForm, colleagues
from .forms.create import ROW_FORMSETS, CustomerCreate
from .forms.kyb import KybEdit
from .forms.kyc import KycEdit
from .models import CaseDecision, Customer, CustomerStatus, CustomerType, HostedLinkHandout
from .templatetags.customers_extras import duration

PAGE_SIZE = 50
# A second Refresh within this many seconds is not sent again (double clicks, impatient reloads).
REFRESH_MIN_INTERVAL = dt.timedelta(seconds=5)
ROW_PREFIX = re.compile(r"^(persons|documents|kyc_documents)-(\d{1,2})$")


def _customer(customer_id: str) -> Customer:
    return get_object_or_404(Customer, customer_id=customer_id)


def _row_clock(customer: Customer, now) -> dict:
    """SLA state of a queue row: the same "waiting on us" clock as the customer page, from the
    clock kept on the row (no extra query)."""
    clock = selectors.row_clock(customer, now)
    if customer.case_decision:
        # Decided: the case waits on nobody until the customer changes.
        label = CaseDecision.Kind(customer.case_decision).label if customer.case_decision in CaseDecision.Kind else ""
        return {"state": "decided", "label": f"decided: {label.lower()}", "on_us": clock.on_us, "overdue": False}
    if not clock.open:
        return {"state": "none", "label": "", "on_us": None, "overdue": False}
    if clock.overdue:
        state, label = "overdue", f"over SLA by {duration(clock.on_us - clock.sla)}"
        if clock.paused:
            label += ", waiting on customer"
    elif clock.paused:
        state, label = "customer", "waiting on customer"
    else:
        state, label = "ok", "within SLA"
    return {"state": state, "label": label, "on_us": clock.on_us, "overdue": clock.overdue}


@role_required("view_customers")
@require_GET
def list_customers(request):
    form = QueueFilterForm(request.GET)
    filters = form.cleaned_data if form.is_valid() else {}
    queryset, ordering = selectors.customer_queue(filters=filters, user=request.user)
    page = paginate_keyset(queryset, ordering=ordering, cursor=request.GET.get("cursor"), size=PAGE_SIZE)
    now = timezone.now()
    # Per-row values computed here, not with template tags: the queue must stay fast (docs/benchmarks.md).
    for customer in page.items:
        customer.clock = _row_clock(customer, now)
        customer.age = now - customer.status_since
    template = page_or_partial(request, "customers/list_customers.html")
    counts = selectors.status_counts()
    context = {
        # The first poll brings the counts up to date: the page itself reads the cached ones.
        "live_url": live_url(request, reverse("customers-list-counts-live"), ""),
        "form": form,
        "page": page,
        "counts": counts,
        "status_counts": [(value, label, counts.counts.get(value, 0)) for value, label in CustomerStatus.choices],
        "statuses": CustomerStatus.choices,
        "types": CustomerType.choices,
        "issue_codes": [(code, choices.issue_label(code)) for code in sorted(choices.ISSUE_EXPLANATIONS)],
        "filter_query": request.GET.urlencode(),
        "search_limit": f"{selectors.SEARCH_CANDIDATES:,}",
        "selected": {name: request.GET.getlist(name) for name in ("status", "view", "type", "assignee", "sort", "sla")},
    }
    return render(request, template, context)


@role_required("change_customers")
@require_POST
def claim_next_case(request):
    form = QueueFilterForm(request.POST)
    filters = form.cleaned_data if form.is_valid() else {}
    customer = services.customer_claim_next(actor=request.user, filters=filters)
    if customer is None:
        messages.info(request, "No unclaimed case matches this filter.")
        query = request.POST.get("return_query", "")
        return redirect(reverse("customers-list-customers") + (f"?{query}" if query else ""))
    messages.success(request, f"You claimed {customer.name or customer.customer_id}, the oldest unclaimed case.")
    return redirect("customers-view-customer", customer_id=customer.customer_id)


@role_required("view_customers")
@require_GET
def view_customer(request, customer_id):
    version = selectors.customer_version(customer_id)  # before the reads: a change between is seen again
    customer = get_object_or_404(Customer.objects.select_related("assignee"), customer_id=customer_id)
    context = customer_page_context(request, customer)
    context["live_url"] = live_url(request, reverse("customers-view-customer-live", args=[customer_id]), version)
    return render(request, "customers/view_customer.html", context)


def customer_page_context(request, customer: Customer) -> dict:
    sections = page_sections.sections_for(customer)
    can_change = request.user.has_perm("core.change_customers")
    # Every short list of the page, the sections' and the assignee choices too, in one query
    # (core.together): the page costs 6 queries whatever the customer holds.
    changes, issues, events, decisions, notes, handouts, *staff = page_sections.read_lists(
        sections,
        customer.status_changes.order_by("-changed_at", "-id")[:200],
        customer.issues.order_by("timestamp", "id"),
        selectors.customer_events(customer),
        selectors.customer_decisions(customer),
        customer.notes.order_by("-created_at", "-id")[:50],
        customer.link_handouts.order_by("-created_at", "-id")[:20],
        *([colleagues()] if can_change else []),
    )
    return {
        "customer": customer,
        "issues": [{"issue": issue, "explanation": choices.ISSUE_EXPLANATIONS.get(issue.code)} for issue in issues],
        "timeline": selectors.customer_timeline(customer, changes, events, decisions),
        "clock": selectors.case_clock(customer, changes),
        "notes": notes,
        "handouts": handouts,
        "sections": sections,
        "can_change": can_change,
        "assign_form": (
            AssignForm(initial={"assignee": customer.assignee_id}, colleagues_read=staff[0]) if can_change else None
        ),
        "note_form": NoteForm() if can_change else None,
        "decision_form": DecisionForm() if can_change else None,
        "decisions": decisions[:50],
        "is_individual": customer.customer_type == CustomerType.INDIVIDUAL,
        "can_refill": customer.status == CustomerStatus.NEEDS_ADDITIONAL_INFORMATION,
    }


@role_required("change_customers")
@require_POST
def refresh_customer(request, customer_id):
    customer = _customer(customer_id)
    if customer.synced_at and timezone.now() - customer.synced_at < REFRESH_MIN_INTERVAL:
        messages.info(request, "This customer was read from the API a moment ago; the page shows that copy.")
        return redirect("customers-view-customer", customer_id=customer_id)
    try:
        customer = services.customer_refresh(actor=request.user, customer=customer)
    except PaymentsApiError as exc:
        messages.error(request, api_error_message(exc, write=False))
    else:
        messages.success(request, f"Refreshed from the API: {customer.get_status_display()}.")
    return redirect("customers-view-customer", customer_id=customer_id)


@role_required("change_customers")
@require_POST
def assign_customer(request, customer_id):
    customer = _customer(customer_id)
    if request.POST.get("claim"):
        assignee = request.user
    else:
        form = AssignForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Choose a colleague who works on customers.")
            return redirect("customers-view-customer", customer_id=customer_id)
        assignee = form.cleaned_data["assignee"]
    services.customer_assign(actor=request.user, customer=customer, assignee=assignee)
    who = "you" if assignee == request.user else (assignee.get_username() if assignee else "nobody")
    messages.success(request, f"The case is now assigned to {who}.")
    return redirect("customers-view-customer", customer_id=customer_id)


@role_required("change_customers")
@require_POST
def add_note(request, customer_id):
    customer = _customer(customer_id)
    form = NoteForm(request.POST)
    if form.is_valid():
        services.customer_note_add(actor=request.user, customer=customer, body=form.cleaned_data["body"])
        messages.success(request, "Note added.")
    else:
        messages.error(request, "The note is empty or longer than 5000 characters.")
    return redirect(reverse("customers-view-customer", args=[customer_id]) + "#notes")


@role_required("change_customers")
@require_POST
def record_handout(request, customer_id):
    """Open (or refill) the hosted form in a new tab, or note that the link was copied."""
    customer = _customer(customer_id)
    if not customer.verification_link:
        raise Http404("No hosted form to hand out")
    form = HandoutForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest("Unknown hand-out: open, refill or copied.", content_type="text/plain")
    kind = form.cleaned_data["kind"]
    if kind == HostedLinkHandout.Kind.REFILL and customer.status != CustomerStatus.NEEDS_ADDITIONAL_INFORMATION:
        messages.error(request, "A refill is possible only in Needs additional information.")
        return redirect("customers-view-customer", customer_id=customer_id)
    services.customer_link_handout(actor=request.user, customer=customer, kind=kind)
    if kind == HostedLinkHandout.Kind.COPIED:
        if request.htmx:
            handouts = customer.link_handouts.order_by("-created_at")[:20]
            return render(request, "customers/view_customer.html#handouts", {"handouts": handouts})
        return redirect(reverse("customers-view-customer", args=[customer_id]) + "#handouts")
    return redirect(customer.verification_link)


@role_required("change_customers")
@require_http_methods(["GET", "POST"])
def create_customer(request):
    """Create a customer, with its KYC or KYB data in the same request when filled in."""
    if data := _with_one_more_row(request):
        return render(request, "customers/create_customer.html", {"create": CustomerCreate(data, request.FILES)})
    create = CustomerCreate(*_bound(request))
    if request.method == "POST" and create.is_valid():
        kwargs = create.service_kwargs()
        try:
            customer = services.customer_create(actor=request.user, **kwargs)
        except ValidationFailed as exc:
            create.add_api_errors(exc.field_errors)
            if not create.top_errors:
                create.top_errors.append("The Payments API refused some fields; see the messages below.")
        except PaymentsApiError as exc:
            create.top_errors.append(api_error_message(exc, write=True))
            create.maybe_done = outcome_unknown(exc)  # the heading must not say "nothing was created"
        else:
            sent = f" with {', '.join(sorted(kwargs['sections'])).replace('_', ' ')}" if kwargs["sections"] else ""
            messages.success(request, f"Customer {customer.name} created{sent}: {customer.get_status_display()}.")
            if create.form.cleaned_data["add_data"]:
                name = (
                    "customers-edit-kyc" if customer.customer_type == CustomerType.INDIVIDUAL else "customers-edit-kyb"
                )
                return redirect(name, customer_id=customer.customer_id)
            return redirect("customers-view-customer", customer_id=customer.customer_id)
    return render(request, "customers/create_customer.html", {"create": create})


def _bound(request) -> tuple:
    """A form's data: bound on POST even when empty (an empty POST says "nothing to send")."""
    return (request.POST, request.FILES) if request.method == "POST" else (None, None)


def _with_one_more_row(request):
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
    send: Callable[..., Customer]  # (actor, customer, data, sections) -> the updated customer


KYC_EDIT = ProfileEdit(
    kind="KYC",
    customer_type=CustomerType.INDIVIDUAL,
    edit_class=KycEdit,
    template="customers/edit_kyc.html",
    other_url="customers-edit-kyb",
    send=lambda *, actor, customer, data, sections: services.customer_update_kyc(
        actor=actor, customer=customer, kyc_data=data, sections=sections
    ),
)
KYB_EDIT = ProfileEdit(
    kind="KYB",
    customer_type=CustomerType.BUSINESS,
    edit_class=KybEdit,
    template="customers/edit_kyb.html",
    other_url="customers-edit-kyc",
    send=lambda *, actor, customer, data, sections: services.customer_update_kyb(
        actor=actor, customer=customer, kyb_data=data, sections=sections
    ),
)


def _edit_profile(request, customer_id, profile: ProfileEdit):
    """The KYC (individuals) or KYB (businesses) form: one flow, two kinds of data."""
    template = profile.template
    customer = _customer(customer_id)
    if customer.customer_type != profile.customer_type:
        return redirect(profile.other_url, customer_id=customer_id)
    if data := _with_one_more_row(request):
        edit = profile.edit_class(data, request.FILES)
        if profile is KYB_EDIT:
            edit.is_valid()
        return render(request, template, {"customer": customer, "edit": edit, "form": edit.form, "quiet": True})
    edit = profile.edit_class(*_bound(request))
    if request.method == "POST" and edit.is_valid():
        api_data, sections = edit.api_data()
        if not api_data:
            edit.top_errors.append("Nothing to send: fill in at least one field.")
        else:
            try:
                customer = profile.send(actor=request.user, customer=customer, data=api_data, sections=sections)
            except ValidationFailed as exc:
                edit.add_api_errors(exc.field_errors)
                if not edit.top_errors:
                    edit.top_errors.append("The Payments API refused some fields; see the messages below.")
            except PaymentsApiError as exc:
                edit.top_errors.append(api_error_message(exc, write=True))
                edit.maybe_done = outcome_unknown(exc)
            else:
                return _updated(request, customer, profile.kind, sections)
    context = {"customer": customer, "edit": edit, "form": edit.form, "notice": _status_notice(customer)}
    return render(request, template, context)


def _updated(request, customer: Customer, what: str, sections: set[str]):
    names = ", ".join(sorted(sections)).replace("_", " ")
    messages.success(request, f"{what} update sent ({names}). The customer is now {customer.get_status_display()}.")
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
