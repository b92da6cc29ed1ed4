"""The audit log names a staff member by username, linking to their page."""

from django.contrib.auth import get_user_model
from django.urls import reverse

from audit.targets import Target, int_ids


def name_members(ids: set[str]) -> dict[str, Target]:
    members = get_user_model().objects.filter(pk__in=int_ids(ids)).values_list("pk", "username")
    names = {str(pk): Target(username, reverse("staff-view-staff", args=[pk])) for pk, username in members}
    # Never "User 8": a member since removed from the database is said to be so, the id on hover.
    return {i: names.get(i, Target("a removed staff member", "")) for i in ids}
