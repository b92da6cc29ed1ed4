"""Quotes to find again: the open ones (unused, not expired), and the page of a quote made
elsewhere, from the terms its transaction carries."""

from django.db.models import Exists, OuterRef
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_GET

from core.access import role_required
from core.views import paginate_keyset

from ..models import Quote, Transaction
from ..selectors import accounts_by_id, rule_of_transaction

PAGE_SIZE = 50


def open_quotes():
    """Quotes made here that no transaction used and that have not expired, soonest to expire first."""
    used = Transaction.objects.filter(quote_id=OuterRef("quote_id"))
    return (
        Quote.objects.select_related("customer", "created_by")
        .filter(expires_at__gt=timezone.now())
        .exclude(Exists(used))
    )


@role_required("view_payments")
@require_GET
def list_open_quotes(request):
    page = paginate_keyset(
        open_quotes(), ordering=("expires_at", "id"), cursor=request.GET.get("cursor"), size=PAGE_SIZE
    )
    ends = [end for q in page.items for end in (q.source_account_id, q.destination_account_id)]
    context = {"page": page, "accounts": accounts_by_id(*ends)}
    return render(request, "payments/quotes/list.html", context)


def view_quote_of_transaction(request, quote_id):
    """The terms of a quote this back-office did not make, as its transaction carries them
    (404 when no mirrored transaction used it either). Called by view_quote, which checks the role."""
    tx = get_object_or_404(Transaction.objects.select_related("customer"), quote_id=quote_id)
    context = {
        "quote_id": quote_id,
        "tx": tx,
        "accounts": accounts_by_id(tx.source_account_id, tx.destination_account_id),
        "rule": rule_of_transaction(tx),
    }
    return render(request, "payments/quotes/from_transaction.html", context)
