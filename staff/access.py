"""The door of every staff view: who is signed in, and the scope every read and write of the view goes through."""
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.views.decorators.cache import never_cache

from accounts.scopes import NotStaff, staff_scope
from infra.clients import client_ip


def staff_view(permission=None):
    """Decorate a staff view: sign-in required; ``request.scope`` is the staff member's Scope; ``permission``
    (a Scope ``can_*`` name) is checked before the view runs. Not signed in: to the sign-in page. Signed in
    without a staff role, or without the permission: 403.

    Every answer is ``never_cache`` (Cache-Control: no-store, private), as the respondent pages are: staff pages
    and downloads show names and access codes, and the computers staff use are often shared."""
    def decorate(view):
        @never_cache
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            try:
                request.scope = staff_scope(user=request.user, address=client_ip(request))
            except NotStaff as error:
                raise PermissionDenied("This account has no staff role: ask a state administrator.") from error
            if permission:
                request.scope.require(permission)
            return view(request, *args, **kwargs)
        return wrapped
    return decorate
