"""Following a link in the browser tests.

A click returns once the next page has started loading; its deferred scripts (htmx and
ours) may not have run yet, and a change made before they run is lost. ``follow`` clicks
and waits for the load event, after which every ``hx-*`` attribute is live.
"""

from playwright.sync_api import expect


def follow(page, locator) -> None:
    with page.expect_navigation(wait_until="load"):
        locator.click()


def pick_customer(page, typed: str, name: str) -> None:
    """Choose a customer in a customer picker: type, then pick them from the results."""
    page.get_by_label("Find a customer").fill(typed)
    page.get_by_role("button", name=name, exact=True).click()
    expect(page.locator("[data-picker-chosen]").get_by_text(name, exact=True)).to_be_visible()
