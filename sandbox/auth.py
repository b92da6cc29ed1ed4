"""Bearer API keys. A key is `sbx_<prefix>_<secret>`; the sandbox keeps its SHA-256 only."""

import hashlib
import hmac
import secrets

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework import authentication, exceptions, permissions

from .errors import ApiError
from .models import ApiKey, Tier


def create_key(*, organization_id=None, tier: str = Tier.STANDARD, read_only: bool = False) -> tuple[ApiKey, str]:
    """Make a key; the plain key is returned once and never stored."""
    prefix = secrets.token_hex(6)
    plain = f"sbx_{prefix}_{secrets.token_urlsafe(24)}"
    fields = {"prefix": prefix, "key_hash": key_hash(plain), "tier": tier, "read_only": read_only}
    if organization_id:
        fields["organization_id"] = organization_id
    return ApiKey.objects.create(**fields), plain


def key_hash(plain: str) -> str:
    """What the sandbox keeps of a key: its SHA-256, in hex."""
    return hashlib.sha256(plain.encode()).hexdigest()


def find_key(plain: str) -> ApiKey | None:
    parts = plain.split("_")
    if len(parts) < 3 or parts[0] != "sbx":
        return None
    key = ApiKey.objects.filter(prefix=parts[1]).first()
    if key and hmac.compare_digest(key.key_hash, key_hash(plain)):
        return key
    return None


def check_organization(api_key: ApiKey, organization_id) -> None:
    """A record of another organization is FORBIDDEN to this key."""
    if str(organization_id) != str(api_key.organization_id):
        raise ApiError(403, "FORBIDDEN", "This record belongs to another organization")


def check_body_size(request) -> None:
    """Refuse a body over DATA_UPLOAD_MAX_MEMORY_SIZE before anything reads it.

    Django checks that limit only in HttpRequest.body, and DRF's JSONParser reads the request
    stream directly, so without this check any size would be accepted.
    """
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if limit is not None and length > limit:
        raise RequestDataTooBig("Request body exceeded settings.DATA_UPLOAD_MAX_MEMORY_SIZE.")


class ApiKeyAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        # Authentication runs first on every sandbox view, before the body is parsed.
        check_body_size(request)
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        scheme, _, credential = header.partition(" ")
        if scheme.lower() != "bearer" or not credential.strip():
            raise exceptions.AuthenticationFailed("Authorization must be 'Bearer <API key>'")
        key = find_key(credential.strip())
        if key is None:
            raise exceptions.AuthenticationFailed("Invalid API key")
        return (None, key)

    def authenticate_header(self, request):
        return "Bearer"


class HasApiKey(permissions.BasePermission):
    """A key is needed; a read-only key may only read."""

    def has_permission(self, request, view):
        if not isinstance(request.auth, ApiKey):
            raise exceptions.NotAuthenticated("Missing API key: send 'Authorization: Bearer <API key>'")
        if request.auth.read_only and request.method not in permissions.SAFE_METHODS:
            raise exceptions.PermissionDenied("This API key is read-only")
        return True
