import sys

from django.contrib.sessions.exceptions import SessionInterrupted
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.shortcuts import render
from django.template import loader


def bad_request(request, exception=None):
    # A session deleted by a concurrent request (a logout, a deactivation, a second-factor
    # reset) while this one ran: the view may have done its work; say what happened. Rendered
    # without the request, as Django's own 400 is.
    ended = isinstance(exception, SessionInterrupted)
    return HttpResponse(loader.render_to_string("400.html", {"session_ended": ended}), status=400)


def permission_denied(request, exception=None):
    roles = getattr(exception, "roles", None)
    return render(request, "403.html", {"roles": roles}, status=403)


def csrf_failure(request, reason=""):
    return render(request, "403.html", {"csrf": True}, status=403)


def page_not_found(request, exception=None):
    return render(request, "404.html", status=404)


def server_error(request):
    # Called by Django inside its handler of the uncaught exception, so sys.exc_info() names it.
    # The database restarting (refused or dropped connections) is a wait, not a fault of ours:
    # 503 with Retry-After, which browsers show and the provider's webhook deliveries retry.
    # Rendered without the request: its context processors could read the database again.
    if isinstance(sys.exc_info()[1], (OperationalError, InterfaceError)):
        response = HttpResponse(loader.render_to_string("503.html"), status=503)
        response["Retry-After"] = "5"
        return response
    return render(request, "500.html", status=500)
