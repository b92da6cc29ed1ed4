"""Payment accounts: create, list, read, balance; the test helpers that fund one and complete a
pending bank account's form."""

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response

from ..api import SandboxApi
from ..rates import table
from ..serializers.accounts import (
    BalanceOut,
    BalanceQuery,
    BankAccountFormIn,
    FundIn,
    PaymentAccountCreateIn,
    PaymentAccountListOut,
    PaymentAccountListQuery,
    PaymentAccountOut,
)
from ..serializers.fields import validated
from ..services.accounts import (
    account_for_key,
    bank_account_form_complete,
    payment_account_body,
    payment_account_create,
    payment_account_list,
    pending_account_for_key,
)
from ..services.ledger import balance_body, balance_currency, payment_account_fund
from .openapi import error_responses


def forms_base(request) -> str:
    """Absolute {base_url}/forms/ as this request reached the sandbox."""
    return request.build_absolute_uri(reverse("sandbox-index")) + "forms/"


class PaymentAccountListCreateApi(SandboxApi):
    @extend_schema(
        operation_id="createPaymentAccount",
        request=PaymentAccountCreateIn,
        responses={201: PaymentAccountOut, **error_responses(400, 401, 403, 404)},
        description="A bank account without account and routing numbers is PENDING with an empty "
        "paymentAccountId and a bankAccountFormLink.",
    )
    def post(self, request):
        data = validated(PaymentAccountCreateIn, request.data)
        account = payment_account_create(api_key=self.api_key, data=data)
        return Response(payment_account_body(account, forms_base=forms_base(request)), status=201)

    @extend_schema(
        operation_id="listPaymentAccounts",
        parameters=[PaymentAccountListQuery],
        responses={200: PaymentAccountListOut, **error_responses(400, 401)},
    )
    def get(self, request):
        query = validated(PaymentAccountListQuery, request.query_params, location="query")
        page, token = payment_account_list(
            api_key=self.api_key,
            customer_id=query.get("customerId"),
            size=query["pageSize"],
            token=query.get("pageToken"),
        )
        base = forms_base(request)
        return Response(
            {"paymentAccounts": [payment_account_body(a, forms_base=base) for a in page], "nextPageToken": token}
        )


class PaymentAccountGetApi(SandboxApi):
    @extend_schema(
        operation_id="getPaymentAccount", responses={200: PaymentAccountOut, **error_responses(400, 401, 403, 404)}
    )
    def get(self, request, payment_account_id):
        account = account_for_key(api_key=self.api_key, account_id=payment_account_id)
        return Response(payment_account_body(account, forms_base=forms_base(request)))


class PaymentAccountBalanceApi(SandboxApi):
    @extend_schema(
        operation_id="getPaymentAccountBalance",
        parameters=[
            OpenApiParameter("chain", enum=list(table().chains), required=False),
            OpenApiParameter("currency", str, required=False, description="Label or contract address"),
        ],
        responses={200: BalanceOut, **error_responses(400, 401, 403, 404)},
    )
    def get(self, request, payment_account_id):
        query = validated(BalanceQuery, request.query_params, location="query")
        account = account_for_key(api_key=self.api_key, account_id=payment_account_id)
        currency = balance_currency(account=account, chain=query.get("chain"), currency=query.get("currency"))
        return Response(balance_body(account=account, currency=currency))


# --- the test helpers' views, routed under test-helpers/ by sandbox/urls.py ---------------------


class PaymentAccountFundApi(SandboxApi):
    @extend_schema(
        operation_id="testHelperFundPaymentAccount",
        summary="Credit an account's balance, as if funds had arrived",
        tags=["Test helpers"],
        request=FundIn,
        responses={200: BalanceOut, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request, payment_account_id):
        account = account_for_key(api_key=self.api_key, account_id=payment_account_id)
        data = validated(FundIn, request.data)
        body = payment_account_fund(
            account=account, chain=data.get("chain"), currency=data.get("currency"), amount=data["amount"]
        )
        return Response(body)


class BankAccountFormCompleteApi(SandboxApi):
    @extend_schema(
        operation_id="testHelperCompleteBankAccountForm",
        summary="Submit a pending bank account's hosted form: the account becomes ACTIVE",
        tags=["Test helpers"],
        request=BankAccountFormIn,
        responses={200: PaymentAccountOut, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request, form_token):
        pending_account_for_key(api_key=self.api_key, form_token=form_token)
        data = validated(BankAccountFormIn, request.data)
        account = bank_account_form_complete(form_token=form_token, data=data)
        return Response(payment_account_body(account, forms_base=forms_base(request)))
