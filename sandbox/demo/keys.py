"""The demo's well-known API key and its organization."""

import uuid

from ..auth import key_hash
from ..models import ApiKey, Tier

# Well known on purpose: it opens only the demo organization of a local sandbox. It has the
# `sbx_<prefix>_<secret>` shape of sandbox.auth; its prefix is not hexadecimal, so no key made
# by create_key can take it.
DEMO_API_KEY = "sbx_demo0000000_embedded-sandbox-key-not-secret"
DEMO_ORGANIZATION_ID = uuid.UUID("de300000-5eed-4000-8000-000000000001")


def ensure_demo_key() -> ApiKey:
    """The ApiKey row of DEMO_API_KEY (standard tier, read-write, DEMO_ORGANIZATION_ID),
    created if absent and put right if someone changed it."""
    wanted = {
        "key_hash": key_hash(DEMO_API_KEY),
        "organization_id": DEMO_ORGANIZATION_ID,
        "tier": Tier.STANDARD,
        "read_only": False,
    }
    key, created = ApiKey.objects.get_or_create(prefix=DEMO_API_KEY.split("_")[1], defaults=wanted)
    if not created and any(getattr(key, name) != value for name, value in wanted.items()):
        for name, value in wanted.items():
            setattr(key, name, value)
        key.save(update_fields=list(wanted))
    return key
