"""Sandbox-only test helpers, mounted at {base_url}/test-helpers/ (never under API paths).

They act as the provider would (a review decision, a deactivation, time passing) and need an
API key of the record's organization, like every other write. Each resource keeps its helpers
in its own section below.
"""

import re

from django.db import transaction
from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from .. import clock
from ..api import SandboxApi
from ..serializers.customers import CustomerSerializer, timestamp
from ..serializers.fields import Enum, StrictSerializer, Text
from ..services.customers import REVIEW_OUTCOMES, customer_deactivate, customer_review
from ..services.due import due_work_run
from .accounts import BankAccountFormCompleteApi, PaymentAccountFundApi
from .customers import get_customer
from .openapi import error_responses
from .rules import RulesRunApi
from .transactions import TransactionAdvanceApi, TransactionDepositLinkApi

TAGS = ["Test helpers"]

# --- Customers ---------------------------------------------------------------------------------


class ReviewIssueSerializer(StrictSerializer):
    code = Text(max_length=64, help_text="Upper-case code, e.g. DOCUMENT_MISSING_BACK")
    message = Text(max_length=500)

    def validate_code(self, value):
        if not re.fullmatch(r"[A-Z0-9_]+", value):
            raise serializers.ValidationError("Must be an upper-case code such as DOCUMENT_MISSING_BACK.")
        return value


class CustomerReviewSerializer(StrictSerializer):
    outcome = Enum(REVIEW_OUTCOMES)
    issues = ReviewIssueSerializer(many=True, required=False, default=list)

    def validate(self, attrs):
        if attrs["outcome"] == "NEEDS_ADDITIONAL_INFORMATION" and not attrs["issues"]:
            raise serializers.ValidationError(
                {"issues": "At least one issue is needed for NEEDS_ADDITIONAL_INFORMATION."}
            )
        if attrs["outcome"] == "ACTIVE" and attrs["issues"]:
            raise serializers.ValidationError({"issues": "An ACTIVE outcome has no issues."})
        return attrs


class CustomerReviewApi(SandboxApi):
    @extend_schema(
        operation_id="testHelperReviewCustomer",
        summary="Decide the review of an UNDER_REVIEW customer",
        tags=TAGS,
        parameters=[OpenApiParameter("customerId", str, OpenApiParameter.PATH)],
        request=CustomerReviewSerializer,
        responses={200: CustomerSerializer, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request, customerId):
        customer = get_customer(self, customerId)
        serializer = CustomerReviewSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        customer = customer_review(customer=customer, **serializer.validated_data)
        return Response(CustomerSerializer(customer, context={"request": request}).data)


class CustomerDeactivateApi(SandboxApi):
    @extend_schema(
        operation_id="testHelperDeactivateCustomer",
        summary="Deactivate an ACTIVE customer",
        tags=TAGS,
        parameters=[OpenApiParameter("customerId", str, OpenApiParameter.PATH)],
        request=None,
        responses={200: CustomerSerializer, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request, customerId):
        customer = customer_deactivate(customer=get_customer(self, customerId))
        return Response(CustomerSerializer(customer, context={"request": request}).data)


# --- Clock -------------------------------------------------------------------------------------

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


class ClockAdvanceApi(SandboxApi):
    @extend_schema(
        operation_id="testHelperAdvanceClock",
        summary="Move the sandbox clock forward",
        description="Whatever falls due by the new time happens before the answer: reviews end, quotes and "
        "transactions expire, processing transactions complete or fail, automation rules fire (a cron rule "
        "once, however many runs the jump covers) and webhook retries are sent.",
        tags=TAGS,
        request=ClockAdvanceSerializer,
        responses={200: ClockSerializer, **error_responses(400, 401, 403)},
    )
    def post(self, request):
        serializer = ClockAdvanceSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        now = clock.advance(serializer.validated_data["seconds"])
        # After the commit, so that workers and the catch-up see the new time; robust: the clock
        # has moved whatever happens, and the periodic tasks retry what this could not do.
        transaction.on_commit(due_work_run, robust=True)
        return Response({"now": timestamp(now), "offsetSeconds": clock.offset().total_seconds()})


urlpatterns = [
    # Customers
    path("customers/<str:customerId>/review", CustomerReviewApi.as_view(), name="sandbox-review-customer"),
    path("customers/<str:customerId>/deactivate", CustomerDeactivateApi.as_view(), name="sandbox-deactivate-customer"),
    # Clock
    path("clock/advance", ClockAdvanceApi.as_view(), name="sandbox-advance-clock"),
    # Transactions, payment accounts, bank account forms, automation rules: added below.
]

# --- Payments: the views live with their resources (accounts, transactions, rules) --------------

urlpatterns += [
    path(
        "transactions/<str:transaction_id>/advance", TransactionAdvanceApi.as_view(), name="sandbox-advance-transaction"
    ),
    path(
        "transactions/<str:transaction_id>/deposit-link",
        TransactionDepositLinkApi.as_view(),
        name="sandbox-transaction-deposit-link",
    ),
    path(
        "payment-accounts/<str:payment_account_id>/fund", PaymentAccountFundApi.as_view(), name="sandbox-fund-account"
    ),
    path(
        "bank-account-forms/<str:form_token>/complete",
        BankAccountFormCompleteApi.as_view(),
        name="sandbox-complete-bank-account-form",
    ),
    path("automation-rules/run", RulesRunApi.as_view(), name="sandbox-run-automation-rules"),
]
