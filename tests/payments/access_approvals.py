"""URLs of the four-eyes part in the role matrix (see tests/access.py).

Arranged so that an allowed role succeeds without reaching the API (the matrix runs with no
upstream): approving a request already rejected is refused with a message, rejecting a
pending one and withdrawing one's own need no call. Execute requests need move_money."""

from django.contrib.auth import get_user_model

from tests.access import READERS, Access
from tests.factories import ApprovalRequestFactory, StaffUserFactory

MOVERS = frozenset({"operations", "admin"})


def _pending():
    return {"pk": ApprovalRequestFactory().pk}


def _rejected():
    return {"pk": ApprovalRequestFactory(status="rejected").pk}


def _own():
    """A request made by the signed-in user: the matrix's user is the latest one created."""
    maker = get_user_model().objects.order_by("-pk").first() or StaffUserFactory()
    return {"pk": ApprovalRequestFactory(maker=maker).pk}


ACCESS = {
    "payments-list-approval-requests": Access(READERS),
    "payments-view-approval-request": Access(READERS, kwargs=_pending),
    "payments-approve-approval-request": Access(MOVERS, method="post", kwargs=_rejected),
    "payments-reject-approval-request": Access(
        MOVERS, method="post", kwargs=_pending, data=lambda: {"reason": "wrong account"}, form=True
    ),
    "payments-withdraw-approval-request": Access(MOVERS, method="post", kwargs=_own),
}
