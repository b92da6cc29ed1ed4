"""The staff page of admins: who works here, with which roles, and the changes they make."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from audit.records import audit_record
from core.access import recent_auth_required, role_required, roles_of, staff_required
from core.views import paginate_keyset

from . import services
from .forms import AddMemberForm, RolesForm, TimeZoneForm
from .models import StaffPreference
from .selectors import staff_with_status, with_lockouts
from .timezones import remember, session_zone_name
from .usernames import TAKEN

STAFF_PAGE_SIZE = 50


@role_required("manage_staff")
@require_GET
def list_staff(request):
    page = paginate_keyset(
        staff_with_status(), ordering=("username", "id"), cursor=request.GET.get("cursor"), size=STAFF_PAGE_SIZE
    )
    page.items = with_lockouts(page.items)
    return render(request, "staff/list_staff.html", {"page": page})


@role_required("manage_staff")
@require_GET
def view_staff(request, pk):
    [member] = with_lockouts([get_object_or_404(staff_with_status(), pk=pk)])
    return render(request, "staff/view_staff.html", {"member": member})


@role_required("manage_staff")
@recent_auth_required
def create_staff(request):
    form = AddMemberForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            member = services.add_member(
                actor=request.user, username=data["username"], email=data["email"], roles=data["roles"]
            )
        except ValidationError as refused:
            form.add_error("username", refused)
        except IntegrityError:
            form.add_error("username", TAKEN)
        else:
            # Shown here once, never stored: the admin hands it over (or it is e-mailed).
            return _link_page(request, member, services.set_password_link(request.build_absolute_uri("/"), member))
    return render(request, "staff/create_staff.html", {"form": form})


@role_required("manage_staff")
@recent_auth_required
def change_staff_roles(request, pk):
    member = get_object_or_404(get_user_model(), pk=pk)
    form = RolesForm(request.POST if request.method == "POST" else None, initial={"roles": roles_of(member)})
    if request.method == "POST" and form.is_valid():
        try:
            changed = services.change_roles(actor=request.user, member=member, roles=form.cleaned_data["roles"])
        except services.Refused as refused:
            form.add_error(None, refused.message)
            return render(request, "staff/change_roles.html", {"member": member, "form": form}, status=409)
        if changed:
            messages.success(request, f"Roles of {member.get_username()} changed.")
        else:
            messages.info(request, f"{member.get_username()} already had these roles: nothing changed.")
        return redirect("staff-view-staff", pk=member.pk)
    return render(request, "staff/change_roles.html", {"member": member, "form": form})


# Actions that are one confirmation: (verb of the page, the question, the button, the service, done).
ACTIONS = {
    "deactivate": (
        "Deactivate",
        "They can no longer log in, and every session of theirs ends now.",
        services.deactivate,
        "{} is deactivated; their sessions have ended.",
    ),
    "reactivate": (
        "Reactivate",
        "They can log in again with their password or SSO.",
        services.reactivate,
        "{} is active again.",
    ),
    "reset-mfa": (
        "Reset the second factor of",
        "Their authenticator app, passkeys and recovery codes stop working; they enrol again at their next login.",
        services.reset_second_factor,
        "The second factor of {} is reset.",
    ),
    "unlock": (
        "Lift the lockout of",
        "The wrong passwords, codes and set-password links that locked them out are forgotten; they may try again at once.",
        services.lift_lockout,
        "The lockout of {} is lifted.",
    ),
}


def confirm_view(action: str):
    """The confirm page of one of ACTIONS, and its POST."""
    verb, question, service, done = ACTIONS[action]

    @role_required("manage_staff")
    @recent_auth_required
    def confirm(request, pk):
        member = get_object_or_404(get_user_model(), pk=pk)
        error = ""
        if request.method == "POST":
            try:
                service(actor=request.user, member=member)
            except services.Refused as refused:
                error = refused.message
            else:
                messages.success(request, done.format(member.get_username()))
                return redirect("staff-view-staff", pk=member.pk)
        context = {"member": member, "verb": verb, "question": question, "error": error}
        return render(request, "staff/confirm.html", context, status=409 if error else 200)

    confirm.__name__ = confirm.__qualname__ = f"{action.replace('-', '_')}_staff"
    return confirm


@role_required("manage_staff")
@recent_auth_required
def create_password_link(request, pk):
    """A new set-password link for a member who lost theirs (the old one dies with their password)."""
    member = get_object_or_404(get_user_model(), pk=pk)
    if request.method == "POST":
        link = services.set_password_link(request.build_absolute_uri("/"), member)
        services.record_password_link(actor=request.user, member=member)
        return _link_page(request, member, link)
    context = {
        "member": member,
        "verb": "Make a set-password link for",
        "question": "Their current password stops working once they choose a new one through the link.",
        "error": "",
    }
    return render(request, "staff/confirm.html", context)


def _link_page(request, member, link: str):
    context = {
        "member": member,
        "link": link,
        "timeout_days": settings.PASSWORD_RESET_TIMEOUT // 86400,
        "emailed": settings.STAFF_EMAIL_LINKS and bool(member.email),
    }
    return render(request, "staff/password_link.html", context)


@staff_required
@require_http_methods(["GET", "POST"])
def set_time_zone(request):
    """The zone times are shown in: the form, and its POST (also sent once by the browser with
    `detected=1` while the user has none, answered 204 without a message)."""
    detected = request.POST.get("detected") == "1"
    if request.method == "GET":
        form = TimeZoneForm(initial={"time_zone": session_zone_name(request) or "UTC"})
        return render(request, "staff/time_zone.html", {"form": form})
    form = TimeZoneForm(request.POST)
    if not form.is_valid():
        if detected:
            return HttpResponse(status=204)
        return render(request, "staff/time_zone.html", {"form": form}, status=400)
    name = form.cleaned_data["time_zone"]
    if detected and session_zone_name(request):
        return HttpResponse(status=204)  # a choice already kept wins over the browser's zone
    with transaction.atomic():
        StaffPreference.objects.update_or_create(user=request.user, defaults={"time_zone": name})
        audit_record(
            actor=request.user,
            action="user.set_time_zone",
            target_kind="user",
            target_id=request.user.pk,
            details={"time_zone": name, "detected": detected},
        )
    remember(request, name)
    if detected:
        return HttpResponse(status=204)
    messages.success(request, f"Times are now shown in {name}.")
    return redirect("staff-set-time-zone")
