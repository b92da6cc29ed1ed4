"""The search box's page (/search/?q=…) and its drop-down of results while typing."""

from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from core.access import staff_required

from .kinds import KINDS
from .query import MIN_LENGTH, Query
from .results import DROPDOWN_LIMIT, KIND_LIMIT, PAGE_LIMIT, exact_match, kinds_for, search


@staff_required
@require_GET
def search_records(request):
    q = Query.parse(request.GET.get("q"))
    only = request.GET.get("kind", "")
    only = only if only in {kind.key for kind in KINDS} else ""
    if request.htmx and not only:
        groups = search(request.user, q, limit=DROPDOWN_LIMIT)
        return render(request, "search/_dropdown.html", {"q": q, "groups": groups, "min_length": MIN_LENGTH})
    groups = search(request.user, q, limit=KIND_LIMIT if only else PAGE_LIMIT, only=only)
    if not only and (hit := exact_match(groups)):
        return redirect(hit.url)
    context = {
        "q": q,
        "groups": groups,
        "only": only,
        "min_length": MIN_LENGTH,
        "searched": [kind.title for kind in kinds_for(request.user) if not only or kind.key == only],
    }
    return render(request, "search/results.html", context)
