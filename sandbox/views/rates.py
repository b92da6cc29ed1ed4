"""GET /exchange-rates."""

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from ..api import SandboxApi
from ..errors import bad_request
from ..rates import amount_str, rate_str, table
from ..serializers.fields import validated
from ..serializers.quotes import ExchangeRateOut, ExchangeRateQuery
from .openapi import error_responses


class ExchangeRateGetApi(SandboxApi):
    @extend_schema(
        operation_id="getExchangeRate",
        parameters=[ExchangeRateQuery],
        responses={200: ExchangeRateOut, **error_responses(400, 401)},
        description="Without sourceAmount: exchangeRate and the FLAT fee. With it: also the PERCENTAGE fee, "
        "fees, and destinationAmount = (sourceAmount - service fee) x exchangeRate (no developer fee).",
    )
    def get(self, request):
        query = validated(ExchangeRateQuery, request.query_params, location="query")
        rates = table()
        src_method = rates.check_method(query["sourcePaymentMethod"], ["sourcePaymentMethod"], location="query")
        dst_method = rates.check_method(
            query["destinationPaymentMethod"], ["destinationPaymentMethod"], location="query"
        )
        if rates.is_chain(src_method) == rates.is_chain(dst_method):
            kind = "crypto" if rates.is_chain(src_method) else "fiat"
            raise bad_request(
                f"{src_method} -> {dst_method} is {kind} to {kind}: rates exist from fiat to crypto (onramp) "
                "and from crypto to fiat (offramp) only"
            )
        source = rates.resolve(src_method, query["sourceCurrency"], ["sourceCurrency"], location="query")
        destination = rates.resolve(dst_method, query["destinationCurrency"], ["destinationCurrency"], location="query")
        amount = None
        if "sourceAmount" in query:
            amount = query["sourceAmount"]
            rates.check_places(source, amount, ["sourceAmount"], location="query")
        pricing = rates.price(
            source=source,
            source_method=src_method,
            destination=destination,
            source_amount=amount,
            location="query",
        )
        body = {"exchangeRate": rate_str(pricing.exchange_rate), "feeComponents": pricing.fee_components()}
        if amount is not None:
            body["destinationAmount"] = amount_str(pricing.destination_amount)
            body["fees"] = pricing.fees(with_developer_fee=False)
        return Response(body)


urlpatterns = [path("exchange-rates", ExchangeRateGetApi.as_view(), name="sandbox-get-exchange-rate")]
