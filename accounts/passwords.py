"""Local passwords of staff accounts: who a reset email goes to, and the audit entries of the emails and the
passwords set from them. The emails themselves (their text and links) are the staff area's
(``staff/password_mail.py``); the tokens are Django's (``default_token_generator``).

An account made without a password (by the form, left blank, or by a staff file) gets a "set your password"
email: ``staff_accounts_created`` says which accounts were made, once their transaction commits, and the staff
area sends the emails. Where local passwords are off (``STAFF_LOCAL_PASSWORDS``) no email is sent and no reset
exists: the agency's identity provider is the only way in.
"""
from collections.abc import Iterable, Sequence

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.dispatch import Signal
from django.utils import timezone

from accounts.audit import Action, audit_record_each
from accounts.emails import email_normalize
from accounts.models import AuditEntry
from accounts.scopes import Scope

# Sent with ``scope`` (who made them) and ``user_ids`` once the accounts' transaction has committed.
staff_accounts_created = Signal()


def staff_accounts_created_send(*, scope: Scope, user_ids: Sequence[int]) -> None:
    """Say, once the current transaction commits, that these accounts were made without a password."""
    if user_ids and settings.STAFF_LOCAL_PASSWORDS:
        ids = list(user_ids)
        transaction.on_commit(lambda: staff_accounts_created.send(sender=Scope, scope=scope, user_ids=ids))


def password_reset_recipients(*, email: str) -> list[User]:
    """The active staff accounts (a staff role, or a superuser) with this email (compared normalised: an address
    that cannot be is nobody's), with a password or not yet (an account still waiting for its first one may ask
    again)."""
    try:
        email = email_normalize(email)
    except ValidationError:
        return []
    if not (email and settings.STAFF_LOCAL_PASSWORDS):
        return []
    return list(get_user_model().objects.filter(Q(staff_member__isnull=False) | Q(is_superuser=True),
                                                email=email, is_active=True).order_by("pk"))


def password_reset_asked_record(*, email: str, address: str, users: Iterable[User], limited: bool = False) -> None:
    """Audit a reset asked for ``email`` from ``address``: which accounts it went to, or why none."""
    names = ", ".join(user.get_username() for user in users)
    outcome = ("not sent: too many asked for this address" if limited else
               f"sent to {names}" if names else "no active staff account has this address: nothing sent")
    AuditEntry.objects.create(at=timezone.now(), username=email[:150], address=address,
                              action=Action.PASSWORD_RESET_ASKED, detail=f"reset asked for {email}: {outcome}")


def password_set_record(*, user: User, address: str) -> None:
    AuditEntry.objects.create(at=timezone.now(), user=user, username=user.get_username(), address=address,
                              action=Action.PASSWORD_SET, detail="password set from an emailed link")


def password_mails_sent_record(*, scope: Scope, users: Iterable[User], left_out: Iterable[User] = ()) -> None:
    """Audit the "set your password" emails sent, one entry per account (and those without an address)."""
    audit_record_each(scope=scope, action=Action.PASSWORD_MAIL_SENT, people=[
        *((None, f"set-your-password email to {user.get_username()} <{user.email}>") for user in users),
        *((None, f"no set-your-password email for {user.get_username()}: no email address") for user in left_out)])
