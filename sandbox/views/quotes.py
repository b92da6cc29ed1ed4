"""POST /quotes."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from ..api import SandboxApi
from ..serializers.fields import validated
from ..serializers.quotes import QuoteCreateIn, QuoteOut
from ..services.quotes import quote_body, quote_create
from .openapi import error_responses


class QuoteCreateApi(SandboxApi):
    @extend_schema(
        operation_id="createQuote",
        request=QuoteCreateIn,
        responses={201: QuoteOut, **error_responses(400, 401, 403, 404)},
        description="Valid for 5 minutes on the sandbox clock; one transaction per quote.",
    )
    def post(self, request):
        quote = quote_create(api_key=self.api_key, data=validated(QuoteCreateIn, request.data))
        return Response(quote_body(quote), status=201)
