from django.conf import settings
from django.db import models


class WriteClaim(models.Model):
    """Who carries out a write that must happen once (upstream.claims): an approved request, a
    quote's execute, a form's submission. The request whose row commits first carries it out;
    the others wait for the outcome it records here instead of writing themselves."""

    class State(models.TextChoices):
        IN_FLIGHT = "in_flight", "In flight"
        DONE = "done", "Done"
        # The last try's answer was lost: the next one reads the API before writing again.
        UNKNOWN = "unknown", "Outcome unknown"

    key = models.CharField(max_length=200, unique=True)
    holder = models.CharField(max_length=32)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    state = models.CharField(max_length=16, choices=State, default=State.IN_FLIGHT)
    # A holder that died leaves its claim in flight: it is taken over once this passes.
    lease_until = models.DateTimeField()
    # What the write made (the id its replay is rebuilt from), once done.
    result = models.CharField(max_length=200, blank=True)
    # The first try: a read-back looks for what was made since then.
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "core_writeclaim"

    def __str__(self):
        return f"{self.key} ({self.state})"
