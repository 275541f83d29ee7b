"""Staff accounts, managed by state administrators: a Django user, its role and the districts or schools it covers.

One account's rules (``account_problems``) are the same whether it is typed in the form (``staff_account_save``)
or read from a file of many (``accounts/staff_import.py``): what they look up in the database is loaded once for
any number of accounts (``AccountLookups``), so a file of thousands is checked in a few queries. Who may change an
account at all is ``account_limits``: never a superuser's or one without a staff role here, and another state
administrator's email, role, sign-in and single sign-on links only a superuser. An account whose email changes
loses its single sign-on links, and its old address is told (``account_emails_changed``, ``staff_emails_changed``).
"""
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Q, QuerySet
from django.db.models.functions import Lower
from django.dispatch import Signal
from django.utils import timezone

from accounts.audit import Action, audit_record, audit_record_each
from accounts.emails import email_normal_or_as_given, email_normalize
from accounts.models import NAME_MAX, SignOnIdentity, StaffMember
from accounts.passwords import sign_in_annotated, sign_in_filter, staff_accounts_created_send
from accounts.scopes import Scope
from respondents.code_lists import join_codes
from respondents.models import District, School

Role = StaffMember.Role
# What a code names: a district or a school of the directory.
_Coded = TypeVar("_Coded", District, School)
_Value = TypeVar("_Value", str, int)
# Values looked up with one ``IN (...)`` each: within every database's limit on a statement's parameters.
LOOKUP_CHUNK = 10_000
USERNAME_MAX = 150  # Django's User
SUPERUSER_ONLY = "Only a superuser changes another state administrator's {what}."
# The roles that keep the codes of each kind (the others take none: a state administrator covers every school).
KEEPS_DISTRICTS = {Role.DISTRICT_COORDINATOR, Role.ANALYST}
KEEPS_SCHOOLS = {Role.DISTRICT_COORDINATOR, Role.SCHOOL_COORDINATOR, Role.ANALYST}

# Sent with ``scope`` (who changed them) and ``changes`` ([{"user_id", "username", "old", "new", "at" (ISO 8601),
# "unlinked" (single sign-on links removed)}, ...], accounts that had an address) once the transaction that changed
# the accounts' emails has committed: the staff area tells each old address.
staff_emails_changed = Signal()


@dataclass(frozen=True)
class StaffAccount:
    username: str
    role: str
    email: str = ""
    name: str = ""
    district_codes: tuple[str, ...] = ()
    school_codes: tuple[str, ...] = ()
    is_active: bool | None = True  # None: left as it is (a staff file)


@dataclass(frozen=True)
class Holder:
    """A stored account (one that holds a user name or an email already), with what decides who may change it."""

    user_id: int
    username: str
    email: str = ""
    is_active: bool = True
    is_superuser: bool = False
    role: str | None = None  # None: no staff role

    @classmethod
    def of_member(cls, member: StaffMember) -> "Holder":
        user = member.user
        return cls(user.pk, user.get_username(), user.email, user.is_active, user.is_superuser, member.role)


# What a Holder is read from: a user's columns and its staff role, if any.
_HOLDER_COLUMNS = ("pk", "username", "email", "is_active", "is_superuser", "staff_member__role")


@dataclass(frozen=True)
class EmailChange:
    user_id: int
    username: str
    old: str
    new: str


@dataclass(frozen=True)
class AccountLimits:
    """What a scope may not change of a stored account: any of it (``untouchable`` says why), or only with a
    superuser's scope its email, role, sign-in and single sign-on links (``superuser_only``)."""

    untouchable: str = ""
    superuser_only: bool = False

    @property
    def locked(self) -> bool:
        """Whether the scope may not change the account's sign-in (nor, so, deactivate or reactivate it)."""
        return bool(self.untouchable) or self.superuser_only


def account_limits(*, scope: Scope, holder: Holder) -> AccountLimits:
    """What ``scope`` may not change of ``holder``'s account: the staff area never changes a superuser's (only
    /admin/ does) or an account without a staff role; only a superuser changes another state administrator's email,
    role, sign-in or single sign-on links (state administrators manage staff: one could otherwise take over a
    peer's account by its email and a password reset). An administrator's own account is theirs to change."""
    untouchable = ""
    if holder.is_superuser:
        untouchable = f"{holder.username} is a superuser: only a superuser changes it, in /admin/."
    elif holder.role is None:
        untouchable = (f"{holder.username} has no staff role: the staff area does not change it (a superuser can "
                       f"give it one in /admin/).")
    administrator = holder.is_superuser or holder.role == Role.STATE_ADMIN
    return AccountLimits(untouchable=untouchable, superuser_only=(
        administrator and holder.user_id != scope.user_id and not scope.can_change_administrators))


@dataclass
class AccountLookups:
    """What the rules of some accounts read from the database, loaded at once: the districts and schools their
    codes name, the accounts holding their user names (without case) and emails (normalised: ``accounts/emails.py``),
    and every account found or asked for by id (``by_id``)."""

    districts: dict[str, District] = field(default_factory=dict)
    schools: dict[str, School] = field(default_factory=dict)
    by_username: dict[str, list[Holder]] = field(default_factory=dict)
    by_email: dict[str, list[Holder]] = field(default_factory=dict)
    by_id: dict[int, Holder] = field(default_factory=dict)

    @classmethod
    def load(cls, accounts: Sequence[StaffAccount], *, user_ids: Collection[int] = ()) -> "AccountLookups":
        """Look up everything ``accounts`` name, and the accounts ``user_ids``, in a query of each kind (per
        LOOKUP_CHUNK values)."""
        User = get_user_model()
        lookups = cls()
        district_codes = {code for account in accounts for code in _codes(account.district_codes)}
        school_codes = {code for account in accounts for code in _codes(account.school_codes)}
        for chunk in _chunks(district_codes):
            lookups.districts.update((d.code, d) for d in District.objects.filter(code__in=chunk))
        for chunk in _chunks(school_codes):
            lookups.schools.update((s.code, s) for s in School.objects.filter(code__in=chunk))
        holders: defaultdict[str, list[Holder]] = defaultdict(list)
        for chunk in _chunks(_lowered(a.username for a in accounts)):
            users = User.objects.annotate(lowered=Lower("username")).filter(lowered__in=chunk)
            for key, holder in lookups._holders(users, "lowered"):
                holders[key].append(holder)
        lookups.by_username.update(holders)
        holders = defaultdict(list)
        for chunk in _chunks(_normalised(a.email for a in accounts)):
            for key, holder in lookups._holders(User.objects.filter(email__in=chunk), "email"):
                holders[key].append(holder)
        lookups.by_email.update(holders)
        for id_chunk in _chunks(set(user_ids) - set(lookups.by_id)):
            for columns in User.objects.filter(pk__in=id_chunk).values_list(*_HOLDER_COLUMNS):
                lookups.by_id[columns[0]] = Holder(*columns)
        return lookups

    def _holders(self, users: QuerySet, key: str) -> Iterator[tuple[str, Holder]]:
        """Yield (``key``'s value, Holder) of ``users``, by id, each kept in ``by_id`` too."""
        for value, *columns in users.order_by("pk").values_list(key, *_HOLDER_COLUMNS):
            holder = self.by_id.setdefault(columns[0], Holder(*columns))
            yield value, holder

    def holders_of_username(self, username: str) -> list[Holder]:
        return self.by_username.get(username.lower(), [])

    def codes_unknown(self, account: StaffAccount) -> tuple[list[str], list[str]]:
        return ([code for code in _codes(account.district_codes) if code not in self.districts],
                [code for code in _codes(account.school_codes) if code not in self.schools])


def staff_accounts(*, scope: Scope, query: str = "", role: str = "", active: bool | None = None,
                   sign_in: str = "") -> QuerySet[StaffMember]:
    """The staff accounts, with their role, coverage and how they sign in (``sign_in_annotated``), by user name
    (three queries a page): those whose user name, email or name holds ``query``, of ``role``, that may sign in
    (``active``) or not, that sign in as ``sign_in`` (a SignIn)."""
    scope.require("can_manage_staff")
    members = sign_in_annotated(StaffMember.objects.select_related("user").prefetch_related("districts", "schools")
                                .order_by("user__username"))
    if sign_in:
        members = members.filter(sign_in_filter(sign_in))
    if query:
        members = members.filter(Q(user__username__icontains=query) | Q(user__email__icontains=query)
                                 | Q(name__icontains=query))
    if role:
        members = members.filter(role=role)
    if active is not None:
        members = members.filter(user__is_active=active)
    return members


def account_problems(*, scope: Scope, account: StaffAccount, lookups: AccountLookups, user_id: int | None,
                     password: str | None = None, password_by_email: bool = False,
                     others_named: Collection[int] = ()) -> dict[str, list[str]]:
    """The rules of one account, as {field: [message, ...]} (empty: none), with what ``lookups`` read: an account
    the scope may not change (``account_limits``: then that alone), or not change so; a user name or email that is
    not one, or another account's (emails compared normalised); an unknown district or school code, or codes the
    role does not keep; a coordinator with nothing to coordinate; a weak password (a new account), or no email to
    send the link that sets one (``password_by_email``: an account made from a file); an administrator taking away
    their own role or account. A required field left empty is the form's or file's to say. ``others_named``: the
    accounts whose emails the caller checks itself (a file's rows, against each other)."""
    problems: defaultdict[str, list[str]] = defaultdict(list)
    holder, limits = None, AccountLimits()
    if user_id is not None:
        holder = lookups.by_id.get(user_id) or Holder(user_id, account.username)
        limits = account_limits(scope=scope, holder=holder)
        if limits.untouchable:
            return {"username": [limits.untouchable]}
    if account.username:
        if len(account.username) > USERNAME_MAX:
            problems["username"].append(f"Longer than {USERNAME_MAX} characters.")
        else:
            try:
                UnicodeUsernameValidator()(account.username)
            except ValidationError as error:
                problems["username"].extend(error.messages)
        if user_id is None and account.username and lookups.holders_of_username(account.username):
            problems["username"].append("This user name is taken.")
    email: str | None = ""
    if account.email:
        try:
            email = email_normalize(account.email)
        except ValidationError as error:
            problems["email"].extend(error.messages)
            email = None
        else:
            held = [h.username for h in lookups.by_email.get(email, [])
                    if h.user_id != user_id and h.user_id not in others_named]
            if held:
                problems["email"].append(f"This email is another account's: {', '.join(held)}.")
    elif user_id is None and (password_by_email or not password) and settings.STAFF_LOCAL_PASSWORDS:
        problems["email"].append("A new account needs an email: the link to set its password is sent there.")
    if holder is not None and limits.superuser_only:
        if email is not None and email != holder.email:
            problems["email"].append(SUPERUSER_ONLY.format(what="email"))
        if account.role and account.role != holder.role:
            problems["role"].append(SUPERUSER_ONLY.format(what="role"))
        if account.is_active is not None and account.is_active != holder.is_active:
            problems["is_active"].append(SUPERUSER_ONLY.format(what="sign-in (whether it may sign in)"))
    if len(account.name) > NAME_MAX:
        problems["name"].append(f"Longer than {NAME_MAX} characters.")
    unknown_districts, unknown_schools = lookups.codes_unknown(account)
    if unknown_districts:
        problems["district_codes"].append(f"Not in the school directory: {join_codes(unknown_districts)}.")
    if unknown_schools:
        problems["school_codes"].append(f"Not in the school directory: {join_codes(unknown_schools)}.")
    if account.role in Role.values:
        role = Role(account.role)
        if role not in KEEPS_DISTRICTS and _codes(account.district_codes):
            problems["district_codes"].append(f"A {role.label.lower()} covers no district by its code: leave the "
                                              f"district codes empty.")
        if role not in KEEPS_SCHOOLS and _codes(account.school_codes):
            problems["school_codes"].append(f"A {role.label.lower()} covers every school: leave the school codes "
                                            f"empty.")
    if account.role == Role.DISTRICT_COORDINATOR and not _codes(account.district_codes):
        problems["district_codes"].append("A district coordinator needs at least one district.")
    if account.role == Role.SCHOOL_COORDINATOR and not _codes(account.school_codes):
        problems["school_codes"].append("A school coordinator needs at least one school.")
    if user_id is None and password:
        User = get_user_model()
        try:
            validate_password(password, User(username=account.username, email=account.email))
        except ValidationError as error:
            problems["password"] = error.messages
    elif user_id is not None and user_id == scope.user_id and (
            account.is_active is False or account.role != Role.STATE_ADMIN):
        problems["role"].append("You cannot take away your own administrator role or account.")
    return dict(problems)


def staff_account_problems(*, scope: Scope, account: StaffAccount, password: str | None = None,
                           user_id: int | None = None) -> dict[str, list[str]]:
    """Every reason ``staff_account_save`` would refuse ``account`` (``account_problems``); it writes nothing, so a
    form can show them all at once, beside its own."""
    scope.require("can_manage_staff")
    lookups = AccountLookups.load([account], user_ids=[] if user_id is None else [user_id])
    return account_problems(scope=scope, account=account, lookups=lookups, user_id=user_id, password=password)


def staff_account_save(*, scope: Scope, account: StaffAccount, password: str | None = None,
                       user_id: int | None = None) -> StaffMember:
    """Create (``user_id`` None) or change a staff account; return its StaffMember. A new account without a
    ``password`` gets none it could sign in with, and a "set your password" email (``accounts/passwords.py``).

    The email is stored normalised (``accounts/emails.py``); a changed one removes the account's single sign-on
    links and tells the old address (``account_emails_changed``).

    Raises ValidationError naming every field at fault (``staff_account_problems``, checked with the account's
    rows locked); nothing is written then.
    """
    scope.require("can_manage_staff")
    User = get_user_model()
    districts = _by_code(District, account.district_codes)
    schools = _by_code(School, account.school_codes)
    with transaction.atomic(durable=True):
        if user_id is not None:  # (its user too: a change to who may change it waits, or is seen)
            StaffMember.objects.select_for_update().filter(user_id=user_id).values_list("pk").first()
            User.objects.select_for_update().filter(pk=user_id).values_list("pk").first()
        problems = staff_account_problems(scope=scope, account=account, password=password, user_id=user_id)
        if problems:
            raise ValidationError(problems)
        email = email_normalize(account.email)
        changes = []
        if user_id is None:
            user = User(username=account.username, email=email)
            user.set_password(password or None)
            user.is_active = account.is_active is not False
            user.save()
            member = StaffMember(user=user)
            what = "created" if password else "created without a password"
        else:
            member = StaffMember.objects.select_related("user").get(user_id=user_id)
            user = member.user
            if user.email != email:
                changes.append(EmailChange(user.pk, user.get_username(), user.email, email))
            user.email = email
            if account.is_active is not None:
                user.is_active = account.is_active
            user.save(update_fields=["email", "is_active"])
            what = "changed"
        member.role, member.name = account.role, account.name
        member.save()
        member.districts.set(districts if account.role in KEEPS_DISTRICTS else [])
        member.schools.set(schools if account.role in KEEPS_SCHOOLS else [])
        audit_record(scope=scope, action=Action.STAFF_CHANGED,
                     detail=f"{user.get_username()} {what}: {member.get_role_display()} "
                            f"({coverage(districts=[d.code for d in districts], schools=[s.code for s in schools])})"
                            f"{'' if user.is_active else ', deactivated'}")
        account_emails_changed(scope=scope, changes=changes)
        if user_id is None and not password:
            staff_accounts_created_send(scope=scope, user_ids=[user.pk])
    return member


def staff_accounts_set_active(*, scope: Scope, user_ids: Collection[int], active: bool) -> list[str]:
    """Let the staff accounts ``user_ids`` sign in (``active``) or stop them (their sessions end at their next
    request: ``staff_scope`` refuses an inactive user); one audit entry per account changed. Accounts already so,
    and ids of no staff account, are left out. Return the user names changed. Raises ValidationError when an
    administrator would deactivate their own account, or ``scope`` may not change one of the accounts
    (``account_limits``: a superuser's, another state administrator's); nothing is changed then."""
    scope.require("can_manage_staff")
    if not active and scope.user_id is not None and scope.user_id in user_ids:
        raise ValidationError("You cannot deactivate your own account.")
    User = get_user_model()
    with transaction.atomic(durable=True):
        found = list(User.objects.select_for_update().filter(pk__in=list(user_ids), staff_member__isnull=False)
                     .order_by("username").values_list(*_HOLDER_COLUMNS))
        refused = [holder.username for holder in (Holder(*columns) for columns in found)
                   if account_limits(scope=scope, holder=holder).locked]
        if refused:
            raise ValidationError(f"Only a superuser changes these accounts (superusers, in /admin/; other state "
                                  f"administrators): {', '.join(refused)}. Nothing was changed.")
        users = [(pk, username) for pk, username, _, is_active, *_ in found if is_active != active]
        User.objects.filter(pk__in=[pk for pk, _ in users]).update(is_active=active)
        audit_record_each(scope=scope, action=Action.STAFF_CHANGED,
                          people=[(None, f"{username} {'reactivated' if active else 'deactivated'}")
                                  for _, username in users])
    return [username for _, username in users]


def account_emails_changed(*, scope: Scope, changes: Sequence[EmailChange]) -> None:
    """Within the transaction that changed these accounts' emails: remove their single sign-on links (one linked
    through the old address is no longer the account's to vouch for), one audit entry each; once it commits, say so
    (``staff_emails_changed``), for each old address to be told."""
    changes = [change for change in changes if change.old != change.new]
    if not changes:
        return
    names = {change.user_id: change.username for change in changes}
    identities = list(SignOnIdentity.objects.filter(user_id__in=list(names)).order_by("user_id", "pk")
                      .values_list("pk", "user_id", "issuer", "subject"))
    SignOnIdentity.objects.filter(pk__in=[pk for pk, *_ in identities]).delete()
    audit_record_each(scope=scope, action=Action.SIGN_ON_UNLINKED, people=[
        (None, f"{names[user_id]}: single sign-on link removed ({subject} at {issuer}): its email changed")
        for _, user_id, issuer, subject in identities])
    unlinked = Counter(user_id for _, user_id, _, _ in identities)
    at = timezone.now().isoformat()
    told = [{"user_id": change.user_id, "username": change.username, "old": change.old, "new": change.new, "at": at,
             "unlinked": unlinked[change.user_id]} for change in changes if change.old]
    if told:
        transaction.on_commit(lambda: staff_emails_changed.send(sender=Scope, scope=scope, changes=told))


def email_change_notices_record(*, scope: Scope, changes: Iterable[dict]) -> None:
    """Audit the emails that told old addresses of their account's new one, one entry per account."""
    audit_record_each(scope=scope, action=Action.EMAIL_CHANGE_TOLD, people=[
        (None, f"{change['username']}: {change['old']} told its email changed to {change['new'] or '(none)'}")
        for change in changes])


def sign_on_identities(*, scope: Scope, user_id: int) -> QuerySet[SignOnIdentity]:
    """The single sign-on identities linked to the staff account ``user_id``, oldest first."""
    scope.require("can_manage_staff")
    return SignOnIdentity.objects.filter(user_id=user_id, user__staff_member__isnull=False).order_by("linked_at", "pk")


def sign_on_identity_unlink(*, scope: Scope, user_id: int, identity_id: int) -> SignOnIdentity:
    """Remove one single sign-on link of the staff account ``user_id`` (its next sign-on with that identity is
    matched as a first one: by verified email, where that is on); audited. Return the identity removed. Raises
    SignOnIdentity.DoesNotExist for an identity of no such account, PermissionDenied where only a superuser may
    (``account_limits``)."""
    with transaction.atomic(durable=True):
        identity = (sign_on_identities(scope=scope, user_id=user_id).select_related("user__staff_member")
                    .select_for_update(of=("self",)).get(pk=identity_id))
        holder = Holder.of_member(identity.user.staff_member)
        if account_limits(scope=scope, holder=holder).superuser_only:
            raise PermissionDenied(SUPERUSER_ONLY.format(what="single sign-on links"))
        identity.delete()
        audit_record(scope=scope, action=Action.SIGN_ON_UNLINKED,
                     detail=f"{holder.username}: single sign-on link removed ({identity.subject} at {identity.issuer})")
    return identity


def coverage(*, districts: Iterable[str], schools: Iterable[str]) -> str:
    """What an account covers, as the audit log says it: its codes, or all schools."""
    return join_codes([*districts, *schools]) or "all schools"


def _codes(codes: Iterable[str]) -> list[str]:
    return sorted({code.strip() for code in codes if code.strip()})


def _lowered(texts: Iterable[str]) -> set[str]:
    return {text.lower() for text in texts if text}


def _normalised(emails: Iterable[str]) -> set[str]:
    """The emails as stored (``email_normal_or_as_given``)."""
    return {email_normal_or_as_given(email) for email in emails} - {""}


def _chunks(values: Collection[_Value]) -> Iterator[list[_Value]]:
    ordered = sorted(values)
    for start in range(0, len(ordered), LOOKUP_CHUNK):
        yield ordered[start:start + LOOKUP_CHUNK]


def _by_code(model: type[_Coded], codes: Iterable[str]) -> list[_Coded]:
    return list(model.objects.filter(code__in=_codes(codes)).order_by("code"))
