"""The customer picker's type-ahead: customers by name, e-mail or id, for any form or filter."""

from django.shortcuts import render
from django.views.decorators.http import require_GET

from core.access import role_required
from customers.selectors import customers_search


@role_required("view_payments")
@require_GET
def search_customers(request):
    query = request.GET.get("q", "")
    context = {
        "query": query,
        "results": customers_search(query=query, active_only=False),
        "target": request.GET.get("for", ""),
    }
    return render(request, "payments/_customer_picker_results.html", context)
