"""A member's notifications (the list, the bell, their choices) and the team destinations
(admins: permission manage_staff). Every member may read their own; writes are POSTs with
CSRF, audited (notifications.services)."""

from django.conf import settings
from django.contrib import messages
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.access import role_required, staff_required
from core.live import live_response, live_url, token_user_id, version_of
from core.views import paginate_keyset

from . import services
from .forms import DestinationForm, PreferencesForm
from .kinds import kind_label
from .models import Delivery, Notification, TeamDestination

PAGE_SIZE = 50
# The destinations page lists this many of the newest failed deliveries.
FAILED_SHOWN = 50
ADMIN_PERMISSION = "manage_staff"


@staff_required
@require_GET
def list_notifications(request):
    page = paginate_keyset(
        Notification.objects.filter(recipient=request.user),
        ordering=("-id",),
        cursor=request.GET.get("cursor"),
        size=PAGE_SIZE,
    )
    return render(
        request,
        "notifications/list.html",
        {"page": page, "may_manage": request.user.has_perm(f"core.{ADMIN_PERMISSION}"), "kind_label": kind_label},
    )


@staff_required
@require_POST
def open_notification(request, pk):
    """Mark it read and go where the work is."""
    notification = get_object_or_404(Notification, pk=pk, recipient=request.user)
    services.notification_open(actor=request.user, notification=notification)
    link = notification.link
    if link and url_has_allowed_host_and_scheme(link, allowed_hosts={request.get_host()}) and link.startswith("/"):
        return HttpResponseRedirect(link)
    return redirect("notifications-list-notifications")


@staff_required
@require_POST
def read_all(request):
    done = services.notifications_read_all(actor=request.user)
    messages.success(
        request, f"{done} notification{'s' if done != 1 else ''} marked read." if done else "Nothing unread."
    )
    return redirect("notifications-list-notifications")


# --- The bell ------------------------------------------------------------------------------------


def bell_context(request, *, counted: bool = True) -> dict:
    """The bell's count and its poller's URL: one query on the unread partial index. Not
    `counted` (the page around it), no query: the count the cache keeps (services.
    cached_unread_count), or none and the bell asks for it once loaded; so a page costs what it
    cost before it had a bell."""
    if not counted:
        # The count the member's last write or poll left in the cache, else none (the first poll
        # brings it): shown without script, and without a query.
        known = services.cached_unread_count(request.user.pk)
        return {
            "bell_count": known,
            "bell_more": known is not None and known >= services.BELL_LIMIT,
            "bell_url": live_url(request, reverse("notifications-bell"), "", page_query=False),
        }
    ids = services.remembered_unread_ids(request.user.pk)
    version = version_of(ids[:1], len(ids))
    return {
        "bell_count": len(ids),
        "bell_more": len(ids) >= services.BELL_LIMIT,
        "bell_url": live_url(request, reverse("notifications-bell"), version, page_query=False),
        "bell_version": version,
    }


def bell_version(request) -> str | None:
    """The unchanged answer's version, before the session is read (core.live.LivePollMiddleware)."""
    user_id = token_user_id(request)
    if user_id is None:
        return None
    ids = services.unread_ids(user_id)
    return version_of(ids[:1], len(ids))


@staff_required
@require_GET
def bell(request):
    context = bell_context(request)
    return live_response(request, context["bell_version"], lambda: render(request, "notifications/bell.html", context))


bell.live_version = bell_version


# --- Preferences ---------------------------------------------------------------------------------


@staff_required
@require_http_methods(["GET", "POST"])
def preferences(request):
    current = services.choices_of(request.user)
    form = PreferencesForm(request.POST if request.method == "POST" else None, member=request.user, current=current)
    if request.method == "POST":
        if form.is_valid():
            changed = services.preferences_save(actor=request.user, choices=form.cleaned_data)
            messages.success(request, "Your choices are saved." if changed else "Nothing changed.")
            return redirect("notifications-preferences")
        status = 400
    else:
        status = 200
    return render(
        request,
        "notifications/preferences.html",
        {"form": form, "has_email": bool(request.user.email), "email_set_up": settings.STAFF_EMAIL_LINKS},
        status=status,
    )


# --- Team destinations (admins) ------------------------------------------------------------------


@role_required(ADMIN_PERMISSION)
@require_http_methods(["GET", "POST"])
def list_destinations(request):
    """The destinations, the form that adds one, and the failed deliveries with a retry each."""
    form = DestinationForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        destination = services.destination_save(
            actor=request.user, destination=form.save(commit=False), url=form.cleaned_data["url"]
        )
        messages.success(request, f"“{destination.name}” saved, ending …{destination.url_ending}.")
        return redirect("notifications-list-destinations")
    return _destinations_page(request, form, status=400 if request.method == "POST" else 200)


def _destinations_page(request, form, status=200, editing=None):
    failed = (
        Delivery.objects.filter(state=Delivery.State.FAILED)
        .select_related("destination", "member")
        .order_by("-id")[:FAILED_SHOWN]
    )
    return render(
        request,
        "notifications/destinations.html",
        {
            "destinations": TeamDestination.objects.all()[:200],
            "form": form,
            "editing": editing,
            "failed": failed,
            "kind_label": kind_label,
        },
        status=status,
    )


@role_required(ADMIN_PERMISSION)
@require_http_methods(["GET", "POST"])
def change_destination(request, pk):
    destination = get_object_or_404(TeamDestination, pk=pk)
    form = DestinationForm(request.POST if request.method == "POST" else None, instance=destination)
    if request.method == "POST" and form.is_valid():
        services.destination_save(actor=request.user, destination=form.save(commit=False), url=form.cleaned_data["url"])
        messages.success(request, f"“{destination.name}” saved, ending …{destination.url_ending}.")
        return redirect("notifications-list-destinations")
    return _destinations_page(request, form, status=400 if request.method == "POST" else 200, editing=destination)


@role_required(ADMIN_PERMISSION)
@require_POST
def test_destination(request, pk):
    destination = get_object_or_404(TeamDestination, pk=pk)
    delivery = services.destination_test(actor=request.user, destination=destination)
    delivery.refresh_from_db()
    if delivery.state == Delivery.State.SENT:
        messages.success(request, f"A test message went to “{destination.name}”.")
    elif delivery.state == Delivery.State.FAILED:
        messages.error(request, f"The test message to “{destination.name}” failed: {delivery.last_error}")
    else:
        messages.info(request, f"A test message to “{destination.name}” is on its way; a failure will show below.")
    return redirect("notifications-list-destinations")


@role_required(ADMIN_PERMISSION)
@require_POST
def retry_delivery(request, pk):
    delivery = get_object_or_404(Delivery, pk=pk)
    if services.delivery_retry(actor=request.user, delivery=delivery):
        messages.success(request, "Sent again: its tries start anew.")
    else:
        messages.info(request, "That delivery is no longer failed.")
    return redirect("notifications-list-destinations")
