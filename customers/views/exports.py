"""The review queue as CSV, with the filters on screen (core/exports.py)."""

from django.db.models import OuterRef
from django.views.decorators.http import require_GET

from core import labels
from core.access import role_required
from core.exports import Column, csv_response, joined, refused_filters, with_words

from .. import selectors
from ..filters import QueueFilter
from ..models import VerificationIssue

QUEUE_EXPORT_COLUMNS = [
    Column("customer_id", "customerId"),
    Column("name", "name"),
    Column("email", "email"),
    *with_words("customer_type", "type", labels.CUSTOMER_TYPE),
    *with_words("status", "status", labels.STATUS),
    # The open issues: their codes, and their staff words (joined by "; "), each code once.
    Column("issue_codes", "issues"),
    Column("issue_words", "issuesLabel"),
    Column("organization_id", "organizationId"),
    Column("status_since", "statusSince"),
    Column("assignee__username", "assignee"),
    Column("claimed_at", "claimedAt"),
    Column("upstream_updated_at", "updatedAt"),
    Column("synced_at", "syncedAt"),
    *with_words("case_decision", "caseDecision", labels.DECISION),
    Column("case_decided_at", "caseDecidedAt"),
    Column("escalation_level", "escalationLevel"),
    Column("open_monitoring_alerts", "openMonitoringAlerts"),
    Column("open_screening_alerts", "openScreeningAlerts"),
]


@role_required("view_customers")
@require_GET
def export_customers(request):
    """The queue's rows for its filters, in its order (the page's own selector)."""
    filterset = QueueFilter(request.GET, request=request)
    if not filterset.is_valid():
        return refused_filters(request, filterset.errors)
    queryset, ordering = filterset.qs, filterset.ordering
    issues = selectors.one_issue_per_code(VerificationIssue.objects.filter(customer=OuterRef("pk")))
    queryset = (
        queryset.prefetch_related(None)
        .select_related(None)
        .annotate(
            issue_codes=joined(issues, "code", by="customer"),
            issue_words=joined(issues, "code", by="customer", words=labels.ISSUE),
        )
        .order_by(*ordering)
    )
    return csv_response(queryset, QUEUE_EXPORT_COLUMNS, "review-queue")
