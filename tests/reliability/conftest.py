"""Fixtures of the reliability suite: the shared `faulty_upstream` (tests/faulty_api.py), with
the sandbox's reviews held back so that they happen only when a test asks."""

import pytest


@pytest.fixture
def faulty_upstream(faulty_upstream, settings):
    settings.SANDBOX_REVIEW_DELAY_SECONDS = 10 * 366 * 24 * 3600  # reviews only when a test asks
    return faulty_upstream
