"""Customers: POST/GET /customers, GET /customer/{id} and /customers/{id}, PATCH /customers/{id};
the test helpers that review and deactivate one."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response

from ..api import SandboxApi
from ..auth import check_organization
from ..serializers.customers import (
    CustomerCreateSerializer,
    CustomerListQuerySerializer,
    CustomerListSerializer,
    CustomerReadQuerySerializer,
    CustomerReviewSerializer,
    CustomerSerializer,
    CustomerUpdateSerializer,
)
from ..serializers.fields import validated
from ..services.customers import (
    customer_create,
    customer_deactivate,
    customer_get,
    customer_list,
    customer_review,
    customer_update,
)
from .openapi import error_responses

TAGS = ["Customers"]
CUSTOMER_ID = OpenApiParameter("customerId", str, OpenApiParameter.PATH)


def read_schema(operation_id: str, summary: str):
    """The document of a single read: both paths of it answer the same."""
    return extend_schema(
        operation_id=operation_id,
        summary=summary,
        tags=TAGS,
        parameters=[CustomerReadQuerySerializer, CUSTOMER_ID],
        responses={200: CustomerSerializer, **error_responses(400, 401, 403, 404)},
    )


class CustomerListCreateApi(SandboxApi):
    @extend_schema(
        operation_id="listCustomers",
        summary="List customers",
        tags=TAGS,
        parameters=[CustomerListQuerySerializer],
        responses={200: CustomerListSerializer, **error_responses(400, 401, 403)},
    )
    def get(self, request):
        query = validated(CustomerListQuerySerializer, request.query_params, location="query")
        if "organizationId" in query:
            check_organization(self.api_key, query["organizationId"])
        page, token = customer_list(
            organization_id=self.api_key.organization_id, token=query.get("pageToken"), size=query["pageSize"]
        )
        context = {"request": request, "payment_methods": True}
        return Response(
            {"customers": CustomerSerializer(page, many=True, context=context).data, "nextPageToken": token}
        )

    @extend_schema(
        operation_id="createCustomer",
        summary="Create a customer",
        tags=TAGS,
        request=CustomerCreateSerializer,
        responses={201: CustomerSerializer, **error_responses(400, 401, 403, 413)},
    )
    def post(self, request):
        customer = customer_create(api_key=self.api_key, data=validated(CustomerCreateSerializer, request.data))
        return Response(CustomerSerializer(customer, context={"request": request}).data, status=201)


class CustomerRetrieveApi(SandboxApi):
    """GET /customer/{customerId}, the path the spec's change history names."""

    @read_schema("getCustomer", "Get a customer")
    def get(self, request, customerId):
        query = validated(CustomerReadQuerySerializer, request.query_params, location="query")
        customer = customer_get(api_key=self.api_key, customer_id=customerId)
        context = {"request": request, "payment_methods": query["includePaymentMethods"]}
        return Response(CustomerSerializer(customer, context=context).data)


class CustomerDetailApi(CustomerRetrieveApi):
    """GET /customers/{customerId} (the same read) and PATCH /customers/{customerId}."""

    @read_schema("getCustomerByCustomersPath", "Get a customer (same as GET /customer/{customerId})")
    def get(self, request, customerId):
        return super().get(request, customerId)

    @extend_schema(
        operation_id="updateCustomer",
        summary="Update a customer's KYC or KYB data",
        description="Any subset of kycData (INDIVIDUAL) or kybData (BUSINESS) fields; objects merge, "
        "arrays are replaced. Allowed in CREATED and NEEDS_ADDITIONAL_INFORMATION; changed data "
        "starts (or restarts) the review.",
        tags=TAGS,
        parameters=[CUSTOMER_ID],
        request=CustomerUpdateSerializer,
        responses={200: CustomerSerializer, **error_responses(400, 401, 403, 404, 413)},
    )
    def patch(self, request, customerId):
        customer = customer_get(api_key=self.api_key, customer_id=customerId)
        data = validated(
            CustomerUpdateSerializer, request.data, partial=True, context={"customer_type": customer.customer_type}
        )
        customer = customer_update(customer=customer, data=data)
        return Response(CustomerSerializer(customer, context={"request": request}).data)


# --- the test helpers' views, routed under test-helpers/ by sandbox/urls.py ---------------------


class CustomerReviewApi(SandboxApi):
    @extend_schema(
        operation_id="testHelperReviewCustomer",
        summary="Decide the review of an UNDER_REVIEW customer",
        tags=["Test helpers"],
        parameters=[CUSTOMER_ID],
        request=CustomerReviewSerializer,
        responses={200: CustomerSerializer, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request, customerId):
        customer = customer_get(api_key=self.api_key, customer_id=customerId)
        customer = customer_review(customer=customer, **validated(CustomerReviewSerializer, request.data))
        return Response(CustomerSerializer(customer, context={"request": request}).data)


class CustomerDeactivateApi(SandboxApi):
    @extend_schema(
        operation_id="testHelperDeactivateCustomer",
        summary="Deactivate an ACTIVE customer",
        tags=["Test helpers"],
        parameters=[CUSTOMER_ID],
        request=None,
        responses={200: CustomerSerializer, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request, customerId):
        customer = customer_deactivate(customer=customer_get(api_key=self.api_key, customer_id=customerId))
        return Response(CustomerSerializer(customer, context={"request": request}).data)
