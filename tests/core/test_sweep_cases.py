"""bench/sweep.py visits every page and every filter: a page or a typed filter added without a
case there fails here, and a select's choices are read from the page itself."""

import sys
from pathlib import Path

import pytest
from django.urls import reverse

from tests.matrix import MATRIX

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import sweep

IDS = {
    "big": "c-big",
    "small": "c-small",
    "month_start": "2026-09-01",
    "month_end": "2026-10-01",
    "old_day": "2026-01-01",
    "search_cases": [("name", "Customer 1", 200)],
}


def _pages_with_a_get():
    for name, access in MATRIX.items():
        if access.method == "get" or access.form:
            yield name


def test_every_page_of_the_role_matrix_is_swept_or_skipped_with_a_reason():
    swept = set(sweep.LISTS) | set(sweep.DETAILS) | {case.split("#")[0] for case in sweep.FORMS}
    missing = [name for name in _pages_with_a_get() if name not in swept and name not in sweep.SKIPPED]
    assert missing == []
    assert all(sweep.SKIPPED.values())
    unknown = (swept | set(sweep.SKIPPED)) - set(MATRIX)
    assert unknown == set()
    assert not swept & set(sweep.SKIPPED)


@pytest.mark.parametrize("name", sweep.LISTS)
def test_every_typed_filter_of_a_list_has_sample_values(name, client_as):
    client = client_as(sweep.role_for(name))
    response = client.get(reverse(name))
    assert response.status_code == 200
    fields = sweep.filter_fields(response.content.decode())
    samples = sweep.typed_samples(IDS).get(name, {})
    typed = [field for field, values in fields.items() if values is None]
    assert [field for field in typed if not samples.get(field)] == [], f"{name}: typed filters without sweep samples"
    assert set(samples) <= set(fields), f"{name}: samples for filters the page no longer has"
    links = sweep.link_filters(IDS).get(name, {})
    assert not set(links) & set(fields), f"{name}: a filter of the form is also listed as a link's"
    spec = sweep.filter_spec(fields, samples, links)
    cases = sweep.combinations(spec)
    for field, values in spec.items():
        for value in values:
            assert {field: value} in cases


def test_a_select_of_the_filter_form_is_visited_choice_by_choice():
    html = """
    <form class="topsearch" method="get" action="/search/"><input name="q"></form>
    <form class="filters" method="get" action="/x/">
      <select name="status"><option value="">Any</option><option value="A">a</option><option value="B">b</option></select>
      <input type="text" name="customer"><input type="date" name="since"><input type="hidden" name="view" value="all">
      <input type="checkbox" name="mine" value="1"><button type="submit">Filter</button>
    </form>
    <form method="post"><input name="note"></form>
    """
    fields = sweep.filter_fields(html)
    assert fields == {"status": ["A", "B"], "customer": None, "since": None, "mine": ["1"]}
    with pytest.raises(KeyError):
        sweep.filter_spec(fields, {"customer": ["x"]})
    spec = sweep.filter_spec(fields, {"customer": ["x", "y"], "since": ["2026-01-01"]})
    cases = sweep.combinations(spec)
    assert {"status": "B"} in cases and {"status": "A", "customer": "y"} in cases and {} in cases


def test_the_budget_scales_with_the_machines_yardstick():
    assert sweep.budget_ms(sweep.YARDSTICK_OF_BUDGET) == 20.0
    assert sweep.budget_ms(57.4) == pytest.approx(40.4, abs=0.1)
    assert sweep.budget_ms(14.2) == 10.0


def test_the_next_page_link_is_found_on_the_list_itself():
    html = '<a href="/other/?page=2">x</a><a href="?status=A&amp;cursor=abc" rel="next">Next</a>'
    assert sweep.next_page(html, "/list/") == "/list/?status=A&cursor=abc"
    assert sweep.next_page("<p>no more</p>", "/list/") is None


def test_a_throughput_target_is_owed_in_proportion_to_the_machines_speed():
    import _setup

    asked = _setup.THROUGHPUT_YARDSTICK
    assert _setup.scaled_target(300_000, [asked, asked]) == 300_000
    # Twice as fast a machine (half the yardstick) owes twice the rows; the readings are averaged.
    assert _setup.scaled_target(300_000, [asked / 2 - 1, asked / 2 + 1]) == 600_000
    assert _setup.scaled_target(2000, [asked * 2]) == 1000
