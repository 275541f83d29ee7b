"""Staff sign-ins, failed ones and sign-outs go to the audit log (accounts/audit.py), each with what the login
limits made of it (staff/sign_in_limits.py): counted, paused, slowed, refused unchecked, a trusted browser. Accounts
made without a password, and accounts whose email changed, are emailed in the background (staff/tasks.py)."""
from typing import Any

from axes.signals import user_locked_out
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest

from accounts.audit import audit_sign_in
from accounts.passwords import staff_accounts_created
from accounts.scopes import Scope
from accounts.staff_accounts import staff_emails_changed
from infra.clients import client_ip
from staff.sign_in_limits import staff_sign_in_failed, staff_sign_in_paused, staff_signed_in
from staff.tasks import email_change_notices_send_task, password_mails_send_task


def _address(request: HttpRequest | None) -> str:
    return client_ip(request) if request else ""


@receiver(user_logged_in, dispatch_uid="staff-audit-sign-in")
def _signed_in(sender: object, request: HttpRequest | None, user: User, **kwargs: Any) -> None:
    # A single sign-on says so (staff/single_sign_on.py); the login limits are the provider's then.
    detail = getattr(request, "sign_on_note", "") or (staff_signed_in(request, user) if request else "")
    audit_sign_in(user=user, address=_address(request), detail=detail)


@receiver(user_login_failed, dispatch_uid="staff-audit-sign-in-failed")
def _sign_in_failed(sender: object, credentials: dict[str, Any], request: HttpRequest | None = None,
                    **kwargs: Any) -> None:
    if "username" not in credentials:
        return  # a single sign-on that named nobody: accounts/sign_on.py audited why
    detail = staff_sign_in_failed(request) if request else ""
    audit_sign_in(username=credentials.get("username", ""), address=_address(request), failed=True, detail=detail)


@receiver(user_locked_out, dispatch_uid="staff-audit-sign-in-paused")
def _paused(sender: object, request: HttpRequest | None = None, username: str | None = None, **kwargs: Any) -> None:
    """django-axes says so for the failure that pauses an account at an address, and for each refusal while paused
    or slowed: only the first is new here (the others are audited as failed sign-ins above)."""
    detail = staff_sign_in_paused(request) if request else ""
    if detail:
        audit_sign_in(username=username or "", address=_address(request), failed=True, detail=detail)


@receiver(user_logged_out, dispatch_uid="staff-audit-sign-out")
def _signed_out(sender: object, request: HttpRequest | None, user: User | None, **kwargs: Any) -> None:
    if user is not None:
        audit_sign_in(user=user, address=_address(request), signed_out=True)


@receiver(staff_accounts_created, dispatch_uid="staff-password-mails")
def _accounts_created(sender: object, scope: Scope, user_ids: list[int], **kwargs: Any) -> None:
    """New accounts without a password: their "set your password" emails, in the background."""
    password_mails_send_task.delay(role=scope.role, user_id=scope.user_id, username=scope.username,
                                   address=scope.address, user_ids=list(user_ids))


@receiver(staff_emails_changed, dispatch_uid="staff-email-change-notices")
def _emails_changed(sender: object, scope: Scope, changes: list[dict[str, Any]], **kwargs: Any) -> None:
    """Accounts whose email changed: their old addresses are told, in the background."""
    email_change_notices_send_task.delay(role=scope.role, user_id=scope.user_id, username=scope.username,
                                         address=scope.address, changes=list(changes))
