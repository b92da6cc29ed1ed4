"""What the notifications' tests share: telling members something, and a member signed in."""

import pytest
from django.contrib.auth import get_user_model

from notifications.kinds import CASE_ASSIGNED, Raised
from notifications.services import raise_notification


def tell(
    users,
    *,
    kind=CASE_ASSIGNED,
    key="k1",
    sentence="lena assigned you the case of Grace Hopper",
    link="/customers/abc/",
):
    """Raise one occurrence of `kind` for `users` (a list of members), as a source would."""
    members = get_user_model().objects.filter(pk__in=[u.pk for u in users])
    return raise_notification(Raised(kind, sentence, link, members), key=key)


@pytest.fixture
def signed_in_as(client, make_staff):
    """signed_in_as("admin", "ada-admin") -> (the test client logged in as a new member, the member)."""

    def sign_in(role, username):
        member = make_staff(role, username)
        client.force_login(member)
        return client, member

    return sign_in
