"""Transactions: create (idempotent), read, cancel; the test helpers that advance one and give
its deposit page."""

import re

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.response import Response

from ..api import SandboxApi
from ..errors import detail, validation_error
from ..serializers.fields import validated
from ..serializers.transactions import (
    DepositLinkOut,
    MessageOut,
    TransactionAdvanceIn,
    TransactionCreateIn,
    TransactionOut,
)
from ..services.idempotency import transaction_create_idempotent
from ..services.transactions import (
    deposit_token,
    transaction_advance,
    transaction_body,
    transaction_cancel,
    transaction_for_key,
)
from .openapi import error_responses

# Printable ASCII without spaces, as sent (nothing trimmed): what a header value can carry safely.
IDEMPOTENCY_KEY_PATTERN = r"^[!-~]{1,255}$"
IDEMPOTENCY_HEADER = OpenApiParameter(
    "x-idempotency-key",
    {"type": "string", "pattern": IDEMPOTENCY_KEY_PATTERN, "minLength": 1, "maxLength": 255},
    location=OpenApiParameter.HEADER,
    required=True,
    description="Kept 24 h per API key: the same body replays the first answer "
    "(header x-idempotent-replayed: true); another body is refused with 400 BAD_REQUEST.",
)


class TransactionCreateApi(SandboxApi):
    @extend_schema(
        operation_id="createTransaction",
        parameters=[IDEMPOTENCY_HEADER],
        request=TransactionCreateIn,
        responses={
            201: OpenApiResponse(TransactionOut, description="Created, or replayed with x-idempotent-replayed"),
            **error_responses(400, 401, 403, 404),
        },
    )
    def post(self, request):
        key = request.headers.get("x-idempotency-key", "")
        if not re.fullmatch(IDEMPOTENCY_KEY_PATTERN[1:-1], key):
            raise validation_error(
                [
                    detail(
                        ["x-idempotency-key"],
                        "Required header: 1 to 255 printable ASCII characters, no spaces",
                        "header",
                    )
                ],
                message="Missing x-idempotency-key header",
            )
        status, body, replayed = transaction_create_idempotent(api_key=self.api_key, key=key, body=request.data)
        response = Response(body, status=status)
        if replayed:
            response["x-idempotent-replayed"] = "true"
        return response


class TransactionGetCancelApi(SandboxApi):
    @extend_schema(
        operation_id="getTransaction", responses={200: TransactionOut, **error_responses(400, 401, 403, 404)}
    )
    def get(self, request, transaction_id):
        tx = transaction_for_key(api_key=self.api_key, transaction_id=transaction_id)
        return Response(transaction_body(tx))

    @extend_schema(
        operation_id="cancelTransaction",
        responses={200: MessageOut, **error_responses(400, 401, 403, 404)},
        description="Only CREATED or AWAITING_TRANSFER transactions can be cancelled.",
    )
    def delete(self, request, transaction_id):
        tx = transaction_cancel(api_key=self.api_key, transaction_id=transaction_id)
        return Response({"message": f"Transaction {tx.pk} cancelled"})


# --- the test helpers' views, routed under test-helpers/ by sandbox/urls.py ---------------------


class TransactionDepositLinkApi(SandboxApi):
    @extend_schema(
        operation_id="testHelperTransactionDepositLink",
        summary="The hosted page that simulates the customer's transfer into an AWAITING_TRANSFER transaction",
        description="Whoever holds the link can simulate the deposit (AWAITING_TRANSFER -> PROCESSING): give it "
        "only to who would send the money.",
        tags=["Test helpers"],
        request=None,
        responses={200: DepositLinkOut, **error_responses(401, 403, 404)},
    )
    def post(self, request, transaction_id):
        tx = transaction_for_key(api_key=self.api_key, transaction_id=transaction_id)
        page = reverse("sandbox-deposit", kwargs={"token": deposit_token(tx)})
        return Response({"depositFormLink": request.build_absolute_uri(page)})


class TransactionAdvanceApi(SandboxApi):
    @extend_schema(
        operation_id="testHelperAdvanceTransaction",
        summary="Move a transaction one step: CREATED -> AWAITING_TRANSFER -> PROCESSING -> COMPLETED or FAILED; "
        "AWAITING_TRANSFER -> EXPIRED",
        tags=["Test helpers"],
        request=TransactionAdvanceIn,
        responses={200: TransactionOut, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request, transaction_id):
        data = validated(TransactionAdvanceIn, request.data)
        tx = transaction_advance(api_key=self.api_key, transaction_id=transaction_id, to=data["to"])
        return Response(transaction_body(tx))
