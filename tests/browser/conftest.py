"""What the browser tests share: Chromium, screenshots, and the live server's own sandbox as
the back-office's upstream over real HTTP (as in production), with a customer in it."""

import os
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-results" / "screenshots"
# The README's pictures: retaken into docs/screenshots/ only when asked (UPDATE_SCREENSHOTS=1),
# so that a test run leaves the checkout as it was.
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
UPDATE_DOCS = os.environ.get("UPDATE_SCREENSHOTS") == "1"
# expect() waits up to 5 s by default: on a loaded machine (two test workers, a browser each,
# PostgreSQL) a login and the page after it take longer now and then. A wait that ends early
# costs nothing, so the limit is generous; what is expected stays the same.
expect.set_options(timeout=15_000)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": "/usr/bin/chromium", "args": CHROMIUM_ARGS}


@pytest.fixture
def screenshot(page, request):
    """screenshot("step") saves the page as test-results/screenshots/<test>-<step>.png;
    screenshot("step", docs="name.png") also makes it the README's docs/screenshots/name.png
    when UPDATE_SCREENSHOTS=1."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def take(step: str, *, docs: str | None = None) -> Path:
        path = ARTIFACTS / f"{request.node.name}-{step}.png"
        page.screenshot(path=str(path), full_page=True)
        if docs and UPDATE_DOCS:
            DOCS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, DOCS / docs)
        return path

    return take


@pytest.fixture
def customer(sandbox):
    """Ada Lovelace, ACTIVE, with an ACH bank account and a BASE USDC wallet, synced into the
    mirror: {"customer_id", "bank", "wallet"} (the accounts' ids)."""
    from tests.payments.transactions_helpers import sandbox_customer

    made = sandbox_customer(sandbox)
    return {
        "customer_id": made["customer_id"],
        "bank": made["bank"]["paymentAccountId"],
        "wallet": made["wallet"]["paymentAccountId"],
    }
