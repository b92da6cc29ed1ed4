"""Following a link in the browser tests.

A click returns once the next page has started loading; its deferred scripts (htmx and
ours) may not have run yet, and a change made before they run is lost. ``follow`` clicks
and waits for the load event, after which every ``hx-*`` attribute is live.
"""


def follow(page, locator) -> None:
    with page.expect_navigation(wait_until="load"):
        locator.click()
