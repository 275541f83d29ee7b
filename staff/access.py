"""The door of every staff view: who is signed in, and the scope every read and write of the view goes through."""
from collections.abc import Callable
from functools import wraps
from typing import Concatenate, ParamSpec, cast

from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseBase
from django.views.decorators.cache import never_cache

from accounts.scopes import NotStaff, Scope, staff_scope
from infra.clients import client_ip

P = ParamSpec("P")


class StaffRequest(HttpRequest):
    """A request as a staff view sees it, past ``staff_view``: a signed-in user and their Scope. For annotations
    only: Django makes the request, the door sets ``scope``."""

    user: User
    scope: Scope


def staff_view(permission: str | None = None) -> Callable[
        [Callable[Concatenate[StaffRequest, P], HttpResponseBase]],
        Callable[Concatenate[HttpRequest, P], HttpResponseBase]]:
    """Decorate a staff view: sign-in required; ``request.scope`` is the staff member's Scope; ``permission``
    (a Scope ``can_*`` name) is checked before the view runs. Not signed in: to the sign-in page. Signed in
    without a staff role, or without the permission: 403.

    Every answer is ``never_cache`` (Cache-Control: no-store, private), as the respondent pages are: staff pages
    and downloads show names and access codes, and the computers staff use are often shared."""
    def decorate(
            view: Callable[Concatenate[StaffRequest, P], HttpResponseBase],
    ) -> Callable[Concatenate[HttpRequest, P], HttpResponseBase]:
        @never_cache
        @wraps(view)
        def wrapped(request: HttpRequest, *args: P.args, **kwargs: P.kwargs) -> HttpResponseBase:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            # The request becomes what StaffRequest says once ``scope`` is set, just below.
            staff_request = cast(StaffRequest, request)
            try:
                staff_request.scope = staff_scope(user=request.user, address=client_ip(request))
            except NotStaff as error:
                raise PermissionDenied("This account has no staff role: ask a state administrator.") from error
            if permission:
                staff_request.scope.require(permission)
            return view(staff_request, *args, **kwargs)
        return wrapped
    return decorate
