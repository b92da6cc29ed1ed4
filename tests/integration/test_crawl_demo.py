"""Every staff page of the seeded demo, crawled as each role: every internal link a role is
shown answers 200 (or a redirect to a 200) for that role. No 404, no 500, no 403 behind a
link the role was given. And no page shows a raw code where staff words exist: the visible
text (not attributes: titles, URLs and form values keep their codes) holds no status, issue
code, payment method, webhook event or audit action of a vocabulary of core.labels. Between
them, the roles' crawls reach every page (GET URL name) of the role matrix."""

import re
from collections import Counter, deque
from html import unescape
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urldefrag, urljoin, urlsplit

import pytest
from django.urls import Resolver404, resolve

from core import labels
from tests.conftest import ROLES
from tests.demo import seeded_demo  # noqa: F401  (the fixture)
from tests.factories import ApprovalRequestFactory
from tests.matrix import MATRIX

# Links, htmx's GETs and the URLs a page's script fetches (data-url).
LINK = re.compile(r"""<a\s[^>]*?href="([^"]+)"|(?:hx-get|data-url)="([^"]+)\"""")
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


class _Visible(HTMLParser):
    """The text a person reads on the page: no attribute, no script, style or form value."""

    HIDDEN = {"script", "style", "textarea", "template"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.hidden = [], 0

    def handle_starttag(self, tag, attrs):
        self.hidden += tag in self.HIDDEN

    def handle_endtag(self, tag):
        self.hidden -= tag in self.HIDDEN and self.hidden > 0

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def visible_text(page: str) -> str:
    parser = _Visible()
    parser.feed(page)
    return " ".join(parser.parts)


# The codes staff must read in words: each one whose word differs from it.
RAW_CODES = labels.raw_codes(labels.STATUS, labels.ISSUE, labels.METHOD, labels.EVENT, labels.ACTION)
RAW = re.compile(
    r"(?<![\w.-])("
    + "|".join(re.escape(code) for code in sorted(RAW_CODES, key=len, reverse=True))
    + r")(?![\w-]|\.\w)"
)


# A record named by its row number where a name exists (an audit target as "User 8").
BY_ROW = re.compile(r"\bUser\s+\d+\b")


def raw_codes_in(page: str) -> set[str]:
    text = visible_text(page)
    return set(RAW.findall(text)) | {" ".join(m.split()) for m in BY_ROW.findall(text)}


def _kind(url: str) -> tuple[str, tuple[str, ...]]:
    parts = urlsplit(url)
    return parts.path, tuple(sorted(name for name, _ in parse_qsl(parts.query, keep_blank_values=True)))


def _route(url: str) -> str:
    return RECORD_ID.sub("/<id>/", urlsplit(url).path + "/")


def crawl(client, *, records: int | None = None) -> tuple[dict[str, int], dict[str, str], dict[str, set]]:
    """url -> final status, url -> the page that linked it, and url -> the raw codes it shows."""
    seen, came_from, queue, raw = {}, {"/": "(start)"}, deque(["/"]), {}
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
        page = response.content.decode()
        if codes := raw_codes_in(page):
            raw[url] = codes
        for link in internal_links(page, urljoin("http://testserver", final)):
            if link not in came_from:
                came_from[link] = url
                queue.append(link)
    return seen, came_from, raw


_ANSWERS = {False: {200}, True: {200, 304}}


def _is_poll(url: str) -> bool:
    return urlsplit(url).path.endswith("/live")


def url_name(url: str) -> str | None:
    try:
        return resolve(urlsplit(url).path).url_name
    except Resolver404:
        return None


@pytest.mark.slow
@pytest.mark.usefixtures("seeded_demo")
def test_every_link_of_the_demo_answers_and_no_page_shows_a_raw_code(client, make_staff):
    """One seeding (it takes most of a minute), then one crawl per role: every link answers,
    no page shows a code where staff words exist, and every staff page is reached."""
    failures, raw_pages, reached = {}, {}, set()
    ApprovalRequestFactory()  # the demo makes none: one waiting, for its pages
    for role in ROLES:
        client.force_login(make_staff(role))
        seen, came_from, raw = crawl(client, records=None if role == "admin" else RECORDS)
        reached |= {url_name(url) for url in seen}
        raw_pages.update({f"{role} {url}": sorted(codes) for url, codes in raw.items()})
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
    assert not raw_pages, "raw codes shown:\n" + "\n".join(f"{page}: {codes}" for page, codes in raw_pages.items())
    pages = {name for name, access in MATRIX.items() if access.method == "get"}
    assert pages - reached == set(), "staff pages no link of the demo leads to"


def test_the_raw_code_check_reads_the_visible_text_only():
    hidden = (
        '<p title="AWAITING_TRANSFER">Awaiting transfer</p><a href="/x?status=REJECTED">Rejected</a>'
        '<textarea>UNDER_REVIEW</textarea><select><option value="WIRE">Wire</option></select>'
        '<script>const s = "FAILED";</script><code class="x-NOT_FOUND">id-1</code>'
    )
    assert raw_codes_in(hidden) == set()
    shown = "<td>AWAITING_TRANSFER</td><li>SANCTIONED_COUNTRY, customer.update</li><span>by WIRE</span>"
    assert raw_codes_in(shown) == {"AWAITING_TRANSFER", "SANCTIONED_COUNTRY", "customer.update", "WIRE"}
    # Part of a longer word is no code.
    assert raw_codes_in("<p>INACTIVE ACH_SAME_DAY_X customer.updated</p>") == set()
    assert raw_codes_in('<td><span title="user">User</span> <code>8</code></td>') == {"User 8"}
