"""This app's URLs in the role matrix (see tests/access.py)."""

from tests.access import ANY_STAFF, Access

ADMINS = frozenset({"admin"})


def _member():
    from django.contrib.auth import get_user_model

    member, _ = get_user_model().objects.get_or_create(username="matrix-member")
    return {"pk": member.pk}


ACCESS = {
    "home": Access(ANY_STAFF),
    "audit-list-events": Access(frozenset({"admin", "auditor"})),
    "audit-export-events": Access(frozenset({"admin", "auditor"})),
    "staff-set-time-zone": Access(ANY_STAFF, method="post", data=lambda: {"time_zone": "Europe/Berlin"}, form=True),
    "staff-list-staff": Access(ADMINS),
    "staff-view-staff": Access(ADMINS, kwargs=_member),
    # The page of the new member's set-password link answers 200.
    "staff-create-staff": Access(
        ADMINS, method="post", data=lambda: {"username": "matrix-new", "roles": ["auditor"]}, allowed=200, form=True
    ),
    "staff-change-staff-roles": Access(
        ADMINS, method="post", kwargs=_member, data=lambda: {"roles": ["operations"]}, form=True
    ),
    "staff-deactivate-staff": Access(ADMINS, method="post", kwargs=_member, form=True),
    "staff-reactivate-staff": Access(ADMINS, method="post", kwargs=_member, form=True),
    "staff-reset-staff-mfa": Access(ADMINS, method="post", kwargs=_member, form=True),
    "staff-unlock-staff": Access(ADMINS, method="post", kwargs=_member, form=True),
    "staff-create-staff-password-link": Access(ADMINS, method="post", kwargs=_member, allowed=200, form=True),
}
