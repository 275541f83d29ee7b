"""Staff accounts, managed by state administrators: a Django user, its role and the districts or schools it covers."""
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction

from respondents.audit import Action, audit_record
from respondents.models import District, School, StaffMember

Role = StaffMember.Role


@dataclass(frozen=True)
class StaffAccount:
    username: str
    role: str
    email: str = ""
    district_codes: tuple = ()
    school_codes: tuple = ()
    is_active: bool = True


def staff_accounts(*, scope):
    """Every staff account with its role and coverage, by user name (three queries)."""
    scope.require("can_manage_staff")
    return (StaffMember.objects.select_related("user").prefetch_related("districts", "schools")
            .order_by("user__username"))


def staff_account_save(*, scope, account: StaffAccount, password=None, user_id=None):
    """Create (``user_id`` None, with ``password``) or change a staff account; return its StaffMember.

    Raises ValidationError naming the field at fault: an unknown district or
    school code, a coordinator with nothing to coordinate, a weak password, a
    user name already taken.
    """
    scope.require("can_manage_staff")
    User = get_user_model()
    districts = _by_code(District, account.district_codes, "district_codes")
    schools = _by_code(School, account.school_codes, "school_codes")
    if account.role == Role.DISTRICT_COORDINATOR and not districts:
        raise ValidationError({"district_codes": "A district coordinator needs at least one district."})
    if account.role == Role.SCHOOL_COORDINATOR and not schools:
        raise ValidationError({"school_codes": "A school coordinator needs at least one school."})
    with transaction.atomic(durable=True):
        if user_id is None:
            if User.objects.filter(username__iexact=account.username).exists():
                raise ValidationError({"username": "This user name is taken."})
            user = User(username=account.username, email=account.email)
            try:
                validate_password(password or "", user)
            except ValidationError as error:
                raise ValidationError({"password": error.messages}) from None
            user.set_password(password)
            user.is_active = account.is_active
            user.save()
            member = StaffMember(user=user)
            what = "created"
        else:
            member = StaffMember.objects.select_related("user").select_for_update().get(user_id=user_id)
            user = member.user
            if user.pk == scope.user_id and (not account.is_active or account.role != Role.STATE_ADMIN):
                raise ValidationError({"role": "You cannot take away your own administrator role or account."})
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
    return member


def _by_code(model, codes, field):
    codes = sorted({code.strip() for code in codes if code.strip()})
    found = list(model.objects.filter(code__in=codes))
    unknown = sorted(set(codes) - {item.code for item in found})
    if unknown:
        raise ValidationError({field: f"Not in the school directory: {', '.join(unknown)}."})
    return found
