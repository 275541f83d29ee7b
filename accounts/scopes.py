"""What a staff member may see and do: ``staff_scope`` builds the ``Scope`` every staff read and write goes through.

Read next: ``docs/architecture.md``, "The staff area" (*Scope*: the roles, and why every service checks again).
"""
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet

from accounts.models import StaffMember
from respondents.models import District, Respondent, School
from surveys.models import Survey

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

Role = StaffMember.Role


class NotStaff(PermissionDenied):
    """The account has no staff role."""


@dataclass(frozen=True)
class Scope:
    role: str
    user_id: int | None = None
    username: str = ""
    address: str = ""
    # None: every school. Otherwise the ids of the schools covered.
    school_ids: frozenset[int] | None = None
    # A superuser's (or the command line's): may change other state administrators' accounts.
    is_superuser: bool = False

    # ---------------------------------------------------------------- what the role may do

    @property
    def all_schools(self) -> bool:
        return self.school_ids is None

    @property
    def can_manage_people(self) -> bool:
        """Import rosters, print slips, reissue codes, withdraw and restore."""
        return self.role != Role.ANALYST

    @property
    def can_see_codes(self) -> bool:
        return self.role != Role.ANALYST

    @property
    def can_export(self) -> bool:
        """Download answers (exports/jobs.py): the state office and analysts, never coordinators."""
        return self.role in {Role.STATE_ADMIN, Role.ANALYST}

    @property
    def can_manage_staff(self) -> bool:
        return self.role == Role.STATE_ADMIN

    @property
    def can_change_administrators(self) -> bool:
        """Change another state administrator's email, role, sign-in and single sign-on links (never a
        superuser's: only /admin/ does)."""
        return self.can_manage_staff and self.is_superuser

    @property
    def can_import_schools(self) -> bool:
        return self.role == Role.STATE_ADMIN

    @property
    def can_manage_surveys(self) -> bool:
        """Load survey definitions (JSON, XLSForm), give them new versions, preview and publish them."""
        return self.role == Role.STATE_ADMIN

    @property
    def can_read_audit(self) -> bool:
        return self.role == Role.STATE_ADMIN

    def require(self, permission: str) -> None:
        """Raise PermissionDenied unless the scope has ``permission`` (one of the ``can_*`` names)."""
        if not getattr(self, permission):
            raise PermissionDenied(f"{self.get_role_display()} may not do this ({permission})")

    def requester_id(self) -> int:
        """Return the user id of the staff member acting, for what is kept for them alone (a slips or export job);
        raise ValueError for a scope of nobody (the command line)."""
        if self.user_id is None:
            raise ValueError(f"{self.username or 'this scope'} is no staff member: only one can ask for a job")
        return self.user_id

    def get_role_display(self) -> "StrOrPromise":
        return Role(self.role).label

    # ---------------------------------------------------------------- what the role may see

    def schools(self) -> QuerySet[School]:
        """The schools in scope, with their districts."""
        schools = School.objects.select_related("district")
        return schools if self.school_ids is None else schools.filter(pk__in=self.school_ids)

    def districts(self) -> QuerySet[District]:
        """The districts with a school in scope."""
        return District.objects.all() if self.school_ids is None else District.objects.filter(
            pk__in=School.objects.filter(pk__in=self.school_ids).values("district_id"))

    def covers_school(self, school_id: int | None) -> bool:
        return self.school_ids is None or school_id in self.school_ids

    def respondents(self, survey: Survey | None) -> QuerySet[Respondent]:
        """The survey's respondents in scope (those with no school only for the whole state); every survey's
        for ``None``."""
        respondents = Respondent.objects.all() if survey is None else Respondent.objects.filter(survey=survey)
        return respondents if self.school_ids is None else respondents.filter(school_id__in=self.school_ids)


# The scope of an operator at the command line (manage.py import_roster, reissue_code, import_staff): the whole
# state, and other state administrators' accounts (whoever runs manage.py could make themselves a superuser).
COMMAND_LINE = Scope(role=Role.STATE_ADMIN, username="manage.py", is_superuser=True)


class _Who(TypedDict):
    user_id: int | None
    username: str
    address: str


def staff_scope(*, user: User | AnonymousUser, address: str = "") -> Scope:
    """Return the Scope of ``user``; raise NotStaff for an account with no staff role."""
    if not user.is_authenticated or not user.is_active:
        raise NotStaff("not signed in")
    who: _Who = {"user_id": user.pk, "username": user.get_username(), "address": address}
    if user.is_superuser:
        return Scope(role=Role.STATE_ADMIN, is_superuser=True, **who)
    try:
        member = StaffMember.objects.get(user=user)
    except StaffMember.DoesNotExist:
        raise NotStaff("this account has no staff role") from None
    if member.role == Role.STATE_ADMIN:
        return Scope(role=member.role, **who)
    covered = Q(pk__in=member.schools.values("pk"))
    if member.role in {Role.DISTRICT_COORDINATOR, Role.ANALYST}:
        covered |= Q(district__in=member.districts.values("pk"))
    if member.role == Role.ANALYST and not (member.districts.exists() or member.schools.exists()):
        return Scope(role=member.role, **who)  # an analyst of the whole state
    return Scope(role=member.role, school_ids=frozenset(School.objects.filter(covered).values_list("pk", flat=True)),
                 **who)


def admin_scope(*, user: User, address: str = "") -> Scope:
    """Return the Scope of ``user`` in /admin/: ``staff_scope``'s, or for an account /admin/ lets in without a staff
    role, one of no role and no permission that names them for the audit log."""
    try:
        return staff_scope(user=user, address=address)
    except NotStaff:
        return Scope(role="", user_id=user.pk, username=user.get_username(), address=address)
