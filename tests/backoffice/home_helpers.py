"""Reading the home page's figures in a test: each is a value, a label and the link to its list."""

import re
from html import unescape

from django.urls import reverse

FIGURE = re.compile(
    r'<li class="figure">(?:<a href="(?P<url>[^"]*)">)?<span class="figure-value">(?P<value>[^<]*)</span> '
    r'<span class="figure-label">(?P<label>[^<]*)</span>'
)


def figures(response) -> dict[str, tuple[str, str]]:
    """{label: (value, url)} of every figure on the page."""
    html = response.content.decode()
    return {unescape(m["label"]): (unescape(m["value"]), unescape(m["url"] or "")) for m in FIGURE.finditer(html)}


def home(client):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    return response


def listed(client, url: str, names: list[str]) -> set[str]:
    """Which of `names` the list at `url` shows."""
    response = client.get(url)
    assert response.status_code == 200, url
    html = response.content.decode()
    return {name for name in names if name in html}
