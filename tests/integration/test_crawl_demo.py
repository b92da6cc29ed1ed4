"""Every staff page of the seeded demo, crawled as each role: every internal link a role is
shown answers 200 (or a redirect to a 200) for that role. No 404, no 500, no 403 behind a
link the role was given."""

import re
from collections import Counter, deque
from html import unescape
from urllib.parse import parse_qsl, urldefrag, urljoin, urlsplit

import pytest

from tests.conftest import ROLES
from tests.demo import seeded_demo  # noqa: F401  (the fixture)

LINK = re.compile(r"""<a\s[^>]*?href="([^"]+)"|hx-get="([^"]+)\"""")
# Not staff pages: the upstream API and its hosted forms, the webhook receiver, Django's admin,
# static files; and the logout link, which would end the crawl.
OUTSIDE = ("/sandbox/", "/webhooks/", "/admin/", "/static/", "/logout/", "/login/")


def internal_links(page: str, base: str) -> set[str]:
    found = set()
    for href, hx in LINK.findall(page):
        url, _ = urldefrag(urljoin(base, unescape(href or hx)))
        parts = urlsplit(url)
        if parts.scheme not in ("", "http") or parts.netloc not in ("", "testserver"):
            continue
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        if path.startswith("/") and not path.startswith(OUTSIDE):
            found.add(path)
    return found


# Links that differ only in the values of their query (the same list filtered by another
# customer or account, a form prefilled for another record) run the same code: past this many
# of one kind the crawl takes no more.
VARIANTS = 3
# The admin holds every permission, so sees every link any role sees: the admin's crawl visits
# every record's pages; the other roles' visit this many records of each kind of page.
RECORDS = 6
RECORD_ID = re.compile(r"/(?:\d+|[0-9a-f]{8}-[0-9a-f-]{27}|[A-Za-z0-9_-]{20,})/")


def _kind(url: str) -> tuple[str, tuple[str, ...]]:
    parts = urlsplit(url)
    return parts.path, tuple(sorted(name for name, _ in parse_qsl(parts.query, keep_blank_values=True)))


def _route(url: str) -> str:
    return RECORD_ID.sub("/<id>/", urlsplit(url).path + "/")


def crawl(client, *, records: int | None = None) -> tuple[dict[str, int], dict[str, str]]:
    """url -> final status, and url -> the page that linked it."""
    seen, came_from, queue = {}, {"/": "(start)"}, deque(["/"])
    variants, route_records = Counter(), {}
    while queue:
        url = queue.popleft()
        kind = _kind(url)
        if kind[1]:
            variants[kind] += 1
            if variants[kind] > VARIANTS:
                continue
        route = _route(url)
        if records is not None and route != urlsplit(url).path + "/":
            ids = route_records.setdefault(route, set())
            ids.add(urlsplit(url).path)
            if len(ids) > records:
                continue
        response = client.get(url, follow=True)
        seen[url] = response.status_code
        if response.status_code != 200 or not response["Content-Type"].startswith("text/html"):
            continue
        final = response.redirect_chain[-1][0] if response.redirect_chain else url
        for link in internal_links(response.content.decode(), urljoin("http://testserver", final)):
            if link not in came_from:
                came_from[link] = url
                queue.append(link)
    return seen, came_from


_ANSWERS = {False: {200}, True: {200, 304}}


def _is_poll(url: str) -> bool:
    return urlsplit(url).path.endswith("/live")


@pytest.mark.slow
@pytest.mark.usefixtures("seeded_demo")
def test_every_link_of_the_demo_answers_for_each_role_that_sees_it(client, make_staff):
    """One seeding (it takes most of a minute), then one crawl per role."""
    failures = {}
    for role in ROLES:
        client.force_login(make_staff(role))
        seen, came_from = crawl(client, records=None if role == "admin" else RECORDS)
        # A live page's poll answers 304 while nothing changed: that is its answer.
        broken = {
            url: (status, came_from[url]) for url, status in seen.items() if status not in _ANSWERS[_is_poll(url)]
        }
        if broken:
            failures[role] = broken
        # The crawl reached the records, not only the lists.
        for kind in ("/customers/", "/payments/accounts/", "/payments/transactions/", "/payments/rules/"):
            assert sum(url.startswith(kind) for url in seen) >= RECORDS, (role, kind)
        assert any(url.startswith("/payments/quotes/") and url.endswith("/") for url in seen), role
        client.logout()
    assert not failures, failures
