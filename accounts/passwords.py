"""Local passwords of staff accounts: the links' tokens, who a reset email goes to, who is still waiting for their
first password, and the audit entries of the emails and the passwords set from them. The emails themselves (their
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
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.contrib.auth.models import User
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q, QuerySet, TextChoices
from django.dispatch import Signal
from django.utils import timezone
from django.utils.http import base36_to_int

from accounts.audit import Action, audit_record_each
from accounts.emails import email_normalize
from accounts.models import AuditEntry, SignOnIdentity, StaffMember
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


class SignIn(TextChoices):
    """How a staff account signs in, as the staff list says it and filters by it (``sign_in_filter``)."""

    NEVER_SET = "never_set", "Never set a password"
    PASSWORD = "password", "Password"
    SIGN_ON = "sign_on", "Single sign-on"
    NOT_SIGNED_ON = "not_signed_on", "Not signed in yet"  # local passwords off: not linked to the provider yet


def sign_in_choices() -> list[SignIn]:
    """The ways of signing in there are: with local passwords off (``STAFF_LOCAL_PASSWORDS``), single sign-on or
    not yet."""
    if settings.STAFF_LOCAL_PASSWORDS:
        return [SignIn.NEVER_SET, SignIn.PASSWORD, SignIn.SIGN_ON]
    return [SignIn.SIGN_ON, SignIn.NOT_SIGNED_ON]


def sign_in_annotated(members: QuerySet[StaffMember]) -> QuerySet[StaffMember]:
    """``members`` with ``signs_on`` (linked to single sign-on), ``password_never_set`` (no usable password) and
    ``may_be_invited`` (``invitation_refused`` finds nothing), computed in their own query."""
    never_set = Q(user__password__startswith=UNUSABLE_PASSWORD_PREFIX)
    signs_on = Exists(SignOnIdentity.objects.filter(user_id=OuterRef("user_id")))
    return members.annotate(
        signs_on=signs_on, password_never_set=ExpressionWrapper(never_set, output_field=BooleanField()),
        may_be_invited=ExpressionWrapper(never_set & ~Q(signs_on=True) & Q(user__is_active=True)
                                         & ~Q(user__email=""), output_field=BooleanField()))


def sign_in_filter(state: str) -> Q:
    """The accounts of ``sign_in_annotated`` that sign in as ``state`` (a SignIn): never set a password (and not
    linked to single sign-on: those sign in without one), a usable password, linked, or not linked."""
    return {SignIn.NEVER_SET: Q(password_never_set=True, signs_on=False), SignIn.PASSWORD: Q(password_never_set=False),
            SignIn.SIGN_ON: Q(signs_on=True), SignIn.NOT_SIGNED_ON: Q(signs_on=False)}[SignIn(state)]


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


def sign_on_only(*, users: Sequence[User]) -> list[User]:
    """Those of ``users`` that no emailed link gives a password: linked to single sign-on (``SignOnIdentity``),
    unless ``PASSWORD_RESET_SIGN_ON_ACCOUNTS``."""
    if settings.PASSWORD_RESET_SIGN_ON_ACCOUNTS or not users:
        return []
    linked = linked_ids(users)
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


def password_mails_sent_record(*, scope: Scope, users: Iterable[User], left_out: Iterable[User] = (),
                               again: bool = False, limited: Iterable[User] = ()) -> None:
    """Audit the "set your password" emails sent (``again``: sent again from the staff list), one entry per account,
    and those left out: without an address, or (``limited``) sent again too often."""
    sent = "set-your-password email sent again to" if again else "set-your-password email to"
    audit_record_each(scope=scope, action=Action.PASSWORD_MAIL_SENT, people=[
        *((None, f"{sent} {user.get_username()} <{user.email}>") for user in users),
        *((None, f"no set-your-password email for {user.get_username()}: no email address") for user in left_out),
        *((None, f"set-your-password email not sent again to {user.get_username()}: sent too often "
                 f"(STAFF_INVITATION_RATE_PER_ACCOUNT {settings.STAFF_INVITATION_RATE_PER_ACCOUNT})")
          for user in limited)])


def linked_ids(users: Iterable[User]) -> set[int]:
    """The ids of ``users`` linked to single sign-on (``SignOnIdentity``)."""
    return set(SignOnIdentity.objects.filter(user_id__in=[user.pk for user in users]).values_list("user_id", flat=True))


def invitation_refused(user: User, *, linked: bool) -> str:
    """Why ``user`` is not to be sent the "set your password" email ("" where it is): deactivated, linked to single
    sign-on (it signs in with the provider already: a first password is not its, even where
    PASSWORD_RESET_SIGN_ON_ACCOUNTS lets it reset one), a password already, or no email address.
    ``sign_in_annotated``'s ``may_be_invited`` is the same rule in SQL, for the lists."""
    return ("deactivated" if not user.is_active else
            "signs in with single sign-on" if linked else
            "has a password" if user.has_usable_password() else
            "has no email address" if not user.email else "")


@dataclass(frozen=True)
class Invitations:
    """Which of the accounts chosen may be sent their "set your password" email again (``waiting``), and the user
    names of the others by why not."""

    waiting: list[User]
    left_out: dict[str, list[str]] = field(default_factory=dict)


def password_invitations(*, scope: Scope, user_ids: Iterable[int]) -> Invitations:
    """The staff accounts of ``user_ids`` still waiting for their first password, who may be emailed the link
    again: active, with an email address, never a usable password, not signing in with single sign-on; the rest by
    their reason."""
    scope.require("can_manage_staff")
    users = list(get_user_model().objects.filter(pk__in=list(user_ids), staff_member__isnull=False)
                 .order_by("username"))
    linked = linked_ids(users)
    waiting: list[User] = []
    left_out: dict[str, list[str]] = {}
    for user in users:
        reason = invitation_refused(user, linked=user.pk in linked)
        if reason:
            left_out.setdefault(reason, []).append(user.get_username())
        else:
            waiting.append(user)
    return Invitations(waiting=waiting, left_out=left_out)
