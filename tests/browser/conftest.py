from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-results" / "screenshots"
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
    """screenshot("step") saves the page as test-results/screenshots/<test>-<step>.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def take(step: str) -> Path:
        path = ARTIFACTS / f"{request.node.name}-{step}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
