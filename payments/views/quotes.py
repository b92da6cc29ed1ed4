"""Quote builder, live preview, the quote with its countdown, and Execute."""

from django.conf import settings
from django.contrib import messages
from django.http import QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods

from core.access import recent_auth_required, role_required
from core.together import fetch_together
from customers.models import Customer, CustomerStatus
from customers.selectors import customers_search
from paymentsapi import PaymentsApiError, ValidationFailed
from upstream.api_errors import api_error_message

from ..forms.transactions import ExecuteForm, PreviewForm, QuoteForm, quote_inputs
from ..models import ApprovalStatus, PaymentAccount, Quote, Transaction
from ..selectors import account_name, account_names, quote_accounts
from ..services.approvals import WaitingForApproval, execute_or_request_approval
from ..services.holds import AccountHeld
from ..services.quotes import exchange_rate_get, quote_create, quote_needs_approval, quote_usd_value
from .open_quotes import view_quote_of_transaction


def _active_customer(customer_id: str) -> Customer | None:
    if not customer_id or "\x00" in customer_id:  # straight from the form: PostgreSQL holds no NUL
        return None
    return Customer.objects.filter(customer_id=customer_id, status=CustomerStatus.ACTIVE).first()


def _quote_form(customer, data=None, initial=None) -> QuoteForm:
    sources, destinations = quote_accounts(customer=customer)
    return QuoteForm(data, initial=initial, customer=customer, sources=sources, destinations=destinations)


@role_required("move_money")
@require_http_methods(["GET", "POST"])
def create_quote(request):
    """The builder (GET) and the quote it asks for (POST). `customer` picks the customer; the
    other query parameters prefill the form (the accounts' choices follow them on every change)."""
    if request.method == "POST":
        return _create_quote(request)
    query = request.GET.get("q", "")
    customer_id = request.GET.get("customer", "")
    customer = _active_customer(customer_id)
    form = _quote_form(customer, initial=request.GET.dict()) if customer else None
    context = {
        "query": query,
        "results": customers_search(query=query),
        "customer": customer,
        "unknown_customer": bool(customer_id) and customer is None,
        "form": form,
    }
    template = "payments/quotes/new.html"
    if request.htmx and request.htmx.target in ("customer-results", "quote-form"):
        template += f"#{request.htmx.target}"
    return render(request, template, context)


@role_required("move_money")
@require_GET
def preview_quote(request):
    """The live preview: GET /exchange-rates for the builder's current inputs."""
    form = PreviewForm(request.GET)
    context = {"form": form}
    if form.is_valid():
        data = form.cleaned_data
        try:
            context["rate"] = exchange_rate_get(
                source_currency=data["source_currency"],
                source_method=data["source_method"],
                destination_method=data["destination_method"],
                destination_currency=data["destination_currency"],
                amount=data["amount"] or None,
                preview=True,
            )
        except PaymentsApiError as exc:
            context["error"] = api_error_message(exc, write=False)
        context["developer_fee"] = data["developer_fee"]
        context["source_currency"] = data["source_currency"]
        context["destination_currency"] = data["destination_currency"]
    return render(request, "payments/quotes/_preview.html", context)


def _put_api_errors(form: QuoteForm, exc: PaymentsApiError) -> None:
    if isinstance(exc, ValidationFailed):
        form.add_api_errors(exc.field_errors)
        if not exc.field_errors:
            form.add_error(None, exc.message)
    else:
        # A quote the API made but whose answer was lost simply expires: asking again is safe.
        form.add_error(None, api_error_message(exc, write=True, repeatable=True))


def _create_quote(request):
    customer = _active_customer(request.POST.get("customer", ""))
    if customer is None:
        messages.error(request, "Choose an active customer first.")
        return redirect("payments-create-quote")
    form = _quote_form(customer, data=request.POST)
    if form.is_valid():
        try:
            quote = quote_create(
                actor=request.user,
                customer=customer,
                terms=form.terms(),
                correlation_id=form.cleaned_data["correlation_id"],
            )
        except PaymentsApiError as exc:
            _put_api_errors(form, exc)
        except AccountHeld as exc:
            form.add_error(None, str(exc))
        else:
            return redirect("payments-view-quote", quote_id=quote.quote_id)
    context = {"customer": customer, "form": form, "results": [], "query": ""}
    return render(request, "payments/quotes/new.html", context)


def same_inputs_url(quote: Quote) -> str:
    params = QueryDict(mutable=True)
    params.update(quote_inputs(quote))
    return f"{reverse('payments-create-quote')}?{params.urlencode()}"


@role_required("view_payments")
@require_GET
def view_quote(request, quote_id):
    quote = Quote.objects.select_related("customer", "created_by").filter(quote_id=quote_id).first()
    if quote is None:
        # A quote made elsewhere (the API, an automation rule): its terms as its transaction carries them.
        return view_quote_of_transaction(request, quote_id)
    # The transaction that used it and the two accounts, in one query.
    used, accounts = fetch_together(
        Transaction.objects.filter(quote_id=quote.quote_id).order_by("pk")[:1],
        PaymentAccount.objects.filter(
            account_id__in=[i for i in (quote.source_account_id, quote.destination_account_id) if i]
        ).order_by("pk"),
    )
    context = {
        "quote": quote,
        "accounts": {account.account_id: account for account in accounts},
        "transaction": used[0] if used else None,
        "waiting": quote.approvals.filter(status=ApprovalStatus.PENDING, expires_at__gt=timezone.now())
        .select_related("maker")
        .first(),
        "execute_form": ExecuteForm(initial={"correlation_id": quote.correlation_id or ""}),
        "correlation_bound": quote.correlation_bound,
        "same_inputs_url": same_inputs_url(quote),
    }
    return render(request, "payments/quotes/show.html", context)


def _execute_context(quote: Quote, form: ExecuteForm) -> dict:
    names = account_names(quote.source_account_id, quote.destination_account_id)
    return {
        "quote": quote,
        "form": form,
        "source_name": account_name(names, quote.source_account_id),
        "destination_name": account_name(names, quote.destination_account_id),
        "usd_value": quote_usd_value(quote),
        "needs_approval": quote_needs_approval(quote),
        "threshold": settings.APPROVAL_THRESHOLD_USD,
        "transaction": Transaction.objects.filter(quote_id=quote.quote_id).first(),
        "correlation_bound": quote.correlation_bound,
    }


@role_required("move_money")
@recent_auth_required
@require_http_methods(["GET", "POST"])
def execute_quote(request, quote_id):
    """The confirmation (GET: who, from and to which accounts, how much, at what rate and fees,
    until when) and the execute (POST): one call (execute_or_request_approval) answers
    "executed" with the transaction, or, at or above APPROVAL_THRESHOLD_USD, "waiting for
    approval" with the request a second person decides. Below it, it executes exactly once:
    the quote's idempotency key goes with every execute of it (see services)."""
    quote = get_object_or_404(Quote.objects.select_related("customer"), quote_id=quote_id)
    if request.method == "GET":
        initial = {"correlation_id": quote.correlation_id or request.GET.get("correlation_id", "")}
        return render(request, "payments/quotes/execute.html", _execute_context(quote, ExecuteForm(initial=initial)))
    form = ExecuteForm(request.POST)
    if not form.is_valid():
        return render(request, "payments/quotes/execute.html", _execute_context(quote, form))
    try:
        outcome = execute_or_request_approval(
            actor=request.user, quote=quote, correlation_id=form.cleaned_data["correlation_id"]
        )
    except PaymentsApiError as exc:
        # The API may have made the transaction and lost the answer: the quote's key makes a retry safe.
        messages.error(request, api_error_message(exc, write=True, repeatable=True))
        return redirect("payments-view-quote", quote_id=quote.quote_id)
    except AccountHeld as exc:
        messages.error(request, str(exc))
        return redirect("payments-view-quote", quote_id=quote.quote_id)
    if isinstance(outcome, WaitingForApproval):
        messages.success(request, "Waiting for approval: another person holding move_money must approve it.")
        return redirect("payments-view-approval-request", pk=outcome.approval.pk)
    return redirect("payments-view-transaction", transaction_id=outcome.transaction.transaction_id)
