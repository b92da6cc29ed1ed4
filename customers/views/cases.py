"""Case work to the end: a reviewer's decision with its reason, the escalations view, and
bulk assignment from the queue. Reads need view_customers, writes change_customers; an
escalated case is decided, returned or escalated further by a compliance lead only
(work_escalations)."""

from urllib.parse import parse_qsl, urlencode

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from audit.models import AuditEvent
from audit.records import audit_record
from core.access import RoleRequired, role_required
from core.views import paginate_keyset

from .. import selectors, services_cases
from ..forms.casework import BulkAssignForm, DecisionForm
from ..models import CaseDecision, Customer
from .customers import customer_page_context

PAGE_SIZE = 50
MAX_BACK = 2000


@role_required("change_customers")
@require_POST
def decide_customer(request, customer_id):
    customer = get_object_or_404(Customer, customer_id=customer_id)
    form = DecisionForm(request.POST)
    if form.is_valid():
        try:
            decision = services_cases.customer_decide(actor=request.user, customer=customer, **form.cleaned_data)
        except services_cases.NeedsLead:
            _audit_refused(request, customer, form.cleaned_data["kind"])
            raise RoleRequired("work_escalations") from None
        except services_cases.CaseChanged as exc:
            form.add_error(None, str(exc))
        except services_cases.DecisionRefused as exc:
            form.add_error("kind", str(exc))
        else:
            messages.success(request, _decided_message(decision))
            return redirect("customers-view-customer", customer_id=customer_id)
    # Shown again on the customer page with what was typed, naming the case as it is now (a
    # second send then decides on what the page shows).
    context = customer_page_context(request, customer)
    form.data = form.data.copy()
    form.data["seen"] = str(services_cases.latest_decision_id(customer))
    context["decision_form"] = form
    return render(request, "customers/view_customer.html", context, status=400)


def _audit_refused(request, customer: Customer, kind: str) -> None:
    """A decision on an escalated case by someone who is not a compliance lead: refused, and kept."""
    audit_record(
        actor=request.user,
        action="customer.decide",
        target_kind="customer",
        target_id=customer.customer_id,
        outcome=AuditEvent.Outcome.DENIED,
        details={"decision": kind, "escalation_level": customer.escalation_level},
    )


def _decided_message(decision: CaseDecision) -> str:
    if decision.kind == CaseDecision.Kind.RETURNED:
        return "The case is back in “Needs a person”."
    if decision.kind == CaseDecision.Kind.ESCALATED:
        return f"Escalated (level {decision.escalation_level}): the case is in the escalations view."
    return f"Decision recorded: {decision.get_kind_display()}. The case leaves “Needs a person” until the customer changes."


@role_required("view_customers")
@require_GET
def list_escalations(request):
    """Escalated cases, highest level first, then the longest escalated."""
    qs = Customer.objects.filter(selectors.escalated_q()).select_related("assignee")
    page = paginate_keyset(
        qs, ordering=("-escalation_level", "case_decided_at", "id"), cursor=request.GET.get("cursor"), size=PAGE_SIZE
    )
    return render(request, "customers/list_escalations.html", {"page": page})


@role_required("change_customers")
@require_POST
def bulk_assign(request):
    form = BulkAssignForm(request.POST)
    # Back to the queue as it was filtered: rebuilt as a query string of this page, never another site.
    query = urlencode(parse_qsl(request.POST.get("back", "")[:MAX_BACK]))
    back = reverse("customers-list-customers") + (f"?{query}" if query else "")
    if not form.is_valid():
        messages.error(request, " ".join(form.non_field_errors()) or "Choose a colleague who works on customers.")
        return redirect(back)
    assignee = request.user if form.cleaned_data["claim"] else form.cleaned_data["assignee"]
    count = services_cases.customers_bulk_assign(actor=request.user, customer_ids=form.customer_ids, assignee=assignee)
    who = "you" if assignee == request.user else assignee.get_username()
    if count:
        messages.success(request, f"{count} case{'s' if count != 1 else ''} now assigned to {who}.")
    else:
        messages.info(request, f"Those cases were assigned to {who} already.")
    return redirect(back)
