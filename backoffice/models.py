"""The home pages' roll-ups: figures the beat task computes so that a page never counts millions.

`DailyFigure` holds one day's counts (and amounts) per key, refreshed a few days at a time;
`Snapshot` holds what each home section shows, composed from them and from bounded counts,
with the time it was computed (the page shows its age).
"""

from django.db import models


class DailyFigure(models.Model):
    """One day's count and amount of one figure for one key (e.g. transactions created that
    day in status COMPLETED on ACH in USD). The row with an empty key is the day's total and
    says when the day was last computed."""

    figure = models.CharField(max_length=32)
    day = models.DateField()
    key = models.CharField(max_length=200, blank=True)
    count = models.BigIntegerField(default=0)
    amount = models.DecimalField(max_digits=38, decimal_places=18, null=True, blank=True)
    # Figure-specific values of the day (the seconds to each decision, for a median).
    extra = models.JSONField(default=dict, blank=True)
    computed_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["figure", "day", "key"], name="dailyfigure_unique")]

    def __str__(self):
        return f"{self.figure} {self.day} {self.key or 'total'}={self.count}"


class Snapshot(models.Model):
    """The values of one home section as of `computed_at` (JSON: amounts as decimal strings)."""

    name = models.CharField(max_length=64, primary_key=True)
    data = models.JSONField(default=dict)
    computed_at = models.DateTimeField()

    def __str__(self):
        return f"{self.name} as of {self.computed_at:%Y-%m-%d %H:%M}"
