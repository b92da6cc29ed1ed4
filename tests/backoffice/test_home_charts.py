"""The server-drawn charts: geometry that follows the values, values written out, no colour
needed to read them, and nothing the CSP would refuse."""

import re
from decimal import Decimal

import pytest

from backoffice import charts, rollups
from tests.factories import CustomerStatusChangeFactory

from .home_helpers import home

SERIES = [("Approved", "url(#pattern-approved)"), ("Rejected", "url(#pattern-rejected)")]


def test_stacked_columns_scale_to_the_largest_total():
    columns = [
        charts.Column(label="a", href="/a", parts=[(0, 30), (1, 10)]),
        charts.Column(label="b", href="/b", parts=[(0, 20), (1, 0)]),
        charts.Column(label="c", href="/c", parts=[(0, 0), (1, 0)]),
    ]
    chart = charts.stacked_columns(columns, SERIES, width=300, height=200)
    a, b, c = chart.columns
    assert (a.total, b.total, c.total) == (40, 20, 0)
    assert a.values == [30, 10] and b.values == [20, 0]
    plot = sum(bar.height for bar in a.bars)
    assert plot == pytest.approx(200 - 18 - 22, abs=0.2)  # the largest column fills the plot
    assert sum(bar.height for bar in b.bars) == pytest.approx(plot / 2, abs=0.2)
    assert c.bars == []
    # Parts stack from the base upward, each with its own fill.
    approved, rejected = a.bars
    assert approved.y + approved.height == pytest.approx(chart.base, abs=0.2)
    assert rejected.y + rejected.height == pytest.approx(approved.y, abs=0.2)
    assert (approved.fill, rejected.fill) == ("url(#pattern-approved)", "url(#pattern-rejected)")
    # A part writes its value when the column has several parts; a lone part's value is the total.
    assert approved.show_value and rejected.show_value
    assert not b.bars[0].show_value


def test_spark_bars_keep_a_small_day_visible():
    bars = charts.spark_bars([Decimal("1000"), Decimal("1"), Decimal("0")], height=36, titles=["x", "y", "z"])
    assert bars[0].height == 36
    assert bars[1].height == 1.0
    assert bars[2].height == 0


@pytest.mark.django_db
def test_the_page_draws_its_charts_without_script_or_style_attributes(client, make_staff):
    from django.contrib.auth.models import Group

    CustomerStatusChangeFactory()
    CustomerStatusChangeFactory(new_status="REJECTED")
    rollups.refresh()
    user = make_staff("compliance")
    user.groups.add(Group.objects.get(name="operations"))
    client.force_login(user)
    html = home(client).content.decode()
    main = html.split("<main", 1)[1]
    assert "<script" not in main
    assert not re.search(r"\sstyle=", main)
    assert '<svg viewBox="0 0 560 200" class="chart-svg" role="img"' in main
    # The legend shows the patterns, and each part's value is written in its bar.
    assert 'fill="url(#pattern-rejected)" stroke="#1b1f24" stroke-width="0.5"/></svg> Rejected' in main
    assert re.search(r'paint-order="stroke">1</text>', main)
    # Each part is a rect with its geometry, not escaped.
    assert re.search(
        r'<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="[\d.]+" fill="url\(#pattern-approved\)"', main
    )
