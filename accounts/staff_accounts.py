"""Staff accounts, managed by state administrators: a Django user, its role and the districts or schools it covers.

One account's rules (``account_problems``) are the same whether it is typed in the form (``staff_account_save``)
or read from a file of many (``accounts/staff_import.py``): what they look up in the database is loaded once for
any number of accounts (``AccountLookups``), so a file of thousands is checked in a few queries.
"""
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator
from django.db import transaction
from django.db.models import Q, QuerySet
from django.db.models.functions import Lower

from accounts.audit import Action, audit_record, audit_record_each
from accounts.models import NAME_MAX, StaffMember
from accounts.passwords import staff_accounts_created_send
from accounts.scopes import Scope
from respondents.code_lists import join_codes
from respondents.models import District, School

Role = StaffMember.Role
# What a code names: a district or a school of the directory.
_Coded = TypeVar("_Coded", District, School)
# Values looked up with one ``IN (...)`` each: within every database's limit on a statement's parameters.
LOOKUP_CHUNK = 10_000
USERNAME_MAX, EMAIL_MAX = 150, 254  # Django's User
# The roles that keep the codes of each kind (the others take none: a state administrator covers every school).
KEEPS_DISTRICTS = {Role.DISTRICT_COORDINATOR, Role.ANALYST}
KEEPS_SCHOOLS = {Role.DISTRICT_COORDINATOR, Role.SCHOOL_COORDINATOR, Role.ANALYST}


@dataclass(frozen=True)
class StaffAccount:
    username: str
    role: str
    email: str = ""
    name: str = ""
    district_codes: tuple[str, ...] = ()
    school_codes: tuple[str, ...] = ()
    is_active: bool = True


@dataclass(frozen=True)
class Holder:
    """An account that holds a user name or an email already."""

    user_id: int
    username: str


@dataclass
class AccountLookups:
    """What the rules of some accounts read from the database, loaded at once: the districts and schools their
    codes name, and the accounts holding their user names and emails (without case)."""

    districts: dict[str, District] = field(default_factory=dict)
    schools: dict[str, School] = field(default_factory=dict)
    by_username: dict[str, list[Holder]] = field(default_factory=dict)
    by_email: dict[str, list[Holder]] = field(default_factory=dict)

    @classmethod
    def load(cls, accounts: Sequence[StaffAccount]) -> "AccountLookups":
        """Look up everything ``accounts`` name, in a query of each kind (per LOOKUP_CHUNK values)."""
        User = get_user_model()
        lookups = cls()
        district_codes = {code for account in accounts for code in _codes(account.district_codes)}
        school_codes = {code for account in accounts for code in _codes(account.school_codes)}
        for chunk in _chunks(district_codes):
            lookups.districts.update((d.code, d) for d in District.objects.filter(code__in=chunk))
        for chunk in _chunks(school_codes):
            lookups.schools.update((s.code, s) for s in School.objects.filter(code__in=chunk))
        for names, column, found in ((_lowered(a.username for a in accounts), "username", lookups.by_username),
                                     (_lowered(a.email for a in accounts), "email", lookups.by_email)):
            holders: defaultdict[str, list[Holder]] = defaultdict(list)
            for chunk in _chunks(names):
                rows = (User.objects.annotate(lowered=Lower(column)).filter(lowered__in=chunk)
                        .order_by("pk").values_list("lowered", "pk", "username"))
                for lowered, pk, username in rows:
                    holders[lowered].append(Holder(pk, username))
            found.update(holders)
        return lookups

    def holders_of_username(self, username: str) -> list[Holder]:
        return self.by_username.get(username.lower(), [])

    def codes_unknown(self, account: StaffAccount) -> tuple[list[str], list[str]]:
        return ([code for code in _codes(account.district_codes) if code not in self.districts],
                [code for code in _codes(account.school_codes) if code not in self.schools])


def staff_accounts(*, scope: Scope, query: str = "", role: str = "", active: bool | None = None
                   ) -> QuerySet[StaffMember]:
    """The staff accounts, with their role and coverage, by user name (three queries a page): those whose user name,
    email or name holds ``query``, of ``role``, that may sign in (``active``) or not."""
    scope.require("can_manage_staff")
    members = (StaffMember.objects.select_related("user").prefetch_related("districts", "schools")
               .order_by("user__username"))
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
    """The rules of one account, as {field: [message, ...]} (empty: none), with what ``lookups`` read: a user name
    or email that is not one, or another account's; an unknown district or school code, or codes the role does not
    keep; a coordinator with nothing to coordinate; a weak password (a new account), or no email to send the link
    that sets one (``password_by_email``: an account made from a file); an administrator taking away their own role
    or account. A required field left empty is the form's or file's to say. ``others_named``: the accounts whose
    emails the caller checks itself (a file's rows, against each other)."""
    problems: defaultdict[str, list[str]] = defaultdict(list)
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
    if account.email:
        try:
            EmailValidator()(account.email)
        except ValidationError as error:
            problems["email"].extend(error.messages)
        else:
            held = [h.username for h in lookups.by_email.get(account.email.lower(), [])
                    if h.user_id != user_id and h.user_id not in others_named]
            if held:
                problems["email"].append(f"This email is another account's: {', '.join(held)}.")
    elif user_id is None and (password_by_email or not password) and settings.STAFF_LOCAL_PASSWORDS:
        problems["email"].append("A new account needs an email: the link to set its password is sent there.")
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
            not account.is_active or account.role != Role.STATE_ADMIN):
        problems["role"].append("You cannot take away your own administrator role or account.")
    return dict(problems)


def staff_account_problems(*, scope: Scope, account: StaffAccount, password: str | None = None,
                           user_id: int | None = None) -> dict[str, list[str]]:
    """Every reason ``staff_account_save`` would refuse ``account`` (``account_problems``); it writes nothing, so a
    form can show them all at once, beside its own."""
    scope.require("can_manage_staff")
    return account_problems(scope=scope, account=account, lookups=AccountLookups.load([account]), user_id=user_id,
                            password=password)


def staff_account_save(*, scope: Scope, account: StaffAccount, password: str | None = None,
                       user_id: int | None = None) -> StaffMember:
    """Create (``user_id`` None) or change a staff account; return its StaffMember. A new account without a
    ``password`` gets none it could sign in with, and a "set your password" email (``accounts/passwords.py``).

    Raises ValidationError naming every field at fault (``staff_account_problems``); nothing is written then.
    """
    problems = staff_account_problems(scope=scope, account=account, password=password, user_id=user_id)
    if problems:
        raise ValidationError(problems)
    User = get_user_model()
    districts = _by_code(District, account.district_codes)
    schools = _by_code(School, account.school_codes)
    with transaction.atomic(durable=True):
        if user_id is None:
            user = User(username=account.username, email=account.email)
            user.set_password(password or None)
            user.is_active = account.is_active
            user.save()
            member = StaffMember(user=user)
            what = "created" if password else "created without a password"
        else:
            member = StaffMember.objects.select_related("user").select_for_update().get(user_id=user_id)
            user = member.user
            user.email, user.is_active = account.email, account.is_active
            user.save(update_fields=["email", "is_active"])
            what = "changed"
        member.role, member.name = account.role, account.name
        member.save()
        member.districts.set(districts if account.role in KEEPS_DISTRICTS else [])
        member.schools.set(schools if account.role in KEEPS_SCHOOLS else [])
        audit_record(scope=scope, action=Action.STAFF_CHANGED,
                     detail=f"{user.get_username()} {what}: {member.get_role_display()} "
                            f"({coverage(districts=[d.code for d in districts], schools=[s.code for s in schools])})"
                            f"{'' if account.is_active else ', deactivated'}")
        if user_id is None and not password:
            staff_accounts_created_send(scope=scope, user_ids=[user.pk])
    return member


def staff_accounts_set_active(*, scope: Scope, user_ids: Collection[int], active: bool) -> list[str]:
    """Let the staff accounts ``user_ids`` sign in (``active``) or stop them (their sessions end at their next
    request: ``staff_scope`` refuses an inactive user); one audit entry per account changed. Accounts already so,
    and ids of no staff account, are left out. Return the user names changed. Raises ValidationError when an
    administrator would deactivate their own account; nothing is changed then."""
    scope.require("can_manage_staff")
    if not active and scope.user_id is not None and scope.user_id in user_ids:
        raise ValidationError("You cannot deactivate your own account.")
    User = get_user_model()
    with transaction.atomic(durable=True):
        users = list(User.objects.select_for_update().filter(pk__in=list(user_ids), staff_member__isnull=False,
                                                             is_active=not active)
                     .order_by("username").values_list("pk", "username"))
        User.objects.filter(pk__in=[pk for pk, _ in users]).update(is_active=active)
        audit_record_each(scope=scope, action=Action.STAFF_CHANGED,
                          people=[(None, f"{username} {'reactivated' if active else 'deactivated'}")
                                  for _, username in users])
    return [username for _, username in users]


def coverage(*, districts: Iterable[str], schools: Iterable[str]) -> str:
    """What an account covers, as the audit log says it: its codes, or all schools."""
    return join_codes([*districts, *schools]) or "all schools"


def _codes(codes: Iterable[str]) -> list[str]:
    return sorted({code.strip() for code in codes if code.strip()})


def _lowered(texts: Iterable[str]) -> set[str]:
    return {text.lower() for text in texts if text}


def _chunks(values: Collection[str]) -> Iterator[list[str]]:
    ordered = sorted(values)
    for start in range(0, len(ordered), LOOKUP_CHUNK):
        yield ordered[start:start + LOOKUP_CHUNK]


def _by_code(model: type[_Coded], codes: Iterable[str]) -> list[_Coded]:
    return list(model.objects.filter(code__in=_codes(codes)).order_by("code"))
