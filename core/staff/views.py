"""The staff page of admins: who works here, with which roles, and the changes they make."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.views.decorators.http import require_GET

from ..access import recent_auth_required, role_required
from ..pagination import paginate_keyset
from ..roles import roles_of
from ..usernames import TAKEN
from . import services
from .forms import AddMemberForm, RolesForm
from .selectors import staff_with_status, with_lockouts

STAFF_PAGE_SIZE = 50


@role_required("manage_staff")
@require_GET
def list_staff(request):
    page = paginate_keyset(
        staff_with_status(), ordering=("username", "id"), cursor=request.GET.get("cursor"), size=STAFF_PAGE_SIZE
    )
    page.items = with_lockouts(page.items)
    return render(request, "core/staff/list_staff.html", {"page": page})


@role_required("manage_staff")
@require_GET
def view_staff(request, pk):
    [member] = with_lockouts([get_object_or_404(staff_with_status(), pk=pk)])
    return render(request, "core/staff/view_staff.html", {"member": member})


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
    return render(request, "core/staff/create_staff.html", {"form": form})


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
            return render(request, "core/staff/change_roles.html", {"member": member, "form": form}, status=409)
        if changed:
            messages.success(request, f"Roles of {member.get_username()} changed.")
        else:
            messages.info(request, f"{member.get_username()} already had these roles: nothing changed.")
        return redirect("core-view-staff", pk=member.pk)
    return render(request, "core/staff/change_roles.html", {"member": member, "form": form})


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


def _confirm(action: str):
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
                return redirect("core-view-staff", pk=member.pk)
        context = {"member": member, "verb": verb, "question": question, "error": error}
        return render(request, "core/staff/confirm.html", context, status=409 if error else 200)

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
    return render(request, "core/staff/confirm.html", context)


def _link_page(request, member, link: str):
    context = {
        "member": member,
        "link": link,
        "timeout_days": settings.PASSWORD_RESET_TIMEOUT // 86400,
        "emailed": settings.STAFF_EMAIL_LINKS and bool(member.email),
    }
    return render(request, "core/staff/password_link.html", context)


urlpatterns = [
    path("", list_staff, name="core-list-staff"),
    path("new", create_staff, name="core-create-staff"),
    path("<int:pk>/", view_staff, name="core-view-staff"),
    path("<int:pk>/roles", change_staff_roles, name="core-change-staff-roles"),
    path("<int:pk>/deactivate", _confirm("deactivate"), name="core-deactivate-staff"),
    path("<int:pk>/reactivate", _confirm("reactivate"), name="core-reactivate-staff"),
    path("<int:pk>/reset-mfa", _confirm("reset-mfa"), name="core-reset-staff-mfa"),
    path("<int:pk>/unlock", _confirm("unlock"), name="core-unlock-staff"),
    path("<int:pk>/password-link", create_password_link, name="core-create-staff-password-link"),
]
