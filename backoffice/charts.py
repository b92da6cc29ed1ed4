"""Charts drawn on the server: the geometry of the bars, for an inline SVG in a template
(templates/backoffice/_columns_chart.html, _volume_chart.html). No script, no style
attribute (the CSP stays strict): fills are presentation attributes and patterns, every bar
carries its value as text, so that the chart reads without colour.
"""

from dataclasses import dataclass, field
from decimal import Decimal

from django.utils.safestring import SafeString


@dataclass
class Bar:
    x: float
    y: float
    width: float
    height: float
    value: int | Decimal
    fill: str
    title: str
    href: str = ""
    # Where a stacked bar writes its own value, when it is tall enough to hold it.
    text_x: float = 0
    text_y: float = 0
    show_value: bool = False

    @property
    def box(self) -> str:
        """The rect's x, y, width and height attributes: one template variable for four (a page
        draws a few hundred bars, and each variable costs a lookup, a number format and an escape)."""
        # Numbers the chart computed, written as the template language writes a float: nothing
        # to escape, and format_html would cost more than the four variables it replaces.
        return SafeString(f'x="{self.x}" y="{self.y}" width="{self.width}" height="{self.height}"')


@dataclass
class Column:
    label: str
    href: str
    # (series index, value) from the bottom up.
    parts: list[tuple[int, int]]
    bars: list[Bar] = field(default_factory=list)
    total: int = 0
    x: float = 0
    center: float = 0
    label_y: float = 0
    values: list[int] = field(default_factory=list)
    show_label: bool = True


@dataclass
class ColumnChart:
    width: int
    height: int
    base: float
    columns: list[Column]
    series: list[tuple[str, str]]
    maximum: int
    label_y: float


def stacked_columns(
    columns: list[Column], series: list[tuple[str, str]], *, width: int = 560, height: int = 200
) -> ColumnChart:
    """Stacked columns, one per entry of `columns`; `series` are (name, fill) pairs, a fill
    being a colour or "url(#pattern)". Every other label is left out above 16 columns."""
    top_margin, bottom_margin = 18, 22
    plot = height - top_margin - bottom_margin
    maximum = max((sum(v for _, v in c.parts) for c in columns), default=0)
    slot = width / max(len(columns), 1)
    bar_width = slot * 0.7
    base = height - bottom_margin
    for i, column in enumerate(columns):
        column.x = round(i * slot + (slot - bar_width) / 2, 1)
        column.center = round(column.x + bar_width / 2, 1)
        column.total = sum(v for _, v in column.parts)
        values = dict(column.parts)
        column.values = [values.get(index, 0) for index in range(len(series))]
        column.show_label = len(columns) <= 16 or i % 2 == (len(columns) - 1) % 2
        y = base
        stacked = sum(1 for _, v in column.parts if v) > 1
        for index, value in column.parts:
            if not value:
                continue
            h = round(plot * value / maximum, 1) if maximum else 0
            y = round(y - h, 1)
            name, fill = series[index]
            column.bars.append(
                Bar(
                    x=column.x,
                    y=y,
                    width=round(bar_width, 1),
                    height=h,
                    value=value,
                    fill=fill,
                    title=f"{column.label}: {value} {name.lower()}",
                    text_x=column.center,
                    text_y=round(y + h / 2 + 4, 1),
                    # The column's total is written above it; each part's value only when
                    # there are several and the part has room for a line of text.
                    show_value=stacked and h >= 14,
                )
            )
        column.label_y = round(y - 4, 1)
    return ColumnChart(
        width=width,
        height=height,
        base=base,
        columns=columns,
        series=series,
        maximum=maximum,
        label_y=base + 14,
    )


def spark_bars(values: list[Decimal], *, width: int = 300, height: int = 36, titles: list[str]) -> list[Bar]:
    """Thin bars of one series scaled to its own largest value (a small multiple)."""
    maximum = max(values, default=Decimal(0))
    slot = width / max(len(values), 1)
    bars = []
    for i, value in enumerate(values):
        h = float(height * value / maximum) if maximum else 0.0
        # A day with some volume stays visible however small it is beside the busiest.
        if value and h < 1:
            h = 1.0
        bars.append(
            Bar(
                x=round(i * slot, 1),
                y=round(height - h, 1),
                width=round(slot * 0.8, 1),
                height=round(h, 1),
                value=value,
                fill="",
                title=titles[i],
            )
        )
    return bars
