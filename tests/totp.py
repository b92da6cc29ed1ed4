"""TOTP codes computed in tests, with allauth's own helpers (RFC 6238, 30-second steps)."""

import re
import time

from allauth.mfa.totp.internal.auth import format_hotp_value, hotp_value

STEP = 30


def totp_code(secret: str, *, valid_for: float = 3) -> str:
    """The code of the current step, once at least `valid_for` seconds of the step are left:
    allauth accepts the current step only (MFA_TOTP_TOLERANCE 0), so a code computed at the
    end of a step would be refused when it arrives in the next one."""
    left = STEP - time.time() % STEP
    if left < valid_for:
        time.sleep(left + 0.05)
    return format_hotp_value(hotp_value(secret, int(time.time()) // STEP))


def secret_on_page(html: str) -> str:
    """The authenticator secret allauth's activation page shows beside its QR code."""
    return re.search(
        r'id="authenticator_secret"[^>]*value="([A-Z2-7]+)"|value="([A-Z2-7]+)"[^>]*id="authenticator_secret"', html
    ).group(1)
