"""Webhook endpoints: POST/GET /webhooks, GET/DELETE /webhooks/{webhookId},
GET /webhooks/{webhookId}/deliveries (docs/decisions/sandbox-webhooks.md)."""

import uuid

from django.urls import path
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from ..api import SandboxApi
from ..models import WebhookEndpoint
from ..serializers.fields import QueryInteger
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
    webhook_endpoint_get,
    webhook_endpoint_list,
)
from .customers import PageTokenField, encode_page_token, validate_query
from .openapi import error_responses

TAGS = ["Webhooks"]
WEBHOOK_ID = OpenApiParameter("webhookId", uuid.UUID, OpenApiParameter.PATH, description="webhookId of the endpoint")


class PageQuery(serializers.Serializer):
    pageToken = PageTokenField(required=False, help_text="nextPageToken of the previous page")
    pageSize = QueryInteger(required=False, default=10, min_value=1, max_value=100)


def get_endpoint(api: SandboxApi, webhook_id) -> WebhookEndpoint:
    """The endpoint of this id for this key: 404 if none, 403 if another organization's."""
    endpoint = webhook_endpoint_get(webhook_id=webhook_id)
    api.check_organization(endpoint.organization_id)
    return endpoint


def page(rows: list, size: int) -> tuple[list, str | None]:
    """The page and its nextPageToken, from the size + 1 rows a list service answers."""
    return rows[:size], encode_page_token(rows[size - 1]) if len(rows) > size else None


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
        serializer = WebhookEndpointCreateIn(data=request.data)
        serializer.is_valid(raise_exception=True)
        endpoint = webhook_endpoint_create(organization_id=self.api_key.organization_id, **serializer.validated_data)
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
        query = validate_query(PageQuery, request)
        rows = webhook_endpoint_list(
            organization_id=self.api_key.organization_id, after=query.get("pageToken"), size=query["pageSize"]
        )
        endpoints, token = page(rows, query["pageSize"])
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
        return Response(WebhookEndpointOut(get_endpoint(self, webhookId)).data)

    @extend_schema(
        operation_id="deleteWebhook",
        summary="Delete a webhook endpoint",
        description="204 with no body. Its deliveries are deleted too; retries still pending are not sent.",
        tags=TAGS,
        parameters=[WEBHOOK_ID],
        responses={204: OpenApiResponse(description="Deleted"), **error_responses(401, 403, 404)},
    )
    def delete(self, request, webhookId):
        webhook_endpoint_delete(endpoint=get_endpoint(self, webhookId))
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
        endpoint = get_endpoint(self, webhookId)
        query = validate_query(PageQuery, request)
        rows = delivery_list(endpoint=endpoint, after=query.get("pageToken"), size=query["pageSize"])
        deliveries, token = page(rows, query["pageSize"])
        return Response({"deliveries": DeliveryOut(deliveries, many=True).data, "nextPageToken": token})


urlpatterns = [
    path("webhooks", WebhookListCreateApi.as_view(), name="sandbox-list-create-webhooks"),
    path("webhooks/<uuid:webhookId>", WebhookDetailApi.as_view(), name="sandbox-detail-webhook"),
    path(
        "webhooks/<uuid:webhookId>/deliveries",
        WebhookDeliveryListApi.as_view(),
        name="sandbox-list-webhook-deliveries",
    ),
]
