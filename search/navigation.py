"""What the top bar's menus need to know beyond the member's permissions: which group holds the
current page."""

# The group of each page, by the start of its URL name (the first that fits).
GROUPS = (
    ("customers-", "customers"),
    ("payments-", "payments"),
    ("monitoring-", "monitoring"),
    ("audit-", "admin"),
    ("mirror-list-inbox-events", "admin"),
    ("staff-set-time-zone", ""),
    ("staff-", "admin"),
    ("search", ""),
    ("home", ""),
)


def current_group(match) -> str:
    if match is None:
        return ""
    name = match.url_name or ""
    return next((group for start, group in GROUPS if name.startswith(start)), "")


def navigation(request) -> dict:
    if not getattr(request, "user", None) or not request.user.is_authenticated:
        return {}
    return {"nav_current": current_group(getattr(request, "resolver_match", None))}
