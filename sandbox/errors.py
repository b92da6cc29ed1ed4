"""Every error the sandbox answers has the spec's body: {message, code, details, statusCode}."""

import logging

from django.core.exceptions import RequestDataTooBig
from django.http import Http404, JsonResponse
from rest_framework import exceptions
from rest_framework.response import Response

log = logging.getLogger(__name__)


class ApiError(Exception):
    """Raise from services and views: ApiError(400, "BAD_REQUEST", "Quote ... has expired")."""

    def __init__(self, status: int, code: str, message: str, details=None):
        super().__init__(message)
        self.status, self.code, self.message, self.details = status, code, message, details


def bad_request(message: str, details=None) -> ApiError:
    return ApiError(400, "BAD_REQUEST", message, details)


def not_found(kind: str, record_id) -> ApiError:
    return ApiError(404, "NOT_FOUND", f"{kind} {record_id} not found")


def validation_error(details: list[dict], message: str = "Validation failed") -> ApiError:
    return ApiError(400, "VALIDATION_ERROR", message, details)


def detail(path, message: str, location: str = "body") -> dict:
    """One item of a VALIDATION_ERROR's details."""
    return {"path": list(path), "message": message, "location": location}


def error_body(status: int, code: str, message: str, details=None) -> dict:
    return {"message": message, "code": code, "details": details, "statusCode": status}


def error_response(status: int, code: str, message: str, details=None) -> JsonResponse:
    return JsonResponse(error_body(status, code, message, details), status=status)


def flatten(errors, path, location) -> list[dict]:
    """DRF's nested ValidationError detail -> [{path, message, location}]."""
    if isinstance(errors, dict):
        items = []
        for key, value in errors.items():
            sub = path if key == "non_field_errors" else [*path, key]
            items += flatten(value, sub, location)
        return items
    if isinstance(errors, list):
        if all(not isinstance(e, (dict, list)) for e in errors):
            return [detail(path, str(e), location) for e in errors]
        items = []
        for index, value in enumerate(errors):
            if value:
                items += flatten(value, [*path, index], location)
        return items
    return [detail(path, str(errors), location)]


def exception_handler(exc, context):
    """DRF exception handler for the sandbox views."""
    if isinstance(exc, ApiError):
        return Response(error_body(exc.status, exc.code, exc.message, exc.details), status=exc.status)
    if isinstance(exc, exceptions.ValidationError):
        location = getattr(exc, "location", "body")
        details = flatten(exc.detail, [], location)
        return Response(error_body(400, "VALIDATION_ERROR", "Validation failed", details), status=400)
    if isinstance(exc, exceptions.ParseError):
        return Response(error_body(400, "BAD_REQUEST", f"Malformed request body: {exc.detail}"), status=400)
    if isinstance(exc, RequestDataTooBig):
        return Response(error_body(413, "BAD_REQUEST", "Request body is larger than the 100 MB limit"), status=413)
    if isinstance(exc, (exceptions.NotAuthenticated, exceptions.AuthenticationFailed)):
        # A 401 names the scheme to use (RFC 9110); DRF leaves adding the header to the handler.
        headers = {"WWW-Authenticate": exc.auth_header} if getattr(exc, "auth_header", None) else None
        return Response(error_body(401, "UNAUTHORIZED", str(exc.detail)), status=401, headers=headers)
    if isinstance(exc, exceptions.PermissionDenied):
        return Response(error_body(403, "FORBIDDEN", str(exc.detail)), status=403)
    if isinstance(exc, (exceptions.NotFound, Http404)):
        return Response(error_body(404, "NOT_FOUND", str(exc) or "Not found"), status=404)
    if isinstance(exc, exceptions.MethodNotAllowed):
        return Response(error_body(405, "BAD_REQUEST", str(exc.detail)), status=405)
    if isinstance(exc, exceptions.UnsupportedMediaType):
        return Response(error_body(415, "BAD_REQUEST", str(exc.detail)), status=415)
    if isinstance(exc, exceptions.APIException):
        return Response(error_body(exc.status_code, "BAD_REQUEST", str(exc.detail)), status=exc.status_code)
    log.exception("Unexpected error in the sandbox")
    return Response(error_body(500, "INTERNAL_SERVER_ERROR", "Internal server error"), status=500)
