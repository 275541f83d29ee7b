"""Local passwords of staff accounts: the links' tokens, who a reset email goes to, and the audit entries of the emails and the passwords set from them. The emails themselves (their
text and links) are the staff area's (``staff/password_mail.py``).

Two kinds of emailed link, each with its own tokens (``password_set_tokens``, ``password_reset_tokens``): "set your
password", for an account made without one (it works for ``PASSWORD_RESET_TIMEOUT``, a week), and a reset, asked
for on the sign-in page (``PASSWORD_RESET_LINK_SECONDS``, an hour). An account made without a password gets the
first: ``staff_accounts_created`` says which accounts were made, once their transaction commits, and the staff area
sends the emails. Where local passwords are off (``STAFF_LOCAL_PASSWORDS``) no email is sent and no reset exists:
the agency's identity provider is the only way in; an account linked to it gets no password by email either
(``sign_on_only``).
"""
from collections.abc import Iterable, Sequence
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.db import transaction
from django.db.models import Q
from django.dispatch import Signal
from django.utils import timezone
from django.utils.http import base36_to_int

from accounts.audit import Action, audit_record_each
from accounts.models import AuditEntry, SignOnIdentity
from accounts.scopes import Scope


class PasswordTokens(PasswordResetTokenGenerator):
    """Django's one-use password tokens (a token stops working once the password is set or the account signs in),
    refused for a deactivated account, and with the lifetime of their kind (``lifetime``, seconds: at most
    ``PASSWORD_RESET_TIMEOUT``, which Django checks first)."""

    def lifetime(self) -> int:
        return int(settings.PASSWORD_RESET_TIMEOUT)

    def check_token(self, user: User | None, token: str | None) -> bool:
        if user is None or not token or not user.is_active or not super().check_token(user, token):
            return False
        made = base36_to_int(token.split("-")[0])  # Django has checked the token's form and signature
        return self._num_seconds(self._now()) - made <= self.lifetime()


class PasswordSetTokens(PasswordTokens):
    """The "set your password" links': Django's own salt, so that links emailed before there were two kinds still
    work for the rest of their week."""


class PasswordResetTokens(PasswordTokens):
    """The reset links': a salt of their own, so that a reset link never passes for a set-your-password one (nor
    the other way), and their own short lifetime."""

    key_salt = "accounts.passwords.PasswordResetTokens"

    def lifetime(self) -> int:
        return int(settings.PASSWORD_RESET_LINK_SECONDS)


password_set_tokens = PasswordSetTokens()
password_reset_tokens = PasswordResetTokens()


# Sent with ``scope`` (who made them) and ``user_ids`` once the accounts' transaction has committed.
staff_accounts_created = Signal()


def staff_accounts_created_send(*, scope: Scope, user_ids: Sequence[int]) -> None:
    """Say, once the current transaction commits, that these accounts were made without a password."""
    if user_ids and settings.STAFF_LOCAL_PASSWORDS:
        ids = list(user_ids)
        transaction.on_commit(lambda: staff_accounts_created.send(sender=Scope, scope=scope, user_ids=ids))


def password_reset_recipients(*, email: str) -> list[User]:
    """The active staff accounts (a staff role, or a superuser) with this email, with a password or not yet (an
    account still waiting for its first one may ask again)."""
    if not (email and settings.STAFF_LOCAL_PASSWORDS):
        return []
    return list(get_user_model().objects.filter(Q(staff_member__isnull=False) | Q(is_superuser=True),
                                                email__iexact=email, is_active=True).order_by("pk"))


def sign_on_only(*, users: Sequence[User]) -> list[User]:
    """Those of ``users`` that no emailed link gives a password: linked to single sign-on (``SignOnIdentity``),
    unless ``PASSWORD_RESET_SIGN_ON_ACCOUNTS``."""
    if settings.PASSWORD_RESET_SIGN_ON_ACCOUNTS or not users:
        return []
    linked = set(SignOnIdentity.objects.filter(user_id__in=[user.pk for user in users])
                 .values_list("user_id", flat=True))
    return [user for user in users if user.pk in linked]


def password_reset_asked_record(*, email: str, address: str, users: Iterable[User], limited: bool = False,
                                sign_on: Iterable[User] = (), at: datetime | None = None) -> None:
    """Audit a reset asked for ``email`` from ``address`` (at ``at``, when it was asked): which accounts it went to,
    or why none (``sign_on``: the accounts found that sign in with single sign-on only)."""
    names = ", ".join(user.get_username() for user in users)
    refused = ", ".join(user.get_username() for user in sign_on)
    outcomes = [f"sent to {names}"] if names else []
    if refused:
        outcomes.append(f"not sent to {refused}: signs in with single sign-on")
    outcome = ("not sent: too many asked for this address" if limited else
               "; ".join(outcomes) or "no active staff account has this address: nothing sent")
    AuditEntry.objects.create(at=at or timezone.now(), username=email[:150], address=address,
                              action=Action.PASSWORD_RESET_ASKED, detail=f"reset asked for {email}: {outcome}")


def password_set_record(*, user: User, address: str) -> None:
    AuditEntry.objects.create(at=timezone.now(), user=user, username=user.get_username(), address=address,
                              action=Action.PASSWORD_SET, detail="password set from an emailed link")


def password_mails_sent_record(*, scope: Scope, users: Iterable[User], left_out: Iterable[User] = ()) -> None:
    """Audit the "set your password" emails sent, one entry per account (and those without an address)."""
    audit_record_each(scope=scope, action=Action.PASSWORD_MAIL_SENT, people=[
        *((None, f"set-your-password email to {user.get_username()} <{user.email}>") for user in users),
        *((None, f"no set-your-password email for {user.get_username()}: no email address") for user in left_out)])
