"""TOTP codes computed in tests, with allauth's own helpers (RFC 6238, 30-second steps)."""

import re
import time

from allauth.mfa.totp.internal.auth import format_hotp_value, hotp_value


def totp_code(secret: str) -> str:
    return format_hotp_value(hotp_value(secret, int(time.time()) // 30))


def secret_on_page(html: str) -> str:
    """The authenticator secret allauth's activation page shows beside its QR code."""
    return re.search(
        r'id="authenticator_secret"[^>]*value="([A-Z2-7]+)"|value="([A-Z2-7]+)"[^>]*id="authenticator_secret"', html
    ).group(1)
