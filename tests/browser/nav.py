"""Logging in and following a link in the browser tests.

A click returns once the next page has started loading; its deferred scripts (htmx and
ours) may not have run yet, and a change made before they run is lost. ``follow`` clicks
and waits for the load event, after which every ``hx-*`` attribute is live.
"""

from playwright.sync_api import expect


def follow(page, locator) -> None:
    with page.expect_navigation(wait_until="load"):
        locator.click()


def nav_link(page, group: str, name: str):
    """The link `name` of the top bar's menu `group` ("Payments"), the menu opened first (its
    links are hidden while it is closed)."""
    nav = page.get_by_role("navigation", name="Main")
    menu = nav.locator("details", has=page.locator("summary", has_text=group))
    if not menu.evaluate("element => element.open"):
        menu.locator("summary").click()
    return menu.get_by_role("link", name=name, exact=True)


def own_menu_link(page, name: str):
    """A link of the member's own menu (security, time zone), the menu opened first."""
    menu = page.locator(".topbar .menus.own details")
    if not menu.evaluate("element => element.open"):
        menu.locator("summary").click()
    return menu.get_by_role("link", name=name)


def pick_customer(page, typed: str, name: str) -> None:
    """Choose a customer in a customer picker: type, then pick them from the results."""
    page.get_by_label("Find a customer").fill(typed)
    page.get_by_role("button", name=name, exact=True).click()
    expect(page.locator("[data-picker-chosen]").get_by_text(name, exact=True)).to_be_visible()


def log_in(page, live_server, username: str, next_path: str = "") -> None:
    """Log in through the login form as a member `make_staff` made. Without `next_path` the
    home page is checked to greet them; with it, the caller checks the page it lands on."""
    page.goto(f"{live_server.url}/login/" + (f"?next={next_path}" if next_path else ""))
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    if not next_path:
        expect(page.get_by_role("heading", name=f"Welcome, {username}")).to_be_visible()
    # The heading shows while the page still parses: its deferred scripts (the "/" key, the
    # menus) run only once it is loaded.
    page.wait_for_load_state("load")


def build_quote(page, live_server, customer, amount="100.00"):
    """Fill the quote builder for the `customer` fixture: its bank account to its wallet."""
    page.goto(f"{live_server.url}/payments/quotes/new")
    page.get_by_label("Find an active customer (name, e-mail or id)").fill("Ada")
    follow(page, page.get_by_role("link", name="Ada Lovelace"))
    page.get_by_label("Source account").select_option(customer["bank"])
    expect(page.locator("#direction")).to_contain_text("Onramp (fiat → crypto)")
    expect(page.get_by_label("Destination account")).to_have_value(customer["wallet"])
    page.get_by_label("Source amount").fill(amount)
    expect(page.locator("#preview")).to_contain_text("Destination amount")
    expect(page.locator("#preview")).to_contain_text("99.250000 USDC" if amount == "100.00" else "USDC")


def ask_for_approval(page, live_server, customer, amount="20000.00"):
    """As the member logged in on `page`: quote `amount` (at or above APPROVAL_THRESHOLD_USD)
    for the `customer` fixture, execute it, and ask for a checker's approval."""
    build_quote(page, live_server, customer, amount=amount)
    page.get_by_role("button", name="Create quote").click()
    expect(page.get_by_role("heading", name="Quote")).to_be_visible()
    follow(page, page.get_by_role("button", name="Execute…"))
    expect(page.locator("#approval-needed")).to_contain_text("a second person holding move_money must approve")
    page.get_by_role("button", name="Ask for approval").click()
    expect(page.locator("#approval-status")).to_have_text("Waiting for approval")
