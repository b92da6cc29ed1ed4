"""The sandbox's index ({base_url}/) and the answer to a path no operation has."""

from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from ..errors import error_response


def index(request):
    return JsonResponse({"service": "Payments API sandbox", "version": "1.0.0", "openapi": "openapi.json"})


@csrf_exempt
def unknown_route(request):
    return error_response(404, "NOT_FOUND", f"No operation at {request.method} {request.path}")
