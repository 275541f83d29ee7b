"""Failed access codes per client address, with room for the typos of a school behind that address.

A code that found nobody counts against the client's address in a fixed window (django-ratelimit,
``RESPONDENT_LOGIN_FAILURE_RATE``, counted with that fixed rate); the address is refused once its count reaches its
ceiling: the rate's count, plus ``RESPONDENT_LOGIN_FAILURES_PER_LOGIN`` for each respondent who logged in from it in
the window, at most ``RESPONDENT_LOGIN_FAILURE_MAX``. The first refusal of a window is a ``LoginLimitHit``, shown on
the pages of the schools whose respondents logged in from the address, where it can be lifted. Why and what each
costs: docs/architecture.md, "Login limits"; taking/login_limits.py calls this with the client's address.
"""
import logging
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.cache import BaseCache, caches
from django.db import DatabaseError
from django.utils import timezone
from django_ratelimit.core import get_usage

from infra.clients import digest
from respondents.services import login_limit_hit_record

# django-ratelimit's group, as it was when the config package counted alone: counts carry over a deploy.
FAILURES_GROUP = "respondent-login-failures"
# Which schools logged in from an address: a few ids, kept a day after the last new one.
SCHOOLS_SECONDS = 24 * 3600
SCHOOLS_KEPT = 50

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class AddressLogins:
    """One client address in the current window: its failed codes, and (read only once they reach the rate's count,
    the ceiling's floor) the respondents who logged in from it and the failures a lift forgave."""

    address: str
    failures: int
    base: int
    seconds_left: int
    valid: int = 0
    forgiven: int = 0

    @property
    def ceiling(self) -> int:
        """The failed codes the address may send in this window."""
        return login_ceiling(base=self.base, valid=self.valid)

    @property
    def wait(self) -> int:
        """The seconds until the address may try again: 0 while it is under its ceiling."""
        if self.failures - self.forgiven < self.ceiling:
            return 0
        return max(1, self.seconds_left)


def login_ceiling(*, base: int, valid: int) -> int:
    """Return the failed codes allowed in a window to an address from which ``valid`` respondents logged in."""
    grown = base + settings.RESPONDENT_LOGIN_FAILURES_PER_LOGIN * valid
    return max(base, min(grown, settings.RESPONDENT_LOGIN_FAILURE_MAX))


def address_logins(*, address: str) -> AddressLogins | None:
    """Return how ``address`` stands in the current window, or None when the limits are off (or the counters'
    store is away: fail-open)."""
    return _counted(address, increment=False)


def address_login_failed(*, logins: AddressLogins | None) -> None:
    """Count a code from ``logins.address`` that found nobody; record the window's hit when it reaches the ceiling."""
    if logins is None:
        return
    address_login_refused(logins=_counted(logins.address, increment=True, known=logins))


def address_login_refused(*, logins: AddressLogins | None) -> None:
    """Record the window's ``LoginLimitHit`` of an address at its ceiling, once a window (the key lives as long as
    it) unless a lift forgot it. A hit the database cannot take (away for a moment) is logged and left to the next
    refused attempt: the login is answered as it would be, never with a 500."""
    if logins is None or not logins.wait:
        return
    counters = _counters()
    hit = _key("hit", logins.address)
    if not counters.add(hit, 1, timeout=max(1, logins.seconds_left)):
        return
    now = timezone.now()
    try:
        login_limit_hit_record(
            address=logins.address, limited_at=now, limited_until=now + timedelta(seconds=logins.seconds_left),
            failures=logins.failures - logins.forgiven, valid_logins=logins.valid, ceiling=logins.ceiling,
            school_ids=counters.get(_key("schools", logins.address)) or [],
        )
    except DatabaseError:
        counters.delete(hit)
        logger.exception("login limit hit of an address not recorded; the next refused attempt tries again")


def address_login_succeeded(*, logins: AddressLogins | None, respondent_id: int, school_id: int | None) -> None:
    """Count a respondent who logged in from ``logins.address`` (once in a window, however often they log in: a
    guesser's own code must not buy guesses), and note their school for the address's next hit."""
    if logins is None:
        return
    counters = _counters()
    ttl = logins.seconds_left + 1
    if not counters.add(f"{_key('seen', logins.address)}:{respondent_id}", 1, timeout=ttl):
        return
    valid = _key("valid", logins.address)
    try:
        counters.incr(valid)
    except ValueError:  # the window's first
        if not counters.add(valid, 1, timeout=ttl):
            counters.incr(valid)
    if school_id is not None:
        schools = _key("schools", logins.address)
        known = counters.get(schools) or []
        if school_id not in known:
            counters.set(schools, [school_id, *known][:SCHOOLS_KEPT], timeout=SCHOOLS_SECONDS)


def address_login_forgive(*, address: str) -> int:
    """Forget the failed codes ``address`` sent in the current window (a lift): its logins are let through at once,
    and a later hit in the window is recorded again. Return how many were forgiven."""
    logins = _counted(address, increment=False)
    if logins is None:
        return 0
    counters = _counters()
    counters.set(_key("forgiven", address), logins.failures, timeout=logins.seconds_left + 1)
    counters.delete(_key("hit", address))
    return logins.failures - logins.forgiven


def _counted(address: str, *, increment: bool, known: AddressLogins | None = None) -> AddressLogins | None:
    """Read (or count one more of) the address's failed codes; past the rate's count, read what raises the ceiling
    too (one read more), unless ``known`` read it already."""
    usage: dict[str, Any] | None = get_usage(
        None, group=FAILURES_GROUP, key=lambda group, request: address, rate=settings.RESPONDENT_LOGIN_FAILURE_RATE,
        increment=increment,
    )
    if usage is None:
        return None
    logins = AddressLogins(address=address, failures=usage["count"], base=usage["limit"],
                           seconds_left=max(0, usage["time_left"]))
    if logins.failures < logins.base:
        return logins  # under the least ceiling: nothing else to read
    if known is not None and known.failures >= known.base:
        return replace(logins, valid=known.valid, forgiven=known.forgiven)
    valid, forgiven = _key("valid", address), _key("forgiven", address)
    read = _counters().get_many([valid, forgiven])
    return replace(logins, valid=read.get(valid, 0), forgiven=read.get(forgiven, 0))


def _counters() -> BaseCache:
    return caches[settings.RATELIMIT_USE_CACHE]


def _key(kind: str, address: str) -> str:
    return f"respondent-login:{kind}:{digest(address)}"
