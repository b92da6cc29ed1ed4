"""The clock test helper."""

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from .. import clock
from ..api import SandboxApi
from ..serializers.clock import ClockAdvanceSerializer, ClockSerializer
from ..serializers.fields import validated
from ..services.due import due_work_run
from .openapi import error_responses


class ClockAdvanceApi(SandboxApi):
    @extend_schema(
        operation_id="testHelperAdvanceClock",
        summary="Move the sandbox clock forward",
        description="Whatever falls due by the new time happens before the answer: reviews end, quotes and "
        "transactions expire, processing transactions complete or fail, automation rules fire (a cron rule "
        "once, however many runs the jump covers) and webhook retries are sent.",
        tags=["Test helpers"],
        request=ClockAdvanceSerializer,
        responses={200: ClockSerializer, **error_responses(400, 401, 403)},
    )
    def post(self, request):
        now = clock.advance(validated(ClockAdvanceSerializer, request.data)["seconds"])
        # After the commit, so that workers and the catch-up see the new time; robust: the clock
        # has moved whatever happens, and the periodic tasks retry what this could not do.
        transaction.on_commit(due_work_run, robust=True)
        return Response({"now": clock.iso(now), "offsetSeconds": clock.offset().total_seconds()})
