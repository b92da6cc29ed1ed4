"""Exchange-rate calculator: any rail or chain pair of the spec, with or without an amount."""

from django.shortcuts import render
from django.views.decorators.http import require_GET

from core.access import role_required
from core.views import page_or_partial
from paymentsapi import PaymentsApiError, ValidationFailed
from upstream.api_errors import api_error_message

from ..forms.rates import ExchangeRateForm
from ..rails import FIAT_CURRENCIES, TOKENS
from ..services.quotes import exchange_rate_get


@role_required("view_payments")
@require_GET
def calculate_exchange_rate(request):
    # A GET form: the result has an address that can be shared and reloaded.
    form = ExchangeRateForm(request.GET or None)
    result, error = None, ""
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        try:
            result = exchange_rate_get(
                source_currency=data["source_currency"],
                source_method=data["source_payment_method"],
                destination_method=data["destination_payment_method"],
                destination_currency=data["destination_currency"],
                amount=data["source_amount"],
            )
        except ValidationFailed as exc:
            form.add_api_errors(exc.field_errors)
        except PaymentsApiError as exc:
            error = api_error_message(exc, write=False)
    template = page_or_partial(request, "payments/rates/calculator.html", "calculator")
    context = {"form": form, "result": result, "error": error, "currencies": [*TOKENS, *FIAT_CURRENCIES]}
    return render(request, template, context)
