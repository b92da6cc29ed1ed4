"""The review queue as CSV, with the filters on screen (core/exports.py)."""

from django.views.decorators.http import require_GET

from core.access import role_required
from core.exports import Column, csv_response

from . import selectors
from .forms.casework import QueueFilterForm
from .models import Customer

QUEUE_EXPORT_COLUMNS = [
    Column("customer_id", "customerId"),
    Column("name", "name"),
    Column("email", "email"),
    Column("customer_type", "type"),
    Column("status", "status"),
    Column("organization_id", "organizationId"),
    Column("status_since", "statusSince"),
    Column("assignee__username", "assignee"),
    Column("claimed_at", "claimedAt"),
    Column("upstream_updated_at", "updatedAt"),
    Column("synced_at", "syncedAt"),
    Column("case_decision", "caseDecision"),
    Column("case_decided_at", "caseDecidedAt"),
    Column("escalation_level", "escalationLevel"),
]


@role_required("view_customers")
@require_GET
def export_customers(request):
    """The queue's rows for its filters, in its order (the page's own selector)."""
    form = QueueFilterForm(request.GET)
    if form.is_valid():
        queryset, ordering = selectors.customer_queue(filters=form.cleaned_data, user=request.user)
    else:
        queryset, ordering = Customer.objects.none(), ("id",)
    queryset = queryset.prefetch_related(None).select_related(None).order_by(*ordering)
    return csv_response(queryset, QUEUE_EXPORT_COLUMNS, "review-queue")
