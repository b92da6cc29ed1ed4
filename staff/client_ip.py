"""The client's address, for lockouts, rate limits, the audit log and logs.

Without a trusted proxy it is REMOTE_ADDR, the one address a client cannot forge: an
X-Forwarded-For header is then ignored. Behind proxies, each appends the address it saw to
X-Forwarded-For, so the header is read from the right, as far as the trusted proxies vouch
for it, and no further (what stands further left is whatever the client sent):

- TRUSTED_PROXY_COUNT = N (N proxies in front): the N-th address from the right;
- TRUSTED_PROXY_NETWORKS: from REMOTE_ADDR leftwards, the first address outside those networks.

A header shorter than the proxies it should have passed, or an entry that is no address,
gives the nearest address a trusted proxy vouches for. A few lines with `ipaddress`, not a
library: django-ipware / python-ipware guess (they prefer public addresses and the leftmost
entry by default), where a lockout key must not.
"""

import ipaddress

from django.conf import settings


def _address(text: str | None) -> str | None:
    try:
        return str(ipaddress.ip_address((text or "").strip()))
    except ValueError:
        return None


def _trusted(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    return any(ip in ipaddress.ip_network(network) for network in settings.TRUSTED_PROXY_NETWORKS)


def client_ip(request) -> str:
    """The address of the client of `request` (AXES_CLIENT_IP_CALLABLE, allauth's adapter)."""
    remote = _address(request.META.get("REMOTE_ADDR")) or ""
    hops = [hop for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    count = settings.TRUSTED_PROXY_COUNT
    if count:
        return (_address(hops[-count]) if len(hops) >= count else None) or remote
    address = remote
    while address and hops and _trusted(address):
        vouched = _address(hops.pop())
        if vouched is None:
            break
        address = vouched
    return address
