"""Webhook endpoints: POST/GET /webhooks, GET/DELETE /webhooks/{webhookId},
GET /webhooks/{webhookId}/deliveries (docs/decisions/sandbox-webhooks.md)."""

import uuid

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.response import Response

from ..api import SandboxApi
from ..serializers.fields import validated
from ..serializers.pages import PageQuery
from ..serializers.webhooks import (
    DeliveryListOut,
    DeliveryOut,
    WebhookEndpointCreatedOut,
    WebhookEndpointCreateIn,
    WebhookEndpointListOut,
    WebhookEndpointOut,
)
from ..services.webhooks import (
    delivery_list,
    webhook_endpoint_create,
    webhook_endpoint_delete,
    webhook_endpoint_for_key,
    webhook_endpoint_list,
)
from .openapi import error_responses

TAGS = ["Webhooks"]
WEBHOOK_ID = OpenApiParameter("webhookId", uuid.UUID, OpenApiParameter.PATH, description="webhookId of the endpoint")


class WebhookListCreateApi(SandboxApi):
    @extend_schema(
        operation_id="createWebhook",
        summary="Create a webhook endpoint",
        description="Answers the endpoint with its signing `secret`, which no later read shows. "
        "Deliveries are signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature).",
        tags=TAGS,
        request=WebhookEndpointCreateIn,
        responses={201: WebhookEndpointCreatedOut, **error_responses(400, 401, 403, 413)},
    )
    def post(self, request):
        data = validated(WebhookEndpointCreateIn, request.data)
        endpoint = webhook_endpoint_create(organization_id=self.api_key.organization_id, **data)
        return Response(WebhookEndpointCreatedOut(endpoint).data, status=201)

    @extend_schema(
        operation_id="listWebhooks",
        summary="List webhook endpoints",
        description="The key's organization's endpoints, oldest first. Secrets are not shown.",
        tags=TAGS,
        parameters=[PageQuery],
        responses={200: WebhookEndpointListOut, **error_responses(400, 401)},
    )
    def get(self, request):
        query = validated(PageQuery, request.query_params, location="query")
        endpoints, token = webhook_endpoint_list(
            organization_id=self.api_key.organization_id, token=query.get("pageToken"), size=query["pageSize"]
        )
        return Response({"webhooks": WebhookEndpointOut(endpoints, many=True).data, "nextPageToken": token})


class WebhookDetailApi(SandboxApi):
    @extend_schema(
        operation_id="getWebhook",
        summary="Get a webhook endpoint",
        tags=TAGS,
        parameters=[WEBHOOK_ID],
        responses={200: WebhookEndpointOut, **error_responses(401, 403, 404)},
    )
    def get(self, request, webhookId):
        return Response(WebhookEndpointOut(webhook_endpoint_for_key(api_key=self.api_key, webhook_id=webhookId)).data)

    @extend_schema(
        operation_id="deleteWebhook",
        summary="Delete a webhook endpoint",
        description="204 with no body. Its deliveries are deleted too; retries still pending are not sent.",
        tags=TAGS,
        parameters=[WEBHOOK_ID],
        responses={204: OpenApiResponse(description="Deleted"), **error_responses(401, 403, 404)},
    )
    def delete(self, request, webhookId):
        webhook_endpoint_delete(endpoint=webhook_endpoint_for_key(api_key=self.api_key, webhook_id=webhookId))
        return Response(status=204)


class WebhookDeliveryListApi(SandboxApi):
    @extend_schema(
        operation_id="listWebhookDeliveries",
        summary="List an endpoint's deliveries",
        description="Newest first. A delivery is one event to this endpoint: PENDING, then SUCCEEDED on a "
        "2xx, or RETRYING with exponential backoff (5 s * 4^(n-1) after the n-th failure) until FAILED "
        "after 8 attempts.",
        tags=TAGS,
        parameters=[WEBHOOK_ID, PageQuery],
        responses={200: DeliveryListOut, **error_responses(400, 401, 403, 404)},
    )
    def get(self, request, webhookId):
        endpoint = webhook_endpoint_for_key(api_key=self.api_key, webhook_id=webhookId)
        query = validated(PageQuery, request.query_params, location="query")
        deliveries, token = delivery_list(endpoint=endpoint, token=query.get("pageToken"), size=query["pageSize"])
        return Response({"deliveries": DeliveryOut(deliveries, many=True).data, "nextPageToken": token})
