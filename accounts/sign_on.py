"""Single sign-on: which staff account an identity provider's OpenID Connect claims name, if any.

Read next: ``docs/architecture.md``, "The staff area" (*Single sign-on*).
"""
from collections.abc import Mapping
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.audit import Action, audit_record, audit_sign_in
from accounts.emails import email_normalize
from accounts.models import SignOnIdentity, StaffMember
from accounts.scopes import Scope

Role = StaffMember.Role
# The roles an account made at its first sign-on may have: those that name no district or school.
ROLES_FROM_CLAIMS = frozenset({Role.STATE_ADMIN, Role.ANALYST})


class SignOnRefused(Exception):
    """The claims name no staff account that may sign in; the message says why, in words for the person."""


@dataclass(frozen=True)
class SignOnClaims:
    issuer: str
    subject: str
    email: str = ""
    email_verified: bool = False
    username: str = ""  # preferred_username
    name: str = ""
    roles: tuple[str, ...] = ()  # the values of the role claim


@dataclass(frozen=True)
class SignOnRules:
    match_email: bool = True
    role_mapping: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        wrong = sorted(role for role in self.role_mapping.values() if role not in ROLES_FROM_CLAIMS)
        if wrong:
            raise ValueError(f"a role claim may only make {', '.join(sorted(ROLES_FROM_CLAIMS))} accounts, not "
                             f"{', '.join(wrong)}: a coordinator's schools come from the state office")


def sign_on_account(*, claims: SignOnClaims, rules: SignOnRules, address: str = "") -> tuple[User, str]:
    """Return the staff account ``claims`` name and a note for the audit log's sign-in entry ("linked by verified
    email", "account made from the role claim"); raise SignOnRefused, audited, when they name none."""
    if not (claims.issuer and claims.subject):
        raise _refused(claims, address, "The identity provider did not say who you are (no subject).")
    identity = SignOnIdentity.objects.select_related("user").filter(issuer=claims.issuer,
                                                                    subject=claims.subject).first()
    if identity is not None:
        return _may_sign_in(identity.user, claims, address), ""
    if rules.match_email and claims.email:
        if not claims.email_verified:
            raise _refused(claims, address, f"Your identity provider has not verified the address {claims.email}, "
                                            "so it cannot name your staff account. Ask it to, or ask the survey "
                                            "office.")
        email = _email(claims, address)
        users = list(get_user_model().objects.filter(email=email, staff_member__isnull=False)[:2])
        if len(users) > 1:
            raise _refused(claims, address, f"More than one staff account has the address {claims.email}: ask the "
                                            "survey office to give each its own.")
        if users:
            user = _may_sign_in(users[0], claims, address)
            _link(user, claims)
            return user, f"single sign-on linked to {user.get_username()} by verified email"
    roles = {rules.role_mapping[value] for value in claims.roles if value in rules.role_mapping}
    if roles:
        return _account_made(claims, Role.STATE_ADMIN if Role.STATE_ADMIN in roles else Role.ANALYST, address), \
            "account made from the role claim"
    raise _refused(claims, address, f"No staff account matches {claims.email or 'your sign-in'}. Ask the survey "
                                    "office to make one with this email address.")


def _email(claims: SignOnClaims, address: str) -> str:
    """The claims' email as staff emails are stored (``email_normalize``); raise SignOnRefused, audited, for one that
    cannot be."""
    try:
        return email_normalize(claims.email)
    except ValidationError as error:
        raise _refused(claims, address, f"Your identity provider gives the address {claims.email}, which cannot name "
                                        f"a staff account: {' '.join(error.messages)} Ask the survey office.") from None


def _may_sign_in(user: User, claims: SignOnClaims, address: str) -> User:
    if not user.is_active:
        raise _refused(claims, address, "Your staff account is deactivated: ask the survey office.", user=user)
    if not user.is_superuser and not StaffMember.objects.filter(user=user).exists():
        raise _refused(claims, address, "This account has no staff role: ask the survey office.", user=user)
    return user


def _link(user: User, claims: SignOnClaims) -> None:
    try:
        with transaction.atomic():
            SignOnIdentity.objects.create(user=user, issuer=claims.issuer, subject=claims.subject,
                                          linked_at=timezone.now())
    except IntegrityError:
        pass  # linked by a sign-on of the same person a moment ago


def _account_made(claims: SignOnClaims, role: str, address: str) -> User:
    User = get_user_model()
    email = _email(claims, address)
    base = (claims.username or email or claims.subject)[:140]
    username, number = base, 1
    while User.objects.filter(username__iexact=username).exists():
        number += 1
        username = f"{base}-{number}"
    first, _, last = claims.name.partition(" ")
    with transaction.atomic(durable=True):
        user = User(username=username, email=email, first_name=first[:150], last_name=last[:150])
        user.set_unusable_password()
        user.save()
        member = StaffMember.objects.create(user=user, role=role)
        SignOnIdentity.objects.create(user=user, issuer=claims.issuer, subject=claims.subject, linked_at=timezone.now())
        audit_record(scope=Scope(role=Role.STATE_ADMIN, username="single sign-on", address=address),
                     action=Action.STAFF_CHANGED,
                     detail=f"{username} created at first single sign-on: {member.get_role_display()} (all schools), "
                            f"from the role claim {', '.join(claims.roles)}")
    return user


def _refused(claims: SignOnClaims, address: str, reason: str, *, user: User | None = None) -> SignOnRefused:
    audit_sign_in(user=user, username=claims.email or claims.username or claims.subject, address=address, failed=True,
                  detail=f"single sign-on refused ({claims.issuer}, subject {claims.subject}): {reason}")
    return SignOnRefused(reason)
