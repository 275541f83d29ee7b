"""Login limits: failed respondent codes per client address, staff sign-ins per account and address.

Respondents log in with a code, and a whole school may sit behind one public
address, so what is limited is *failed* attempts, never people: a code that
found nobody counts against the client's address (django-ratelimit's fixed
window, ``RESPONDENT_LOGIN_FAILURE_RATE``, 100 per 10 minutes by default); a
successful login never counts. Past the limit every attempt from that address
gets 429 with ``Retry-After`` until the window ends, without looking the code
up (a lookup would tell a guesser whether the code was right).

Staff and ``/admin/`` sign-ins go through django-axes: its backend, first in
``AUTHENTICATION_BACKENDS``, refuses a locked-out account or address before
``ModelBackend`` runs the password hasher (~0.3 s of CPU each), so anonymous
guesses cannot tie up workers. ``staff_locked_out`` is its 429 answer.

Counters live in the ``ratelimit`` cache: Redis on the stack, the process's
memory on the embedded default. If Redis cannot be reached, the limits are
not applied (logins go on) rather than turned into errors: the stack's
``CountersRedisCache`` reads an unreachable Redis as "nothing counted"
(config/sessions.py), and ``RATELIMIT_FAIL_OPEN`` lets django-ratelimit agree.
nginx's ``limit_req`` is the coarse outer guard either way
(deploy/templates/nginx.conf).
"""
import math

from django.conf import settings
from django.shortcuts import render
from django.utils.translation import gettext as _
from django_ratelimit.core import get_usage

RESPONDENT_LOGIN_GROUP = "respondent-login-failures"


def client_ip(request):
    """Return the client's address: the last ``TRUSTED_PROXY_COUNT`` hops of X-Forwarded-For are our own proxies.

    Anything a client writes into X-Forwarded-For itself stands before the
    hops the proxies append, so it is never taken for the address.
    """
    proxies = settings.TRUSTED_PROXY_COUNT
    if proxies:
        hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
        if len(hops) >= proxies:
            return hops[-proxies]
    return request.META.get("REMOTE_ADDR", "")


def _respondent_failures(request, *, increment):
    return get_usage(
        request, group=RESPONDENT_LOGIN_GROUP, key=lambda group, request: client_ip(request),
        rate=settings.RESPONDENT_LOGIN_FAILURE_RATE, increment=increment,
    )


def respondent_login_wait(request):
    """Return the seconds this client must wait before its next login attempt, or 0 if it may try now."""
    usage = _respondent_failures(request, increment=False)
    if usage is None or usage["count"] < usage["limit"]:
        return 0
    return max(1, usage["time_left"])


def respondent_login_failed(request):
    """Count one code from this client that found nobody."""
    _respondent_failures(request, increment=True)


def staff_locked_out(request, original_response=None, credentials=None):
    """django-axes' answer to a locked-out staff sign-in: 429, Retry-After, and when to try again."""
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    minutes = math.ceil(seconds / 60)
    message = _(
        "Too many failed sign-ins for this account or from this network. To protect the survey, sign-in is "
        "paused: try again in %(minutes)s minutes, or ask a state administrator to reset your password."
    ) % {"minutes": minutes}
    response = render(
        request, "taking/message.html",
        {"message_kind": "error", "heading": _("Sign-in paused"), "message": message}, status=429,
    )
    response["Retry-After"] = str(seconds)
    return response
