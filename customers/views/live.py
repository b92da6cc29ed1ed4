"""The parts of the compliance pages that follow the mirror while they are open (core/live.py):
the customer page and the queue's counts."""

from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from core.live import live_response, live_url, live_view, render_parts

from .. import selectors
from ..models import Customer, CustomerStatus
from .customers import customer_page_context

# The customer page's parts that hold nothing typed: what the user types is never replaced.
# The header's actions are buttons (what a status allows: refill the hosted form); the other
# apps' sections (their template tags: alerts, then payments) are parts; they hold links, not forms.
CUSTOMER_PARTS = (
    "status",
    "actions",
    "notice",
    "profile",
    "case",
    "issues",
    "alerts",
    "notes",
    "handouts",
    "timeline",
    "sections",
)


@live_view("view_customers", lambda request, customer_id: selectors.customer_version(customer_id))
@require_GET
def view_customer_live(request, customer_id):
    version = selectors.customer_version(customer_id)

    def render():
        customer = get_object_or_404(Customer.objects.select_related("assignee"), customer_id=customer_id)
        context = customer_page_context(request, customer)
        context["live_url"] = live_url(request, request.path, version)
        return render_parts(request, "customers/view_customer.html", CUSTOMER_PARTS, context)

    return live_response(request, version, render)


@live_view("view_customers", lambda request: selectors.counts_version())
@require_GET
def list_counts_live(request):
    version = selectors.counts_version()

    def render():
        counts = selectors.status_counts(version)
        context = {
            "live_url": live_url(request, request.path, version),
            "counts": counts,
            "status_counts": [(value, label, counts.counts.get(value, 0)) for value, label in CustomerStatus.choices],
        }
        return render_parts(request, "customers/list_customers.html", ["counts"], context)

    return live_response(request, version, render)
