"""Staff and ``/admin/`` sign-in limits: paused per account at one address (django-axes), slowed per account and
per address (``StaffSignInDelayBackend``), never locked for their owner, and a browser that signed in before trusted
(the device cookie). Why, and what each costs: docs/architecture.md, "Login limits"; staff/signals.py audits every
attempt with what the limits did."""
import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.core import signing
from django.core.cache import BaseCache, caches
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from infra.clients import client_ip, digest

STAFF_DEVICE_COOKIE = "staff_device"
# The salt as it was when this lived in config/login_limits.py: another would sign every trusted browser out.
STAFF_DEVICE_SALT = "config.login_limits.staff-device"
# Longer than any password check: the claim of a request that died is given up after this.
CLAIM_SECONDS = 10


def staff_locked_out(request: HttpRequest, original_response: HttpResponse | None = None,
                     credentials: dict[str, Any] | None = None) -> HttpResponse:
    """django-axes' answer to a paused or slowed staff sign-in: 429, Retry-After, and when to try again."""
    attempt = getattr(request, "staff_sign_in", None)
    if attempt is not None and attempt.wait:
        seconds = attempt.wait
        if attempt.slowed_by == "account":
            message = ngettext(
                "Too many failed sign-ins for this account. To protect it, each new attempt has to wait a while "
                "after the last failed one: try again in %(seconds)s second. A browser that has signed in to this "
                "account before is not held up.",
                "Too many failed sign-ins for this account. To protect it, each new attempt has to wait a while "
                "after the last failed one: try again in %(seconds)s seconds. A browser that has signed in to this "
                "account before is not held up.", seconds)
        else:
            message = ngettext(
                "Too many failed sign-ins from this network. To protect the survey, each new attempt has to wait "
                "a while after the last failed one: try again in %(seconds)s second.",
                "Too many failed sign-ins from this network. To protect the survey, each new attempt has to wait "
                "a while after the last failed one: try again in %(seconds)s seconds.", seconds)
        message %= {"seconds": seconds}
    else:
        seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
        message = _(
            "Too many failed sign-ins for this account from this network. To protect the survey, signing in to it "
            "from here is paused: try again in %(minutes)s minutes, or ask a state administrator to reset your "
            "password."
        ) % {"minutes": math.ceil(seconds / 60)}
    response = render(
        request, "taking/message.html",
        {"message_kind": "error", "heading": _("Sign-in paused"), "message": message}, status=429,
    )
    response["Retry-After"] = str(seconds)
    return response


def staff_login_delay(failures: int, *, after: int) -> int:
    """Return the seconds an attempt must wait after the last of ``failures``: none below ``after``, then 1 s,
    doubling with each further failure, at most ``STAFF_LOGIN_DELAY_MAX_SECONDS``."""
    if failures < after:
        return 0
    return min(settings.STAFF_LOGIN_DELAY_MAX_SECONDS, 2 ** min(failures - after, 32))


@dataclass
class StaffSignIn:
    """One staff sign-in as the limits saw it (``request.staff_sign_in``)."""

    username: str
    address: str
    device: str | None  # the nonce of this browser's device cookie, if it is trusted for ``username``
    checked: bool = False  # neither paused nor slowed: the password was checked
    slowed_by: str = ""  # "account" or "address"
    wait: int = 0  # the seconds a slowed attempt was told to wait
    claims: list[str] = field(default_factory=list)
    device_cookie: str = ""  # set on success: the browser's new device cookie


@dataclass(frozen=True)
class _Counted:
    """Failures of one account (from any address) or one address (on any account), as this attempt adds to them:
    ``other`` is the digest of its address (of an account) or of its account (of an address)."""

    kind: str
    slow_after: int
    key: str
    other: str

    @property
    def last_key(self) -> str:
        return f"{self.key}:last"

    @property
    def claim_key(self) -> str:
        return f"{self.key}:claim"

    @property
    def spread_key(self) -> str:
        # How many addresses an account's failures came from (accounts an address's went to)...
        return f"{self.key}:spread"

    @property
    def seen_key(self) -> str:
        # ...each counted once: this one's failures came from (went to) ``other`` before.
        return f"{self.key}:with:{self.other}"

    def delay(self, failures: int, spread: int) -> int:
        """Return the seconds to wait after the last of ``failures``: none while they all came from one address
        (went to one account), which django-axes' pause of the pair is there for."""
        return staff_login_delay(failures, after=self.slow_after) if spread >= 2 else 0


class StaffSignInSlowed(PermissionDenied):
    """Raised by ``StaffSignInDelayBackend``: stops ``authenticate`` before the password is checked."""


class StaffSignInDelayBackend:
    """Refuse a staff sign-in whose account or address is slowed until its wait is over, before ``ModelBackend``
    hashes the password; let a browser trusted for the account through. Authenticates nobody itself."""

    def authenticate(self, request: HttpRequest | None, username: str | None = None, password: str | None = None,
                     **kwargs: Any) -> None:
        if request is None or username is None or not settings.LOGIN_LIMITS_ENABLED:
            return None
        address = client_ip(request)
        attempt = StaffSignIn(username=username, address=address, device=_trusted_device(request, username))
        request.staff_sign_in = attempt  # type: ignore[attr-defined]  # read back with getattr: HttpRequest has none
        if attempt.device is None:
            for counted in _counted(username, address):
                wait = _claim(counted, attempt)
                if wait:
                    _release(attempt)
                    attempt.slowed_by, attempt.wait = counted.kind, wait
                    # Marked as django-axes marks its own refusals: its failure handler counts nothing for it,
                    # and its middleware answers with staff_locked_out.
                    request.axes_locked_out = True  # type: ignore[attr-defined]  # django-axes' own mark
                    raise StaffSignInSlowed(f"{counted.kind} slowed for {wait} s")
        attempt.checked = True
        return None


def staff_device_trusted(request: HttpRequest, credentials: dict[str, Any] | None = None) -> bool:
    """django-axes' whitelist: a browser trusted for the account (its device cookie) is not paused for it."""
    username = (credentials or {}).get("username")
    return bool(settings.LOGIN_LIMITS_ENABLED and username and _trusted_device(request, username))


def staff_sign_in_failed(request: HttpRequest) -> str:
    """Count a staff sign-in whose password was checked and wrong, against its account, its address and its
    browser's device cookie; return what the limits did with the attempt, for the audit log."""
    attempt = getattr(request, "staff_sign_in", None)
    if attempt is None:
        # django-axes refused it before this module's backend ran.
        paused = getattr(request, "axes_locked_out", False)
        return "refused before the password check: paused for this account from this address" if paused else ""
    if not attempt.checked:
        return f"refused before the password check: {attempt.slowed_by} slowed, {attempt.wait} s to wait"
    counters, window = _counters(), _window()
    notes = []
    for counted in _counted(attempt.username, attempt.address):
        failures = _count(counters, counted.key, window)
        counters.set(counted.last_key, _now(), timeout=window)
        if counters.add(counted.seen_key, 1, timeout=window):
            spread = _count(counters, counted.spread_key, window)
        else:
            counters.touch(counted.seen_key, timeout=window)
            counters.touch(counted.spread_key, timeout=window)
            spread = counters.get(counted.spread_key) or 0
        delay = counted.delay(failures, spread)
        if delay:
            notes.append(f"{counted.kind} slowed: {failures} failures, {delay} s before the next attempt")
    if attempt.device:
        failures = _count(counters, _device_key(attempt.device), window)
        notes.append(f"trusted browser: {failures} of {settings.AXES_FAILURE_LIMIT} failures")
    # After counting: the next claim must see this failure.
    _release(attempt)
    return "; ".join(notes)


def staff_sign_in_paused(request: HttpRequest) -> str:
    """Return the audit log's note when this staff sign-in's failure paused its account at its address (django-axes
    says so for its refusals of a paused pair too: those are audited by ``staff_sign_in_failed``), else ""."""
    attempt = getattr(request, "staff_sign_in", None)
    if attempt is None or not attempt.checked:
        return ""
    minutes = math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60)
    return (f"paused for this account from this address for {minutes} minutes after "
            f"{settings.AXES_FAILURE_LIMIT} failures")


def staff_signed_in(request: HttpRequest, user: AbstractBaseUser) -> str:
    """Forget the account's failures and trust this browser for it (a new device cookie, set by
    ``StaffSignInMiddleware``); return the audit log's note."""
    attempt = getattr(request, "staff_sign_in", None)
    if attempt is None or not attempt.checked:
        return ""
    account = _counted(attempt.username, attempt.address)[0]
    # The addresses the account's failures came from stay counted (a guesser's next failures from them must
    # count as spread again); the address's failures stay too: one account signing in says nothing of the
    # others guessed from there.
    for key in (account.key, account.last_key):
        _counters().delete(key)
    _release(attempt)
    attempt.device_cookie = signing.dumps([user.get_username(), secrets.token_urlsafe(16)], salt=STAFF_DEVICE_SALT)
    return "trusted browser" if attempt.device else ""


class StaffSignInMiddleware:
    """Give up a staff sign-in's claims once it is answered (however it ended), and set the device cookie of a
    successful one."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        attempt = getattr(request, "staff_sign_in", None)
        if attempt is not None:
            _release(attempt)
            if attempt.device_cookie:
                response.set_cookie(
                    STAFF_DEVICE_COOKIE, attempt.device_cookie,
                    max_age=int(settings.STAFF_DEVICE_COOKIE_AGE.total_seconds()),
                    secure=settings.SESSION_COOKIE_SECURE, httponly=True, samesite="Lax",
                )
        return response


def _now() -> float:
    return time.time()


def _counters() -> BaseCache:
    return caches[settings.AXES_CACHE]


def _window() -> int:
    return int(settings.STAFF_LOGIN_FAILURE_WINDOW.total_seconds())


def _counted(username: str, address: str) -> tuple[_Counted, _Counted]:
    account, address = digest(username), digest(address)
    return (
        _Counted("account", settings.STAFF_LOGIN_SLOW_AFTER_ACCOUNT_FAILURES, f"staff-login:account:{account}", address),
        _Counted("address", settings.STAFF_LOGIN_SLOW_AFTER_ADDRESS_FAILURES, f"staff-login:address:{address}", account),
    )


def _device_key(nonce: str) -> str:
    return f"staff-login:device:{digest(nonce)}"


def _trusted_device(request: HttpRequest, username: str) -> str | None:
    """Return the nonce of this browser's device cookie if it is trusted for ``username``, else None."""
    known = getattr(request, "_staff_device", None)
    if known is not None and known[0] == username:
        return known[1]
    nonce = None
    value = request.COOKIES.get(STAFF_DEVICE_COOKIE)
    if value:
        try:
            named, candidate = signing.loads(value, salt=STAFF_DEVICE_SALT, max_age=settings.STAFF_DEVICE_COOKIE_AGE)
        except (signing.BadSignature, TypeError, ValueError):
            named = candidate = None
        if named == username and isinstance(candidate, str):
            if (_counters().get(_device_key(candidate)) or 0) < settings.AXES_FAILURE_LIMIT:
                nonce = candidate
    request._staff_device = (username, nonce)  # type: ignore[attr-defined]  # read back with getattr, above
    return nonce


def _claim(counted: _Counted, attempt: StaffSignIn) -> int:
    """Return 0 if ``attempt`` may be checked now as far as ``counted`` goes (taking the one check at a time a
    slowed account or address has), else the seconds it must wait."""
    counters = _counters()
    if not counted.delay(counters.get(counted.key) or 0, counters.get(counted.spread_key) or 0):
        return 0
    if not counters.add(counted.claim_key, 1, timeout=CLAIM_SECONDS):
        return 1  # another attempt is being checked
    # Read again with the claim held: an attempt that failed meanwhile has moved the wait on.
    delay = counted.delay(counters.get(counted.key) or 0, counters.get(counted.spread_key) or 0)
    wait = (counters.get(counted.last_key) or 0) + delay - _now()
    if wait > 0:
        counters.delete(counted.claim_key)
        return math.ceil(wait)
    attempt.claims.append(counted.claim_key)
    return 0


def _release(attempt: StaffSignIn) -> None:
    # One key at a time: delete() is what the counters' Redis cache tolerates being unreachable for.
    for key in attempt.claims:
        _counters().delete(key)
    attempt.claims = []


def _count(counters: BaseCache, key: str, window: int) -> int:
    """Add one failure under ``key``, kept ``window`` seconds after the last; return how many there are."""
    if counters.add(key, 1, timeout=window):
        return 1
    try:
        failures = counters.incr(key)
    except ValueError:  # gone since the add
        counters.add(key, 1, timeout=window)
        return 1
    counters.touch(key, timeout=window)
    return failures
