"""Who a request comes from, as the limits and the audit log name it: the client's address behind our proxies, and
a digest that makes any text a client sends a short, valid cache key."""
import hashlib

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    """Return the client's address: the last ``TRUSTED_PROXY_COUNT`` hops of X-Forwarded-For are our own proxies.

    Anything a client writes into X-Forwarded-For itself stands before the hops the proxies append, so it is never
    taken for the address.
    """
    proxies = settings.TRUSTED_PROXY_COUNT
    if proxies:
        hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
        if len(hops) >= proxies:
            return hops[-proxies]
    return request.META.get("REMOTE_ADDR", "")


def digest(value: str) -> str:
    """A name or an address as typed, or as the client's hops give it, hashed: any text makes a short, valid cache
    key."""
    return hashlib.sha256(value.encode()).hexdigest()[:32]
