"""Every page needs a login, and each role sees exactly the pages of its table."""

import uuid

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.converters import IntConverter, UUIDConverter

from tests.conftest import ROLES
from tests.matrix import MATRIX

# Pages anyone may reach: the login flow (allauth's pages under /accounts/, which check the
# person themselves: tests/core/test_mfa.py), the probes, metrics (their own token), and the
# mounted sandbox (which has its own API-key authentication).
PUBLIC_NAMES = {"healthz", "readyz", "metrics", "mirror-receive-webhook"}
PUBLIC_PREFIXES = ("/sandbox/", "/static/", "/accounts/")


def _sample(converter):
    if isinstance(converter, IntConverter):
        return 1
    if isinstance(converter, UUIDConverter):
        return uuid.uuid4()
    return "x"


def _walk(patterns, prefix=""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern) and entry.name:
            converters = getattr(entry.pattern, "converters", {})
            kwargs = {name: _sample(conv) for name, conv in converters.items()}
            public = prefix.startswith(("sandbox", "accounts"))
            yield entry.name, reverse(entry.name, kwargs=kwargs) if not public else None


def staff_urls():
    for name, url in _walk(get_resolver().url_patterns):
        if url is None or name in PUBLIC_NAMES or url.startswith(PUBLIC_PREFIXES):
            continue
        yield name, url


def test_every_staff_page_redirects_anonymous_users_to_login(client):
    urls = list(staff_urls())
    assert len(urls) >= len(MATRIX)
    for name, url in urls:
        for method in (client.get, client.post):
            response = method(url)
            assert response.status_code == 302, (name, url, response.status_code)
            assert response["Location"].startswith(reverse("account_login") + "?next="), (name, url)


def test_every_staff_page_is_in_the_role_matrix():
    assert {name for name, _ in staff_urls()} == set(MATRIX)


@pytest.mark.parametrize("role", [*ROLES, None])
@pytest.mark.parametrize("name", sorted(MATRIX))
def test_role_matrix(client_as, role, name):
    access = MATRIX[name]
    client = client_as(role)
    url = reverse(name, kwargs=access.kwargs() if access.kwargs else None)
    data = access.data() if access.data else {}
    response = getattr(client, access.method)(url, data, **access.headers)
    expected = access.expected_when_allowed if role in access.roles else 403
    assert response.status_code == expected, (name, role, response.status_code)
    if expected == 403:
        assert "needs the role" in response.content.decode()
    if access.form:
        page = client.get(url, **access.headers)
        assert page.status_code == (200 if role in access.roles else 403), (name, role, "GET", page.status_code)


def test_403_page_names_the_roles_that_may(client_as):
    response = client_as("compliance").get(reverse("audit-list-events"))
    assert response.status_code == 403
    assert (
        'needs the role <strong><span title="admin">Admin</span> or <span title="auditor">Auditor</span></strong>'
        in response.content.decode()
    )


@pytest.mark.parametrize(
    ("role", "visible", "hidden"),
    [
        ("compliance", [], ["Audit log"]),
        ("compliance_lead", [], ["Audit log"]),
        ("operations", [], ["Audit log"]),
        ("admin", ["Audit log"], []),
        ("auditor", ["Audit log"], []),
    ],
)
def test_navigation_shows_only_what_the_role_may_use(client_as, role, visible, hidden):
    html = client_as(role).get(reverse("home")).content.decode()
    nav = html.split('<nav aria-label="Main">')[1].split("</nav>")[0]
    for label in visible:
        assert label in nav
    for label in hidden:
        assert label not in nav


def test_unknown_url_is_the_404_page(client_as):
    response = client_as("operations").get("/no/such/page/")
    assert response.status_code == 404
    assert "There is no page at this address." in response.content.decode()


def test_groups_hold_the_permissions_of_the_table(db):
    from django.contrib.auth.models import Group

    from core.access import ROLE_PERMISSIONS

    for role, codenames in ROLE_PERMISSIONS.items():
        group = Group.objects.get(name=role.value)
        assert set(group.permissions.values_list("codename", flat=True)) == codenames


def test_role_backend_grants_what_django_model_backend_grants(make_staff, django_user_model):
    from django.contrib.auth.backends import ModelBackend
    from django.contrib.auth.models import Group

    from staff.auth import RoleBackend

    def fresh(user):
        return django_user_model.objects.get(pk=user.pk)  # no permission cache carried over

    two_roles = make_staff("compliance", username="two-roles")
    two_roles.groups.add(Group.objects.get(name="auditor"))
    inactive = make_staff("admin", username="inactive")
    inactive.is_active = False
    inactive.save()
    superuser = make_staff(None, username="root")
    superuser.is_superuser = True
    superuser.save()
    users = [make_staff(role) for role in ("compliance", "operations", "admin", "auditor", "compliance_lead", None)]
    for user in [*users, two_roles, inactive, superuser]:
        expected = ModelBackend().get_all_permissions(fresh(user))
        assert RoleBackend().get_all_permissions(fresh(user)) == expected, user.username
    assert RoleBackend().get_all_permissions(fresh(users[0])) == {
        "core.view_customers",
        "core.change_customers",
        "core.view_payments",
        "core.view_monitoring",
        "core.decide_alerts",
    }


def test_a_permission_check_costs_one_query_per_request(make_staff, django_user_model, django_assert_num_queries):
    user = django_user_model.objects.get(pk=make_staff("operations").pk)
    with django_assert_num_queries(1):
        assert user.has_perm("core.move_money")
        assert not user.has_perm("core.manage_staff")
        assert user.has_perm("core.view_customers")
