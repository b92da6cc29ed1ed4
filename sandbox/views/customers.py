"""Customers: POST/GET /customers, GET /customer/{id} and /customers/{id}, PATCH /customers/{id}."""

import base64
import binascii
import datetime as dt
import uuid

from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from ..api import SandboxApi
from ..errors import not_found
from ..models import Customer
from ..serializers.customers import (
    CustomerCreateSerializer,
    CustomerListSerializer,
    CustomerSerializer,
    CustomerUpdateSerializer,
)
from ..serializers.fields import QueryInteger, Text, Uuid, validated
from ..services.customers import customer_create, customer_get, customer_list, customer_update
from .openapi import error_responses

TAGS = ["Customers"]


def get_customer(api: SandboxApi, customer_id: str) -> Customer:
    """The customer of this id for this key: 404 if none, 403 if another organization's."""
    try:
        uuid.UUID(customer_id)
    except ValueError:
        raise not_found("Customer", customer_id) from None
    customer = customer_get(customer_id=customer_id)
    if customer is None:
        raise not_found("Customer", customer_id)
    api.check_organization(customer.organization_id)
    return customer


def validate_query(serializer_class, request) -> dict:
    return validated(serializer_class, request.query_params, location="query")


# --- Page tokens: opaque to the client, the (created_at, id) of the last row served ----------


def encode_page_token(customer: Customer) -> str:
    raw = f"{customer.created_at.isoformat()}|{customer.id}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_page_token(token: str) -> tuple[dt.datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        created_at, _, last_id = raw.partition("|")
        return dt.datetime.fromisoformat(created_at), str(uuid.UUID(last_id))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise serializers.ValidationError("Invalid page token: pass nextPageToken of the previous page.") from None


class PageTokenField(Text):
    def to_internal_value(self, data):
        return decode_page_token(super().to_internal_value(data))


class CustomerListQuerySerializer(serializers.Serializer):
    pageToken = PageTokenField(required=False, help_text="nextPageToken of the previous page")
    pageSize = QueryInteger(required=False, default=10, min_value=1, max_value=100)
    organizationId = Uuid(required=False, help_text="Only this organization's customers")


class CustomerReadQuerySerializer(serializers.Serializer):
    includePaymentMethods = serializers.BooleanField(
        required=False, default=False, help_text="true adds availablePaymentMethods"
    )


# --- Views -------------------------------------------------------------------------------------


class CustomerListCreateApi(SandboxApi):
    @extend_schema(
        operation_id="listCustomers",
        summary="List customers",
        tags=TAGS,
        parameters=[CustomerListQuerySerializer],
        responses={200: CustomerListSerializer, **error_responses(400, 401, 403)},
    )
    def get(self, request):
        query = validate_query(CustomerListQuerySerializer, request)
        if "organizationId" in query:
            self.check_organization(query["organizationId"])
        size = query["pageSize"]
        rows = customer_list(organization_id=self.api_key.organization_id, after=query.get("pageToken"), size=size)
        page = rows[:size]
        context = {"request": request, "payment_methods": True}
        return Response(
            {
                "customers": CustomerSerializer(page, many=True, context=context).data,
                "nextPageToken": encode_page_token(page[-1]) if len(rows) > size else None,
            }
        )

    @extend_schema(
        operation_id="createCustomer",
        summary="Create a customer",
        tags=TAGS,
        request=CustomerCreateSerializer,
        responses={201: CustomerSerializer, **error_responses(400, 401, 403, 413)},
    )
    def post(self, request):
        serializer = CustomerCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        customer = customer_create(api_key=self.api_key, data=serializer.validated_data)
        return Response(CustomerSerializer(customer, context={"request": request}).data, status=201)


class CustomerRetrieveApi(SandboxApi):
    """GET /customer/{customerId}, the path the spec's change history names."""

    @extend_schema(
        operation_id="getCustomer",
        summary="Get a customer",
        tags=TAGS,
        parameters=[CustomerReadQuerySerializer, OpenApiParameter("customerId", str, OpenApiParameter.PATH)],
        responses={200: CustomerSerializer, **error_responses(400, 401, 403, 404)},
    )
    def get(self, request, customerId):
        query = validate_query(CustomerReadQuerySerializer, request)
        customer = get_customer(self, customerId)
        context = {"request": request, "payment_methods": query["includePaymentMethods"]}
        return Response(CustomerSerializer(customer, context=context).data)


class CustomerDetailApi(CustomerRetrieveApi):
    """GET /customers/{customerId} (the same read) and PATCH /customers/{customerId}."""

    @extend_schema(
        operation_id="getCustomerByCustomersPath",
        summary="Get a customer (same as GET /customer/{customerId})",
        tags=TAGS,
        parameters=[CustomerReadQuerySerializer, OpenApiParameter("customerId", str, OpenApiParameter.PATH)],
        responses={200: CustomerSerializer, **error_responses(400, 401, 403, 404)},
    )
    def get(self, request, customerId):
        return super().get(request, customerId)

    @extend_schema(
        operation_id="updateCustomer",
        summary="Update a customer's KYC or KYB data",
        description="Any subset of kycData (INDIVIDUAL) or kybData (BUSINESS) fields; objects merge, "
        "arrays are replaced. Allowed in CREATED and NEEDS_ADDITIONAL_INFORMATION; changed data "
        "starts (or restarts) the review.",
        tags=TAGS,
        parameters=[OpenApiParameter("customerId", str, OpenApiParameter.PATH)],
        request=CustomerUpdateSerializer,
        responses={200: CustomerSerializer, **error_responses(400, 401, 403, 404, 413)},
    )
    def patch(self, request, customerId):
        customer = get_customer(self, customerId)
        serializer = CustomerUpdateSerializer(
            data=request.data, partial=True, context={"customer_type": customer.customer_type}
        )
        serializer.is_valid(raise_exception=True)
        customer = customer_update(customer=customer, data=serializer.validated_data)
        return Response(CustomerSerializer(customer, context={"request": request}).data)


urlpatterns = [
    path("customers", CustomerListCreateApi.as_view(), name="sandbox-list-create-customers"),
    path("customers/<str:customerId>", CustomerDetailApi.as_view(), name="sandbox-detail-customer"),
    path("customer/<str:customerId>", CustomerRetrieveApi.as_view(), name="sandbox-get-customer"),
]
