"""The audit log names a staff member by username, linking to their page."""

from django.contrib.auth import get_user_model
from django.urls import reverse

from audit.targets import Target, int_ids


def member_rows(ids: set[str]):
    return get_user_model().objects.filter(pk__in=int_ids(ids)).values("pk", "username")


def name_members(rows: list[dict], ids: set[str]) -> dict[str, Target]:
    names = {str(row["pk"]): Target(row["username"], reverse("staff-view-staff", args=[row["pk"]])) for row in rows}
    # Never "User 8": a member since removed from the database is said to be so, the id on hover.
    return {i: names.get(i, Target("a removed staff member", "")) for i in ids}
