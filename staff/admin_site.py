"""The admin site (``/admin/``), with every change made there recorded in the staff audit log.

Django's admin keeps its own log (``LogEntry``) of what each user added,
changed or deleted, but not the address, and the survey office reads the
staff audit log (``accounts.models.AuditEntry``). Each admin view is
wrapped: the admin's log entries the view wrote are copied into the audit
log with who and from where once it returns. Reading them afterwards, rather
than a signal on LogEntry, also catches the several entries a bulk deletion
writes with ``bulk_create``, which sends no signal.
"""
from collections.abc import Callable
from functools import update_wrapper
from typing import Any, TypeVar, cast

from django.contrib import admin
from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponseBase

from accounts.audit import Action, audit_record
from accounts.scopes import admin_scope
from infra.clients import client_ip

VERBS = {ADDITION: "added", CHANGE: "changed", DELETION: "deleted"}

View = TypeVar("View", bound=Callable[..., HttpResponseBase])


class AuditedAdminSite(admin.AdminSite):
    def admin_view(self, view: View, cacheable: bool = False) -> View:
        inner = super().admin_view(view, cacheable)

        def audited(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            # The user as the view found them: signing out makes ``request.user`` anonymous.
            user = request.user
            if request.method not in ("POST", "PUT", "PATCH", "DELETE") or not user.is_authenticated:
                return inner(request, *args, **kwargs)
            last = LogEntry.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
            try:
                return inner(request, *args, **kwargs)
            finally:
                _audit_log_entries(request, user, after=last)

        # (Django's admin_view hands back a wrapper too, which its stubs type as the view itself.)
        return cast(View, update_wrapper(audited, inner))


def _audit_log_entries(request: HttpRequest, user: User, *, after: int) -> None:
    """Copy the admin log entries ``user`` (``request``'s) wrote after ``after`` (a LogEntry id) into the audit log."""
    entries = LogEntry.objects.filter(pk__gt=after, user=user).select_related("content_type").order_by("pk")
    if not entries:
        return
    scope = admin_scope(user=user, address=client_ip(request))
    for entry in entries:
        message = entry.get_change_message()
        audit_record(scope=scope, action=Action.ADMIN_CHANGED, detail=(
            f"{VERBS.get(entry.action_flag, 'changed')} {entry.content_type.name if entry.content_type else 'object'} "
            f"{entry.object_repr!r}" + (f": {message}" if message else "")))
