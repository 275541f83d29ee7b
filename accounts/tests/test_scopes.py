"""The scope of each staff role, on every method of ``Scope``: what it may do, and which schools, districts and
respondents it sees. Two districts: D1 (Lincoln, Washington) and D2 (Adams); a respondent in each school and one
with no school."""
import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied

from accounts.models import StaffMember
from accounts.scopes import COMMAND_LINE, NotStaff, staff_scope
from respondents.models import School
from respondents.tests.factories import make_respondents, make_school, make_staff
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
PERMISSIONS = ["can_manage_people", "can_see_codes", "can_export", "can_manage_staff", "can_import_schools",
               "can_manage_surveys", "can_read_audit"]
# role: (the permissions it has, the schools it sees; None: all of them, and those with no school).
ROLES = {
    "state administrator": (set(PERMISSIONS), None),
    "district coordinator": ({"can_manage_people", "can_see_codes"}, {"LIN", "WAS"}),
    "school coordinator": ({"can_manage_people", "can_see_codes"}, {"LIN"}),
    "analyst of the state": ({"can_export"}, None),
    "analyst of a district": ({"can_export"}, {"ADA"}),
}


@pytest.fixture
def state():
    """The schools, a survey with a respondent in each school and one without, and a scope per role."""
    lincoln, washington = make_school("LIN", "Lincoln"), make_school("WAS", "Washington")
    adams = make_school("ADA", "Adams", district=("D2", "District Two"))
    survey = make_survey()
    for school in (lincoln, washington, adams, None):
        make_respondents(survey, school=school, external_id=f"p-{school.code if school else 'none'}")
    accounts = {
        "state administrator": make_staff(Role.STATE_ADMIN),
        "district coordinator": make_staff(Role.DISTRICT_COORDINATOR, districts=[lincoln.district]),
        "school coordinator": make_staff(Role.SCHOOL_COORDINATOR, schools=[lincoln]),
        "analyst of the state": make_staff(Role.ANALYST),
        "analyst of a district": make_staff(Role.ANALYST, districts=[adams.district]),
    }
    return survey, {name: staff_scope(user=user, address="192.0.2.1") for name, user in accounts.items()}


@pytest.mark.parametrize("name", ROLES)
def test_each_role_may_do_what_its_permissions_say_and_require_refuses_the_rest(state, name):
    _, scopes = state
    scope, (allowed, _) = scopes[name], ROLES[name]
    assert {permission for permission in PERMISSIONS if getattr(scope, permission)} == allowed
    for permission in PERMISSIONS:
        if permission in allowed:
            scope.require(permission)
        else:
            with pytest.raises(PermissionDenied, match=permission):
                scope.require(permission)


@pytest.mark.parametrize("name", ROLES)
def test_each_role_sees_its_schools_their_districts_and_their_respondents(state, name):
    survey, scopes = state
    scope, (_, codes) = scopes[name], ROLES[name]
    every = {"LIN", "WAS", "ADA"}
    assert scope.all_schools == (codes is None)
    assert {school.code for school in scope.schools()} == (codes or every)
    districts = {"D1" if code in {"LIN", "WAS"} else "D2" for code in codes or every}
    assert {district.code for district in scope.districts()} == districts
    seen = {respondent.external_id for respondent in scope.respondents(survey)}
    assert seen == ({f"p-{code}" for code in codes} if codes else {"p-LIN", "p-WAS", "p-ADA", "p-none"})
    # ``None``: every survey's respondents, under the same rule.
    other = make_survey(slug="other-survey")
    make_respondents(other, school=scope.schools().first(), external_id="elsewhere")
    assert "elsewhere" in {respondent.external_id for respondent in scope.respondents(None)}
    assert "elsewhere" not in seen
    assert {school.code for school in School.objects.all() if scope.covers_school(school.pk)} == (codes or every)


@pytest.mark.parametrize("name", ROLES)
def test_a_scope_names_its_role_and_who_acts_from_where(state, name):
    _, scopes = state
    scope = scopes[name]
    assert scope.get_role_display() == Role(scope.role).label
    assert scope.username and scope.user_id and scope.address == "192.0.2.1"


def test_a_superuser_without_a_staff_role_is_a_state_administrator():
    user = get_user_model().objects.create_superuser(username="root", password="x" * 20)
    scope = staff_scope(user=user)
    assert scope.role == Role.STATE_ADMIN and scope.all_schools and scope.can_read_audit


def test_an_account_without_a_staff_role_or_not_active_has_no_scope():
    plain = get_user_model().objects.create_user(username="plain", password="x" * 20)
    with pytest.raises(NotStaff, match="no staff role"):
        staff_scope(user=plain)
    coordinator = make_staff(Role.SCHOOL_COORDINATOR)
    coordinator.is_active = False
    with pytest.raises(NotStaff, match="not signed in"):
        staff_scope(user=coordinator)


def test_a_coordinator_with_no_school_sees_nothing(state):
    survey, _ = state
    scope = staff_scope(user=make_staff(Role.SCHOOL_COORDINATOR))
    assert not scope.all_schools and not scope.schools().exists() and not scope.respondents(survey).exists()


def test_the_command_line_acts_for_the_whole_state():
    assert COMMAND_LINE.all_schools and all(getattr(COMMAND_LINE, permission) for permission in PERMISSIONS)


def test_only_a_superusers_scope_and_the_command_lines_may_change_other_administrators(state):
    _, scopes = state
    root = staff_scope(user=get_user_model().objects.create_superuser(username="root", password="x" * 20))
    assert root.is_superuser and root.can_change_administrators and COMMAND_LINE.can_change_administrators
    assert not any(scope.is_superuser or scope.can_change_administrators for scope in scopes.values())
