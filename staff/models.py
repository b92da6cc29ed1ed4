from django.conf import settings
from django.db import models


class StaffPreference(models.Model):
    """What a staff member chose for themselves: the time zone pages show times in."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_preference")
    # An IANA name ("Europe/Berlin"); empty until the browser tells us or the user chooses.
    time_zone = models.CharField(max_length=64, blank=True)

    class Meta:
        db_table = "core_staffpreference"

    def __str__(self):
        return f"{self.user_id}: {self.time_zone or 'UTC'}"
