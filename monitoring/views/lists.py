"""Watch lists: the list, an import (a new list or a list again), a list's page."""

from django.contrib import messages
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from audit.records import audit_record
from core.access import role_required
from core.views import page_or_partial

from .. import importers, tasks
from ..forms import ImportForm
from ..models import WatchList


@role_required("view_monitoring")
@require_GET
def list_watchlists(request):
    return render(request, "monitoring/lists/list.html", {"lists": _watchlists(), "form": ImportForm()})


def _watchlists():
    return WatchList.objects.select_related("imported_by").order_by("name")[:200]


def _import(request, watchlist, form):
    data = form.cleaned_data
    uploads = {k: data.get(k).read() if data.get(k) else b"" for k in ("main", "aliases", "addresses")}
    try:
        entries = importers.read_files(data.get("format") or "", **uploads)
    except importers.ImportRefused as exc:
        form.add_error("main", str(exc))
        return None
    with transaction.atomic():
        if watchlist is None:
            fmt = data.get("format") or importers.format_of(uploads["main"])
            watchlist = WatchList.objects.create(name=data["name"], format=fmt)
        watchlist.match_threshold = data["match_threshold"]
        watchlist.save(update_fields=["match_threshold"])
        watchlist = importers.import_entries(watchlist, entries, user=request.user)
        audit_record(
            actor=request.user,
            action="monitoring.list_import",
            target_kind="watchlist",
            target_id=watchlist.pk,
            details={"entries": watchlist.entry_count, "addresses": watchlist.address_count},
        )
        WatchList.objects.filter(pk=watchlist.pk).update(screening_status="queued")
        list_pk = watchlist.pk
        transaction.on_commit(lambda: tasks.rescreen_mirror.delay(list_pk))
    return watchlist


@role_required("manage_monitoring")
@require_POST
def import_watchlist(request):
    form = ImportForm(request.POST, request.FILES, new=True)
    if form.is_valid():
        if WatchList.objects.filter(name=form.cleaned_data["name"]).exists():
            form.add_error("name", "A list has this name already: import into it from its page.")
        else:
            watchlist = _import(request, None, form)
            if watchlist is not None:
                messages.success(request, f"Imported {watchlist.entry_count} entries; the mirror is screened again.")
                return redirect("monitoring-view-watchlist", pk=watchlist.pk)
    return render(request, "monitoring/lists/list.html", {"lists": _watchlists(), "form": form}, status=400)


def _watchlist_page(request, watchlist, form, status=200):
    entries = watchlist.entries.order_by("name", "pk")[:50]
    template = page_or_partial(request, "monitoring/lists/show.html", "progress")
    return render(request, template, {"watchlist": watchlist, "entries": entries, "form": form}, status=status)


@role_required("view_monitoring")
@require_GET
def view_watchlist(request, pk):
    watchlist = get_object_or_404(WatchList.objects.select_related("imported_by"), pk=pk)
    return _watchlist_page(
        request, watchlist, ImportForm(new=False, initial={"match_threshold": watchlist.match_threshold})
    )


@role_required("manage_monitoring")
@require_POST
def reimport_watchlist(request, pk):
    """A new edition of the list's file(s): its entries replaced, the mirror screened again."""
    watchlist = get_object_or_404(WatchList.objects.select_related("imported_by"), pk=pk)
    form = ImportForm(request.POST, request.FILES, new=False)
    if form.is_valid() and _import(request, watchlist, form) is not None:
        messages.success(request, "Imported again; the mirror is screened again.")
        return redirect("monitoring-view-watchlist", pk=watchlist.pk)
    return _watchlist_page(request, watchlist, form, status=400)
