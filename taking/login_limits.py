"""The respondent login limits at the login view: the client's address, read once a request, handed to
respondents/login_limits.py, which counts failed codes per address (docs/architecture.md, "Login limits")."""
from django.http import HttpRequest

from infra.clients import client_ip
from respondents.login_limits import (
    AddressLogins,
    address_login_failed,
    address_login_refused,
    address_login_succeeded,
    address_logins,
)
from respondents.models import Respondent


def respondent_login_wait(request: HttpRequest) -> int:
    """Return the seconds this client must wait before its next login attempt, or 0 if it may try now."""
    logins = _respondent_logins(request)
    address_login_refused(logins=logins)  # a hit the database could not take at the failure: recorded now
    return logins.wait if logins else 0


def respondent_login_failed(request: HttpRequest) -> None:
    """Count one code from this client that found nobody."""
    address_login_failed(logins=_respondent_logins(request))


def respondent_logged_in(request: HttpRequest, respondent: Respondent) -> None:
    """Count a respondent who logged in from this client's address: it gives the address room for more typos."""
    address_login_succeeded(logins=_respondent_logins(request), respondent_id=respondent.pk,
                            school_id=respondent.school_id)


def _respondent_logins(request: HttpRequest) -> AddressLogins | None:
    """How the client's address stands in the window, read once a request."""
    if not hasattr(request, "respondent_logins"):
        request.respondent_logins = address_logins(address=client_ip(request))  # type: ignore[attr-defined]
    return request.respondent_logins  # type: ignore[attr-defined]
