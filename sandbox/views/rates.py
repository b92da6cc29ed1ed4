"""GET /exchange-rates, and the test helper that moves a rate."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from ..api import SandboxApi
from ..serializers.fields import validated
from ..serializers.quotes import ExchangeRateOut, ExchangeRateQuery, RateShiftIn, RateShiftOut
from ..services.quotes import exchange_rate_body, exchange_rate_shift
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
        body = exchange_rate_body(
            source_method=query["sourcePaymentMethod"],
            source_currency=query["sourceCurrency"],
            destination_method=query["destinationPaymentMethod"],
            destination_currency=query["destinationCurrency"],
            source_amount=query.get("sourceAmount"),
        )
        return Response(body)


class RateShiftApi(SandboxApi):
    @extend_schema(
        operation_id="testHelperShiftExchangeRate",
        summary="Move a currency's rate off the snapshot",
        description="Sets how many basis points the currency's units per USD move off the fixed snapshot, for "
        "every later rate and quote (0 puts it back): the market moving, to test what follows a price change.",
        tags=["Test helpers"],
        request=RateShiftIn,
        responses={200: RateShiftOut, **error_responses(400, 401)},
    )
    def post(self, request):
        data = validated(RateShiftIn, request.data)
        return Response(exchange_rate_shift(currency=data["currency"], bps=data["bps"]))
