"""No interleaving of role changes and deactivations leaves the team without an active admin.

Admins send their requests at the same moment to the live server (tests/race.py): each
demotes or deactivates the other, or double-clicks. Every change of roles or activation takes
one lock (staff.services._staff_lock) and reads the admins again under it, so exactly one
request has an effect, with one audit event; the others are refused with a message (409), or
find their own change already made (a second click: the member's page, no second event), or,
when their sender was deactivated meanwhile, find their session ended (the login page).
On PostgreSQL the requests overlap in the database; on SQLite writers queue, which checks the
same rules one request after another.
"""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from audit.models import AuditEvent
from core.access import Role
from staff.services import LastAdmin, NoLongerAllowed
from tests.race import at_once

pytestmark = pytest.mark.django_db(transaction=True)

REMOVALS = ("staff.change_roles", "staff.deactivate")
REFUSALS = (LastAdmin.message, NoLongerAllowed.message)


def _demote(sender, target):
    return lambda: sender.post(reverse("staff-change-staff-roles", args=[target.pk]), {"roles": ["auditor"]})


def _deactivate(sender, target):
    return lambda: sender.post(reverse("staff-deactivate-staff", args=[target.pk]))


def _active_admins() -> list[str]:
    admins = get_user_model().objects.filter(is_active=True, groups__name=Role.ADMIN.value)
    return sorted(admins.values_list("username", flat=True))


def _outcome(answer, target) -> str:
    """'done' (the member's page), 'refused' (409 or 403, and a message) or 'signed out': the sender's
    session ended before their request reached the view (the login page) or while it ran (a
    page that says so)."""
    if answer.status_code == 302 and answer.headers["location"] == reverse("staff-view-staff", args=[target.pk]):
        return "done"
    if answer.status_code == 409:
        assert any(message in answer.text for message in REFUSALS), answer.text[:2000]
        return "refused"
    if answer.status_code == 403:  # demoted before the request's role check
        assert "This page needs the role" in answer.text, answer.text[:2000]
        return "refused"
    if answer.status_code == 400:
        assert "You were signed out while this request was on its way" in answer.text, answer.text[:2000]
        return "signed out"
    assert answer.status_code == 302, (answer.status_code, answer.text[:2000])
    assert answer.headers["location"].startswith(reverse("account_login")), answer.headers["location"]
    return "signed out"


def _one_admin_and_one_effect() -> AuditEvent:
    assert len(_active_admins()) == 1, _active_admins()
    effects = AuditEvent.objects.filter(action__in=REMOVALS, outcome=AuditEvent.Outcome.SUCCESS)
    assert effects.count() == 1, list(effects.values_list("action", "actor_username"))
    return effects.get()


@pytest.mark.parametrize("round_", range(5))
def test_two_admins_demoting_each_other_at_once_leave_one_admin(racing, make_staff, round_):
    ada, bea = make_staff("admin", "ada"), make_staff("admin", "bea")
    by_ada, by_bea = racing.member(ada), racing.member(bea)

    answers = at_once(_demote(by_ada, bea), _demote(by_bea, ada))

    outcomes = sorted([_outcome(answers[0], bea), _outcome(answers[1], ada)])
    assert outcomes == ["done", "refused"]
    effect = _one_admin_and_one_effect()
    # The winner is the one still an admin, and the event names them.
    assert _active_admins() == [effect.actor_username]


@pytest.mark.parametrize("round_", range(5))
def test_a_demotion_against_a_deactivation_leaves_one_admin(racing, make_staff, round_):
    ada, bea = make_staff("admin", "ada"), make_staff("admin", "bea")
    by_ada, by_bea = racing.member(ada), racing.member(bea)

    demoted, deactivated = at_once(_demote(by_ada, bea), _deactivate(by_bea, ada))

    outcomes = sorted([_outcome(demoted, bea), _outcome(deactivated, ada)])
    assert outcomes in (["done", "refused"], ["done", "signed out"])
    effect = _one_admin_and_one_effect()
    assert _active_admins() == [effect.actor_username]


@pytest.mark.parametrize("requests", range(2, 9))
def test_many_requests_at_once_make_one_change(racing, make_staff, requests):
    """Two admins, `requests` requests at once: Ada demotes Bea, Bea deactivates Ada, each
    clicking several times. One request wins; the winner's other clicks find it done."""
    ada, bea = make_staff("admin", "ada"), make_staff("admin", "bea")
    by_ada, by_bea = racing.member(ada), racing.member(bea)
    sends = [_demote(by_ada, bea) if i % 2 == 0 else _deactivate(by_bea, ada) for i in range(requests)]

    answers = at_once(*sends)

    effect = _one_admin_and_one_effect()
    winner_sends = [i for i in range(requests) if (i % 2 == 0) == (effect.actor_username == "ada")]
    for i, answer in enumerate(answers):
        outcome = _outcome(answer, bea if i % 2 == 0 else ada)
        assert outcome == "done" if i in winner_sends else outcome in ("refused", "signed out"), (i, outcome)


@pytest.mark.parametrize("names", [("ops-l", "ops-1"), ("new-ops", "New-Ops")])
def test_two_admins_adding_look_alikes_at_once_make_one_member(racing, make_staff, names):
    ada, bea = make_staff("admin", "ada"), make_staff("admin", "bea")
    by_ada, by_bea = racing.member(ada), racing.member(bea)
    url = reverse("staff-create-staff")

    first, second = names
    answers = at_once(lambda: by_ada.post(url, {"username": first}), lambda: by_bea.post(url, {"username": second}))

    added = [a for a in answers if "/accounts/password/reset/key/" in a.text]
    refused = [a for a in answers if "looks like" in a.text or "has this username already" in a.text]
    assert (len(added), len(refused)) == (1, 1), [a.text[:300] for a in answers]
    assert get_user_model().objects.exclude(username__in=["ada", "bea"]).count() == 1
    assert AuditEvent.objects.filter(action="staff.add").count() == 1
