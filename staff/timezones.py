"""Times in the staff member's own time zone.

The zone is kept per user (StaffPreference) and copied into the session at login, so that a
page costs no query for it: TimeZoneMiddleware activates the session's zone for the request.
The browser reports its zone once (static/js/app.js) while none is kept; the user may change
it on the time-zone page. Exports and the database stay in UTC.
"""

import functools
import zoneinfo

from django.utils import timezone

SESSION_KEY = "time_zone"


@functools.cache
def all_zones() -> tuple[str, ...]:
    return tuple(sorted(zoneinfo.available_timezones()))


def zone_or_none(name: str) -> zoneinfo.ZoneInfo | None:
    """The zone of an IANA name, or None for an empty or unknown one."""
    if not name or name not in all_zones():
        return None
    return zoneinfo.ZoneInfo(name)


def kept_zone_name(user) -> str:
    from .models import StaffPreference

    return StaffPreference.objects.filter(user=user).values_list("time_zone", flat=True).first() or ""


def remember(request, name: str) -> None:
    request.session[SESSION_KEY] = name


def session_zone_name(request) -> str:
    """The zone of this request's user: the session's copy, read from the database once."""
    session = getattr(request, "session", None)
    if session is None:
        return ""
    name = session.get(SESSION_KEY)
    if name is None:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return ""
        name = kept_zone_name(user)
        remember(request, name)
    return name


class TimeZoneMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        zone = zone_or_none(session_zone_name(request))
        if zone is None:
            timezone.deactivate()
        else:
            timezone.activate(zone)
        request.time_zone_name = zone.key if zone else ""
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
