"""The compliance workspace: the review queue, the customer page, case work, the create page
(the KYC/KYB editors are in profile.py, case decisions in cases.py).

Reads need view_customers, writes change_customers; every write calls one service, which
talks to the API first and leaves an audit event.
"""

import datetime as dt
import functools
from urllib.parse import quote

from django.contrib import messages
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import title
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core import labels
from core.access import role_required
from core.forms import SUBMISSION_LOST, posted_submission
from core.live import live_url
from core.templatetags.rows import truncatechars
from core.together import CompiledTogether, section_querysets, section_rows, sections_in
from core.views import escaped, escaped_word, page_or_partial, paginate_keyset
from paymentsapi import PaymentsApiError
from upstream.api_errors import InFlight, api_error_message

from .. import choices, selectors, services, services_cases, timeline
from ..filters import QueueFilter
from ..forms.casework import AssignForm, DecisionForm, HandoutForm, NoteForm, colleagues
from ..forms.create import CustomerCreate
from ..models import CaseDecision, Customer, CustomerStatus, CustomerType, HostedLinkHandout
from ..templatetags.customers_extras import duration
from .profile import bound, send_or_explain, with_one_more_row

PAGE_SIZE = 50
# A second Refresh within this many seconds is not sent again (double clicks, impatient reloads).
REFRESH_MIN_INTERVAL = dt.timedelta(seconds=5)


def _customer(customer_id: str) -> Customer:
    return get_object_or_404(Customer, customer_id=customer_id)


def _row_clock(customer: Customer, now) -> dict:
    """SLA state of a queue row: the same "waiting on us" clock as the customer page, from the
    clock kept on the row (no extra query)."""
    clock = timeline.row_clock(customer, now)
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


# What the queue's rows read of a customer and its assignee (and the keyset's columns): the
# other columns, the payment methods' JSON among them, are not fetched for a page of 50.
ROW_FIELDS = (
    "customer_id",
    "organization_id",
    "customer_type",
    "status",
    "name",
    "email",
    "status_since",
    "upstream_updated_at",
    "waiting_on_us_seconds",
    "waiting_on_us_since",
    "case_decision",
    "open_monitoring_alerts",
    "open_screening_alerts",
    "assignee__username",
)


@functools.lru_cache(maxsize=64)
def _type_word(customer_type: str) -> str:
    return escaped(title(customer_type))


def _queue_row(customer: Customer, list_url: str) -> dict:
    """What a row of the queue shows, ready for customers/_queue_rows.html: plain values in a
    dict (one lookup each, where a model's attribute costs the template an exception first),
    the filters' work done once here, and every text escaped here."""
    clock, e, w = customer.clock, escaped, escaped_word
    return {
        "customer_id": e(customer.customer_id),
        "href": e(f"{list_url}{quote(customer.customer_id, safe='')}/"),
        "shown": e(customer.name or customer.customer_id),
        "email": e(customer.email),
        "type": _type_word(customer.customer_type),
        "status": w(customer.status),
        "status_label": w(customer.get_status_display()),
        "issues": [(w(issue.code), w(labels.label(labels.ISSUE, issue.code))) for issue in customer.issue_list],
        "monitoring": customer.open_monitoring_alerts,
        "screening": customer.open_screening_alerts,
        "organization_id": w(customer.organization_id),
        "organization_short": w(truncatechars(customer.organization_id, 13)),
        "since": e(timezone.localtime(customer.status_since).isoformat()),
        "age": e(duration(customer.age)),
        "overdue": clock["overdue"],
        "sla_state": w(clock["state"]),
        "sla_label": w(clock["label"]),
        "on_us": e(duration(clock["on_us"])),
        "assignee": w(customer.assignee.get_username() if customer.assignee else "—"),
    }


@role_required("view_customers")
@require_GET
def list_customers(request):
    filterset = QueueFilter(request.GET, request=request)
    rows = filterset.qs.only(*ROW_FIELDS)
    page = paginate_keyset(rows, ordering=filterset.ordering, cursor=request.GET.get("cursor"), size=PAGE_SIZE)
    selectors.attach_issue_lists(page.items)
    now = timezone.now()
    list_url = reverse("customers-list-customers")
    # Per-row values computed here, not with template tags: the queue must stay fast (docs/benchmarks.md).
    for customer in page.items:
        customer.clock = _row_clock(customer, now)
        customer.age = now - customer.status_since
    template = page_or_partial(request, "customers/list_customers.html")
    counts = selectors.status_counts()
    context = {
        # The first poll brings the counts up to date: the page itself reads the cached ones.
        "live_url": live_url(request, reverse("customers-list-counts-live"), ""),
        "filter": filterset,
        "page": page,
        "queue_rows": [_queue_row(customer, list_url) for customer in page.items],
        "counts": counts,
        "status_counts": [(value, label, counts.counts.get(value, 0)) for value, label in CustomerStatus.choices],
        "filter_query": request.GET.urlencode(),
    }
    return render(request, template, context)


@role_required("change_customers")
@require_POST
def claim_next_case(request):
    # The page's filters but the assignee: the next case is an unclaimed one.
    data = request.POST.copy()
    data.pop("assignee", None)
    cases = QueueFilter(data, request=request).qs
    query = request.POST.get("return_query", "")
    back = reverse("customers-list-customers") + (f"?{query}" if query else "")
    submission = posted_submission(request)
    if submission is None:
        messages.error(request, SUBMISSION_LOST)
        return redirect(back)
    try:
        customer = services_cases.customer_claim_next(actor=request.user, cases=cases, submission=submission)
    except InFlight as exc:
        messages.info(request, api_error_message(exc, write=True))
        return redirect(back)
    if customer is None:
        messages.info(request, "No unclaimed case matches this filter.")
        return redirect(back)
    messages.success(request, f"You claimed {customer.name or customer.customer_id}, the oldest unclaimed case.")
    return redirect("customers-view-customer", customer_id=customer.customer_id)


@role_required("view_customers")
@require_GET
def view_customer(request, customer_id):
    version = selectors.customer_version(customer_id)  # before the reads: a change between is seen again
    customer = get_object_or_404(Customer.objects.select_related("assignee"), customer_id=customer_id)
    context = customer_page_context(request, customer)
    context["live_url"] = live_url(request, reverse("customers-view-customer-live", args=[customer_id]), version)
    return render(request, selectors.CUSTOMER_PAGE, context)


def _page_lists(pk: int, customer_id: str, *, can_change: bool) -> list:
    """Every short list of the customer page, the assignee choices, and the lists of the other
    apps' sections its template draws (core.together.page_section)."""
    customer = Customer(pk=pk, customer_id=customer_id)
    return [
        customer.status_changes.order_by("-changed_at", "-id")[:200],
        customer.issues.order_by("timestamp", "id"),
        timeline.customer_events(customer),
        timeline.customer_decisions(customer),
        customer.notes.order_by("-created_at", "-id")[:50],
        customer.link_handouts.order_by("-created_at", "-id")[:20],
        *([colleagues()] if can_change else []),
        *section_querysets(sections_in(selectors.CUSTOMER_PAGE), pk, customer_id),
    ]


# One query for all of them whatever the customer holds (core.together), compiled once.
_PAGE_LISTS = CompiledTogether(_page_lists)


def customer_page_context(request, customer: Customer) -> dict:
    can_change = request.user.has_perm("core.change_customers")
    rows = _PAGE_LISTS.fetch(customer.pk, customer.customer_id, can_change=can_change)
    changes, issues, events, decisions, notes, handouts, *rest = rows
    staff, sections = (rest[:1], rest[1:]) if can_change else ([], rest)
    return {
        "customer": customer,
        "issues": [{"issue": issue, "explanation": choices.ISSUE_EXPLANATIONS.get(issue.code)} for issue in issues],
        "timeline": timeline.customer_timeline(customer, changes, events, decisions),
        "clock": timeline.case_clock(customer, changes),
        "notes": notes,
        "handouts": handouts,
        "section_rows": section_rows(sections_in(selectors.CUSTOMER_PAGE), sections),
        "can_change": can_change,
        "assign_form": (
            AssignForm(initial={"assignee": customer.assignee_id}, colleagues_read=staff[0]) if can_change else None
        ),
        "note_form": NoteForm() if can_change else None,
        # A decision names the newest one the page shows (services_cases.customer_decide).
        "decision_form": DecisionForm(initial={"seen": max((d.pk for d in decisions), default=0)})
        if can_change
        else None,
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
    form = AssignForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a colleague who works on customers.")
        return redirect("customers-view-customer", customer_id=customer_id)
    assignee = request.user if request.POST.get("claim") else form.cleaned_data["assignee"]
    try:
        services_cases.customer_assign(
            actor=request.user, customer=customer, assignee=assignee, seen=form.seen_assignee()
        )
    except services_cases.AssignmentChanged as exc:
        messages.error(request, str(exc))
        return redirect("customers-view-customer", customer_id=customer_id)
    who = "you" if assignee == request.user else (assignee.get_username() if assignee else "nobody")
    messages.success(request, f"The case is now assigned to {who}.")
    return redirect("customers-view-customer", customer_id=customer_id)


@role_required("change_customers")
@require_POST
def add_note(request, customer_id):
    customer = _customer(customer_id)
    form = NoteForm(request.POST)
    if form.is_valid():
        services_cases.customer_note_add(actor=request.user, customer=customer, body=form.cleaned_data["body"])
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
    submission = posted_submission(request)
    if submission is None:
        messages.error(request, SUBMISSION_LOST)
        return redirect("customers-view-customer", customer_id=customer_id)
    # One record per press: a second click of the same button opens the form without a second.
    try:
        services_cases.customer_link_handout(actor=request.user, customer=customer, kind=kind, submission=submission)
    except InFlight as exc:
        messages.info(request, api_error_message(exc, write=True))
        return redirect("customers-view-customer", customer_id=customer_id)
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
    if data := with_one_more_row(request):
        return render(request, "customers/create_customer.html", {"create": CustomerCreate(data, request.FILES)})
    if request.method == "GET" or request.POST.get("choose_type"):
        # The page offers the chosen type's data part only (`?customer_type=`); the other comes
        # on demand: htmx asks for its slot when the type changes, and without script "Show its
        # fields" posts what was typed so far to come back with them (nothing is sent).
        source = request.GET if request.method == "GET" else request.POST
        chosen = source.get("customer_type")
        initial = {"customer_type": chosen} if chosen in CustomerType.values else {}
        if request.method == "POST":
            initial |= {name: request.POST.get(name, "") for name in CHOSEN_TYPE_KEEPS}
        create = CustomerCreate(initial=initial)
        template = "customers/create_customer.html"
        if request.htmx and request.htmx.target in ("kyc-slot", "kyb-slot"):
            template += f"#{request.htmx.target}"
        return render(request, template, {"create": create})
    create = CustomerCreate(*bound(request))
    if request.method == "POST" and create.is_valid():
        customer = _create(request, create)
        if customer is not None:
            kwargs = create.service_kwargs()
            sent = f" with {', '.join(sorted(kwargs['sections'])).replace('_', ' ')}" if kwargs["sections"] else ""
            messages.success(request, f"Customer {customer.name} created{sent}: {customer.get_status_display()}.")
            if create.form.cleaned_data["add_data"]:
                name = (
                    "customers-edit-kyc" if customer.customer_type == CustomerType.INDIVIDUAL else "customers-edit-kyb"
                )
                return redirect(name, customer_id=customer.customer_id)
            return redirect("customers-view-customer", customer_id=customer.customer_id)
    return render(request, "customers/create_customer.html", {"create": create})


# What "Show its fields" (without script) keeps of the form while the type is being chosen.
CHOSEN_TYPE_KEEPS = ("email", "first_name", "last_name", "business_name", "add_data")


def _create(request, create: CustomerCreate) -> Customer | None:
    """The customer one filled-in form makes (its one-time mark), or None with why on `create`:
    a refusal, or customers the mirror knows with this e-mail (shown, to confirm first)."""
    submission = posted_submission(request)
    if submission is None:
        create.top_errors.append(SUBMISSION_LOST)
        return None
    kwargs = create.service_kwargs()
    confirmed = create.form.cleaned_data["same_email"]
    try:
        return send_or_explain(
            create,
            lambda: services.customer_create(
                actor=request.user, submission=submission, same_email_confirmed=confirmed, **kwargs
            ),
        )
    except services.EmailKnown as known:
        create.same_email = known.customers
        return None
