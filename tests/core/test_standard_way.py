"""bench/standard_way.py swaps each clever piece for Django's standard way: each swap must
really swap (a swap that patched nothing would judge the piece against itself), keep the page's
answer, and the verdict must follow its rule."""

import sys
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from customers.models import Customer, CustomerNote
from customers.upserts import customers_upsert
from tests.customers.test_live import T0, poller_url
from tests.customers.test_mirror_upsert import item
from upstream.mirrored import Source

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import standard_way

pytestmark = pytest.mark.django_db


@pytest.fixture
def customer():
    customers_upsert(items=[item("c-1", status="UNDER_REVIEW", at=T0)], seen_by=Source.WEBHOOK)
    return "c-1"


@pytest.fixture
def reviewer(client_as):
    return client_as("compliance")


def _queries(call) -> tuple[int, object]:
    with CaptureQueriesContext(connection) as captured:
        response = call()
    return len(captured), response


def test_every_piece_has_a_standard_way_and_a_description():
    assert set(standard_way.STANDARD) == set(standard_way.PIECES)
    assert set(standard_way.EXTRA) <= set(standard_way.STANDARD)


def test_together_standard_reads_the_customer_page_list_by_list(reviewer, customer):
    CustomerNote.objects.create(
        customer=Customer.objects.get(customer_id=customer), body="A note both ways show", author_username="x"
    )
    url = reverse("customers-view-customer", args=[customer])
    reviewer.get(url)  # the UNION ALL compiled once, as in a running process
    piece, piece_page = _queries(lambda: reviewer.get(url))
    with standard_way.together_standard():
        standard, standard_page = _queries(lambda: reviewer.get(url))
    with standard_way.together_union_per_request():
        union, union_page = _queries(lambda: reviewer.get(url))

    assert standard > piece  # one query per list instead of one for all
    assert union == piece
    for page in (piece_page, standard_page, union_page):
        assert page.status_code == 200
        assert "A note both ways show" in page.content.decode()


def test_live_standard_answers_the_same_through_the_view(reviewer, customer):
    from core.live import LivePollMiddleware

    original = LivePollMiddleware.__call__
    page = reverse("customers-view-customer", args=[customer])
    piece_answer = reviewer.get(poller_url(reviewer.get(page).content.decode()))
    with standard_way.live_standard():
        # The version as the standard way computes it (SQLite's raw rows differ from the ORM's).
        standard_answer = reviewer.get(poller_url(reviewer.get(page).content.decode()))

    assert piece_answer.status_code == standard_answer.status_code == 304
    assert LivePollMiddleware.__call__ is original  # unpatched after


def test_live_standard_hands_a_poll_the_piece_would_answer_to_the_view(rf):
    from types import SimpleNamespace
    from unittest import mock

    from core import live

    unchanged = SimpleNamespace(func=SimpleNamespace(live_version=lambda request, **kwargs: "v1"), kwargs={})
    view_answer = object()
    middleware = live.LivePollMiddleware(lambda request: view_answer)
    request = rf.get("/customers/x/live", {"t": "token", "v": "v1"})
    with (
        mock.patch.object(live, "resolve", return_value=unchanged),
        mock.patch.object(live, "_known_version", return_value="v1"),
        mock.patch.object(live, "_token_fits", return_value=True),
        mock.patch.object(live, "_session_alive", return_value=True),
    ):
        assert middleware(request).status_code == 304  # the piece: answered before the view
        with standard_way.live_standard():
            assert middleware(request) is view_answer


def test_forms_standard_renders_selects_through_the_templates(make_staff, client):
    from unittest import mock

    from core import forms

    client.force_login(make_staff("operations"))
    url = reverse("payments-list-transactions")
    with mock.patch.object(forms, "select_html", wraps=forms.select_html) as written:
        piece = client.get(url).content.decode()
        assert written.called
        written.reset_mock()
        with standard_way.forms_standard():
            standard = client.get(url).content.decode()
        assert not written.called

    assert piece.count("<select") == standard.count("<select") > 0


def test_exports_standard_writes_the_iterator_s_lines_where_copy_would_run():
    from core import exports

    copy = exports._copy_chunks
    with standard_way.exports_standard():
        assert exports._copy_chunks is exports._iterated_lines
    assert exports._copy_chunks is copy


@pytest.mark.parametrize(
    ("piece_holds", "standard_holds", "verdict"),
    [
        ([True, True], [True, True], "remove"),
        ([True, False], [True, False], "open"),
        ([True, True], [True, False], "keep"),
        ([False, True], [True, False], "keep"),
    ],
)
def test_verdict(piece_holds, standard_holds, verdict):
    pages = [
        {"page": f"p{i}", "piece_holds": p, "standard_holds": s}
        for i, (p, s) in enumerate(zip(piece_holds, standard_holds, strict=True))
    ]
    assert standard_way.verdict(pages)["verdict"] == verdict
