"""The monitoring pages' reads: one level of the summary, scoped, its rows sorted and filtered, where a staff
member's page opens."""
import pytest

from accounts.models import StaffMember
from accounts.scopes import COMMAND_LINE
from monitoring.refresh import completion_summary_refresh
from monitoring.selectors import MY_SCHOOLS, Completion, completion_home, completion_overview, completion_rows
from respondents.tests.factories import make_respondents, make_school, make_staff, scope_of

pytestmark = pytest.mark.django_db


def test_the_state_level_reads_the_state_and_district_rows(progress):
    completion_summary_refresh(survey=progress)
    overview = completion_overview(scope=COMMAND_LINE, survey=progress)
    whole = overview.whole
    assert overview.level == "state" and overview.refreshed_at is not None
    assert (whole.rostered, whole.withdrawn, whole.completed, whole.in_progress, whole.not_started) == (6, 1, 1, 4, 1)
    assert whole.completion_rate == 16.7 and whole.median_page == 2  # pages 2, 2, 2, 3
    assert whole.stops() == [(1, 0), (2, 3), (3, 1)]
    assert [(d.code, d.rostered) for d in overview.children] == [("D1", 4), ("D2", 2)]


def test_a_district_is_shown_by_school_and_a_school_by_grade_and_role(progress, lincoln):
    completion_summary_refresh(survey=progress)
    district = completion_overview(scope=COMMAND_LINE, survey=progress, district=lincoln.district)
    assert district.level == "district" and district.whole.label == lincoln.district.name
    assert [(s.code, s.rostered, s.completion_rate, s.median_page) for s in district.children] == [("LIN", 4, 25.0, 2)]
    school = completion_overview(scope=COMMAND_LINE, survey=progress, school=lincoln)
    assert school.level == "school" and school.whole.rostered == 4
    assert [group.label for group in school.children] == ["grade 7 · student", "grade 7 · teacher"]


def test_a_coordinator_sees_only_their_schools_summed_at_every_level(progress, lincoln, adams):
    other = make_school("OTH", "Other school", ("D1", "District One"))
    make_respondents(progress, 5, school=other)
    completion_summary_refresh(survey=progress)
    coordinator = scope_of(make_staff(StaffMember.Role.SCHOOL_COORDINATOR, schools=[lincoln]))
    mine = completion_overview(scope=coordinator, survey=progress)
    assert mine.whole.label == "Your schools" and mine.whole.rostered == 4  # not the district's 9
    assert mine.level == MY_SCHOOLS and [(s.code, s.rostered) for s in mine.children] == [("LIN", 4)]
    district = completion_overview(scope=coordinator, survey=progress, district=lincoln.district)
    assert district.whole.rostered == 4 and [s.code for s in district.children] == ["LIN"]
    assert completion_overview(scope=coordinator, survey=progress, school=adams).whole.rostered == 0
    assert list(coordinator.districts()) == [lincoln.district]


def test_before_any_refresh_the_overview_is_empty_and_says_so(survey):
    overview = completion_overview(scope=COMMAND_LINE, survey=survey)
    assert overview.refreshed_at is None and overview.whole.rostered == 0 and overview.whole.median_page is None


def test_rows_are_filtered_by_name_or_code_and_rate_and_sorted_by_any_column():
    rows = [Completion(label="Adams", code="ADA", rostered=10, completed=5),
            Completion(label="lincoln", code="LIN", rostered=10, completed=9),
            Completion(label="Monroe", code="MON", rostered=4, completed=1)]
    assert [r.code for r in completion_rows(rows)] == ["ADA", "LIN", "MON"]  # by name, case apart
    assert [r.code for r in completion_rows(rows, sort="-rate")] == ["LIN", "ADA", "MON"]
    assert [r.code for r in completion_rows(rows, sort="rostered")] == ["MON", "ADA", "LIN"]
    assert [r.code for r in completion_rows(rows, sort="nonsense")] == ["ADA", "LIN", "MON"]
    assert [r.code for r in completion_rows(rows, query="on")] == ["MON"]
    assert [r.code for r in completion_rows(rows, query="lin")] == ["LIN"]
    assert [r.code for r in completion_rows(rows, below=50)] == ["MON"]


def test_the_median_page_is_named_at_every_level(progress, lincoln):
    completion_summary_refresh(survey=progress)
    whole = completion_overview(scope=COMMAND_LINE, survey=progress).whole
    assert whole.median_page_name.label == "Page 2 — Second"
    school = completion_overview(scope=COMMAND_LINE, survey=progress, school=lincoln)
    assert [(c.label, str(c.median_page_name)) for c in school.children] == [
        ("grade 7 · student", "Page 2 — Second"), ("grade 7 · teacher", "None")]


def test_a_school_s_grades_are_listed_k_first_then_as_numbers_and_the_people_without_one_last(survey, lincoln):
    for grade in ("10", "9", "K", "07", ""):
        make_respondents(survey, 1, school=lincoln, grade=grade, role="teacher" if not grade else "student")
    completion_summary_refresh(survey=survey)
    school = completion_overview(scope=COMMAND_LINE, survey=survey, school=lincoln)
    labels = ["grade K · student", "grade 07 · student", "grade 9 · student", "grade 10 · student", "teacher"]
    assert [row.label for row in completion_rows(school.children)] == labels
    assert [row.label for row in completion_rows(school.children, sort="-name")] == labels[::-1]


def test_completion_opens_on_a_coordinator_s_one_school_their_schools_their_one_district_or_the_state(
        lincoln, adams):
    jefferson = make_school("JEF", "Jefferson", ("D1", "District One"))
    Role = StaffMember.Role

    def home(role, **covered):
        found = completion_home(scope=scope_of(make_staff(role, **covered)))
        return found.level, found.district, found.school

    assert home(Role.SCHOOL_COORDINATOR, schools=[lincoln]) == ("school", None, lincoln)
    assert home(Role.SCHOOL_COORDINATOR, schools=[lincoln, adams]) == (MY_SCHOOLS, None, None)
    assert home(Role.SCHOOL_COORDINATOR, schools=[lincoln, jefferson]) == (MY_SCHOOLS, None, None)
    assert home(Role.DISTRICT_COORDINATOR, districts=[lincoln.district]) == ("district", lincoln.district, None)
    assert home(Role.DISTRICT_COORDINATOR, districts=[lincoln.district, adams.district]) == ("state", None, None)
    assert home(Role.ANALYST, districts=[adams.district]) == ("school", None, adams)  # its one school
    assert home(Role.ANALYST) == ("state", None, None)
    assert home(Role.STATE_ADMIN) == ("state", None, None)
    assert completion_home(scope=COMMAND_LINE).level == "state"


def test_a_school_coordinator_of_several_schools_sees_them_side_by_side_across_districts(survey, lincoln, adams):
    make_respondents(survey, 2, school=lincoln, grade="7")
    make_respondents(survey, 3, school=adams, grade="8")
    make_respondents(survey, 4, school=make_school("OTH", "Other", ("D1", "District One")))
    completion_summary_refresh(survey=survey)
    scope = scope_of(make_staff(StaffMember.Role.SCHOOL_COORDINATOR, schools=[lincoln, adams]))
    mine = completion_overview(scope=scope, survey=survey)
    assert (mine.level, mine.whole.label, mine.whole.rostered) == (MY_SCHOOLS, "Your schools", 5)
    assert [(s.code, s.label, s.rostered) for s in completion_rows(mine.children)] == [
        ("ADA", "Adams", 3), ("LIN", "Lincoln", 2)]
