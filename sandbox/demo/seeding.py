"""One run of the seed: the key it acts with, its random numbers and what it has made so far."""

import random
from decimal import Decimal

from .. import clock
from ..models import ApiKey


class Seeding:
    """Makes the data with a random.Random(42): the same names, amounts and choices every run,
    as long as the calls come in the same order."""

    def __init__(self, api_key: ApiKey):
        self.api_key = api_key
        self.rng = random.Random(42)
        self.today = clock.now().date()
        self.active_count = 0
        self.transaction_count = 0
        self.used_emails: set[str] = set()
        self.used_names: set[str] = set()

    def amount(self, low: int, high: int) -> Decimal:
        """An amount with cents from low to high."""
        return Decimal(self.rng.randint(low * 100, high * 100)) / 100
