"""The clock test helper's bodies."""

from rest_framework import serializers

from .fields import StrictSerializer

# At most a year and a day per call.
MAX_ADVANCE_SECONDS = 366 * 24 * 3600


class Seconds(serializers.FloatField):
    default_error_messages = {"invalid": "Must be a number of seconds."}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            self.fail("invalid")
        return super().to_internal_value(data)


class ClockAdvanceSerializer(StrictSerializer):
    seconds = Seconds(min_value=0, max_value=MAX_ADVANCE_SECONDS, help_text="How far to move the sandbox time")


class ClockSerializer(serializers.Serializer):
    now = serializers.DateTimeField(help_text="The sandbox time after the advance")
    offsetSeconds = serializers.FloatField(help_text="Total offset from real time")
