"""What the top bar's menus need to know beyond the member's permissions: which group holds the
current page, and whether there is a monitoring app to give a group of its own."""

from django.apps import apps
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.urls import get_resolver

# The group of each page, by the start of its URL name (the first that fits).
GROUPS = (
    ("customers-", "customers"),
    ("payments-", "payments"),
    ("core-list-audit-events", "admin"),
    ("mirror-list-inbox-events", "admin"),
    ("core-set-time-zone", ""),
    ("core-", "admin"),  # the staff pages; the audit log above
    ("search", ""),
    ("home", ""),
)
# The list items of the Monitoring group, when the monitoring app brings them.
MONITORING_NAV = "monitoring/_nav.html"


def current_group(match) -> str:
    if match is None:
        return ""
    if "monitoring" in (match.namespaces or []):
        return "monitoring"
    name = match.url_name or ""
    return next((group for start, group in GROUPS if name.startswith(start)), "")


def monitoring() -> dict:
    """{"shown": bool, "template": the app's own nav items or "", "url": the root of the URL
    namespace `monitoring` or "" (a single link, for those who read the audit log, while
    the app brings no nav items of its own)."""
    template = ""
    if apps.is_installed("monitoring"):
        try:
            get_template(MONITORING_NAV)
            template = MONITORING_NAV
        except TemplateDoesNotExist:
            template = ""
    namespace = get_resolver().namespace_dict.get("monitoring")
    url = "/" + str(namespace[0]).lstrip("^/") if namespace else ""
    return {"shown": bool(template or url), "template": template, "url": url}


def navigation(request) -> dict:
    if not getattr(request, "user", None) or not request.user.is_authenticated:
        return {}
    return {"nav_current": current_group(getattr(request, "resolver_match", None)), "nav_monitoring": monitoring()}
