from django.shortcuts import render
from django.views.decorators.http import require_GET

from .access import role_required
from .filters import AuditEventFilter
from .htmx import page_or_partial
from .models import AuditEvent
from .pagination import paginate_keyset

AUDIT_PAGE_SIZE = 50


@role_required("view_audit")
@require_GET
def list_audit_events(request):
    filterset = AuditEventFilter(request.GET, queryset=AuditEvent.objects.select_related("actor"))
    queryset = filterset.qs if filterset.is_valid() else AuditEvent.objects.none()
    page = paginate_keyset(
        queryset, ordering=("-created_at", "-id"), cursor=request.GET.get("cursor"), size=AUDIT_PAGE_SIZE
    )
    template = page_or_partial(request, "core/audit_events.html")
    return render(request, template, {"filter": filterset, "page": page})


def permission_denied(request, exception=None):
    roles = getattr(exception, "roles", None)
    return render(request, "403.html", {"roles": roles}, status=403)


def csrf_failure(request, reason=""):
    return render(request, "403.html", {"csrf": True}, status=403)


def page_not_found(request, exception=None):
    return render(request, "404.html", status=404)


def server_error(request):
    return render(request, "500.html", status=500)
