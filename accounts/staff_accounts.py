"""Staff accounts, managed by state administrators: a Django user, its role and the districts or schools it covers."""
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet

from accounts.audit import Action, audit_record
from accounts.models import StaffMember
from accounts.passwords import staff_accounts_created_send
from accounts.scopes import Scope
from respondents.models import District, School

Role = StaffMember.Role
# What a code names: a district or a school of the directory.
_Coded = TypeVar("_Coded", District, School)


@dataclass(frozen=True)
class StaffAccount:
    username: str
    role: str
    email: str = ""
    district_codes: tuple[str, ...] = ()
    school_codes: tuple[str, ...] = ()
    is_active: bool = True


def staff_accounts(*, scope: Scope) -> QuerySet[StaffMember]:
    """Every staff account with its role and coverage, by user name (three queries)."""
    scope.require("can_manage_staff")
    return (StaffMember.objects.select_related("user").prefetch_related("districts", "schools")
            .order_by("user__username"))


def staff_account_problems(*, scope: Scope, account: StaffAccount, password: str | None = None,
                           user_id: int | None = None) -> dict[str, list[str]]:
    """Every reason ``staff_account_save`` would refuse ``account``, as {field: [message, ...]} (empty: none); it
    writes nothing, so a form can show them all at once, beside its own: an unknown district or school code, a
    coordinator with nothing to coordinate, a user name already taken, a weak password (a new account), an
    administrator taking away their own role or account."""
    scope.require("can_manage_staff")
    problems: dict[str, list[str]] = {}
    # One lookup each, not a loop over the two models: the checker then knows which model each one reads.
    try:
        _by_code(District, account.district_codes, "district_codes")
    except ValidationError as error:
        problems.update(error.message_dict)
    try:
        _by_code(School, account.school_codes, "school_codes")
    except ValidationError as error:
        problems.update(error.message_dict)
    if account.role == Role.DISTRICT_COORDINATOR and not _codes(account.district_codes):
        problems.setdefault("district_codes", []).append("A district coordinator needs at least one district.")
    if account.role == Role.SCHOOL_COORDINATOR and not _codes(account.school_codes):
        problems.setdefault("school_codes", []).append("A school coordinator needs at least one school.")
    if user_id is None:
        User = get_user_model()
        if account.username and User.objects.filter(username__iexact=account.username).exists():
            problems["username"] = ["This user name is taken."]
        if password:
            try:
                validate_password(password, User(username=account.username, email=account.email))
            except ValidationError as error:
                problems["password"] = error.messages
        elif settings.STAFF_LOCAL_PASSWORDS and not account.email:
            problems["email"] = ["Give an email address, for the \"set your password\" email, or a password."]
    elif user_id == scope.user_id and (not account.is_active or account.role != Role.STATE_ADMIN):
        problems["role"] = ["You cannot take away your own administrator role or account."]
    return problems


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
    districts = _by_code(District, account.district_codes, "district_codes")
    schools = _by_code(School, account.school_codes, "school_codes")
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
        member.role = account.role
        member.save()
        member.districts.set(districts if account.role in {Role.DISTRICT_COORDINATOR, Role.ANALYST} else [])
        member.schools.set(schools if account.role != Role.STATE_ADMIN else [])
        coverage = ", ".join([*(d.code for d in districts), *(s.code for s in schools)]) or "all schools"
        audit_record(scope=scope, action=Action.STAFF_CHANGED,
                     detail=f"{user.get_username()} {what}: {member.get_role_display()} ({coverage})"
                            f"{'' if account.is_active else ', deactivated'}")
        if user_id is None and not password:
            staff_accounts_created_send(scope=scope, user_ids=[user.pk])
    return member


def _codes(codes: Iterable[str]) -> list[str]:
    return sorted({code.strip() for code in codes if code.strip()})


def _by_code(model: type[_Coded], codes: Iterable[str], field: str) -> list[_Coded]:
    codes = _codes(codes)
    found = list(model.objects.filter(code__in=codes))
    unknown = sorted(set(codes) - {item.code for item in found})
    if unknown:
        raise ValidationError({field: f"Not in the school directory: {', '.join(unknown)}."})
    return found
