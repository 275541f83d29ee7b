"""Completion monitoring: the summary rebuilt from respondents, rolled up exactly, scoped, never on the save path."""
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from accounts.models import StaffMember
from accounts.scopes import COMMAND_LINE
from monitoring.models import CompletionSummary
from monitoring.summaries import (
    MY_SCHOOLS,
    Completion,
    completion_overview,
    completion_rows,
    completion_summary_refresh,
    completions_per_hour,
)
from respondents.models import Respondent
from respondents.tests.factories import make_respondents, make_school, make_staff, scope_of
from rosters.services import respondent_reissue_code, respondent_withdraw

pytestmark = pytest.mark.django_db
Level = CompletionSummary.Level


def set_state(people, status, page=1):
    Respondent.objects.filter(pk__in=[p.pk for p in people]).update(
        status=status, current_page=page, last_saved_at=timezone.now())


@pytest.fixture
def progress(survey, lincoln, adams):
    """Lincoln grade 7: 4 students (1 completed, 2 in progress on pages 2 and 3, 1 withdrawn), 1 teacher
    not started; Adams grade 8: 2 students in progress on page 2, one of them with a reissued code."""
    sevens = make_respondents(survey, 4, school=lincoln, grade="7", role="student")
    make_respondents(survey, 1, school=lincoln, grade="7", role="teacher")
    eights = make_respondents(survey, 2, school=adams, grade="8", role="student")
    set_state(sevens[:1], Respondent.Status.COMPLETED, 3)
    set_state(sevens[1:2], Respondent.Status.IN_PROGRESS, 2)
    set_state(sevens[2:3], Respondent.Status.IN_PROGRESS, 3)
    respondent_withdraw(scope=COMMAND_LINE, respondent_ids=[sevens[3].pk], survey=survey)
    set_state(eights, Respondent.Status.IN_PROGRESS, 2)
    respondent_reissue_code(scope=COMMAND_LINE, respondent_id=eights[0].pk)
    return survey


def set_completed(people, when):
    people = people if isinstance(people, list) else [people]
    Respondent.objects.filter(pk__in=[p.pk for p in people]).update(
        status=Respondent.Status.COMPLETED, current_page=3, last_saved_at=when, completed_at=when)


def group_rows(survey):
    return {(r.school.code, r.grade, r.role): r for r in CompletionSummary.objects.filter(
        survey=survey, level=Level.GROUP).select_related("school")}


def test_the_summary_counts_each_school_grade_and_role_with_withdrawn_people_apart(progress):
    assert completion_summary_refresh(survey=progress) == 3
    rows = group_rows(progress)
    lincoln_students = rows["LIN", "7", "student"]
    assert (lincoln_students.rostered, lincoln_students.withdrawn, lincoln_students.not_started,
            lincoln_students.in_progress, lincoln_students.completed) == (3, 1, 0, 2, 1)
    assert lincoln_students.pages == {"2": 1, "3": 1}
    assert rows["ADA", "8", "student"].in_progress == 2  # a reissued code is the same respondent
    assert completion_summary_refresh(survey=progress) == 3  # rebuilt, not added to
    assert CompletionSummary.objects.filter(level=Level.GROUP).count() == 3
    # Two schools, two districts, the state: the levels a page reads.
    assert Counter(CompletionSummary.objects.values_list("level", flat=True)) == {
        Level.GROUP: 3, Level.SCHOOL: 2, Level.DISTRICT: 2, Level.STATE: 1}


def test_the_school_district_and_state_rows_add_up_their_groups_exactly(progress):
    completion_summary_refresh(survey=progress)
    state = CompletionSummary.objects.get(level=Level.STATE)
    groups = CompletionSummary.objects.filter(level=Level.GROUP)
    for name in ("rostered", "withdrawn", "not_started", "in_progress", "completed"):
        assert getattr(state, name) == sum(getattr(g, name) for g in groups)
    assert state.pages == {"2": 3, "3": 1}
    lincoln = CompletionSummary.objects.get(level=Level.SCHOOL, school__code="LIN")
    assert (lincoln.rostered, lincoln.withdrawn, lincoln.district.code) == (4, 1, "D1")


def test_completions_are_counted_per_hour_at_school_district_and_state(survey, lincoln, adams):
    ten = datetime(2026, 11, 23, 10, 5, tzinfo=UTC)
    set_completed(make_respondents(survey, 2, school=lincoln), ten)
    set_completed(make_respondents(survey, 1, school=lincoln), ten + timedelta(minutes=50))
    set_completed(make_respondents(survey, 1, school=adams), ten + timedelta(hours=2))
    withdrawn = make_respondents(survey, 1, school=adams)
    set_completed(withdrawn, ten)
    respondent_withdraw(scope=COMMAND_LINE, respondent_ids=[withdrawn.pk], survey=survey)
    completion_summary_refresh(survey=survey)
    state = CompletionSummary.objects.get(level=Level.STATE)
    assert state.completions == {"2026-11-23T10:00:00+00:00": 3, "2026-11-23T12:00:00+00:00": 1}
    assert CompletionSummary.objects.get(level=Level.SCHOOL, school=lincoln).completions == {
        "2026-11-23T10:00:00+00:00": 3}
    assert CompletionSummary.objects.get(level=Level.GROUP, school=adams).completions == {}  # not kept per group
    whole = completion_overview(scope=COMMAND_LINE, survey=survey).whole
    assert completions_per_hour(whole) == [(ten.replace(minute=0), 3), (ten.replace(hour=11, minute=0), 0),
                                           (ten.replace(hour=12, minute=0), 1)]
    # From the opening of the survey to now, every hour, zeros included.
    series = completions_per_hour(whole, opens_at=ten - timedelta(hours=2), until=ten + timedelta(hours=5, minutes=9))
    assert [hour.hour for hour, _ in series] == [8, 9, 10, 11, 12, 13, 14, 15] and sum(c for _, c in series) == 4
    assert completions_per_hour(Completion()) == []


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


def test_the_periodic_task_refreshes_every_open_survey_and_leaves_drafts_alone(progress):
    from monitoring.tasks import completion_summaries_refresh_task
    from surveys.tests.factories import make_survey

    draft = make_survey(slug="draft", status="draft")
    make_respondents(draft, 2)
    completion_summaries_refresh_task()
    assert CompletionSummary.objects.filter(survey=progress, level=Level.GROUP).count() == 3
    assert not CompletionSummary.objects.filter(survey=draft).exists()


# ---------------------------------------------------------------- pages named as the definition names them

def test_pages_are_named_by_the_definition_s_number_and_title_and_a_conditional_page_by_its_condition():
    from monitoring.summaries import page_name, page_names
    from surveys.tests.factories import make_demo_survey

    names = page_names(survey=make_demo_survey())
    teaching, classmates = names[5], names[6]
    assert (str(teaching), teaching.label) == ("Page 5 — Your teaching", "Page 5 — Your teaching (conditional)")
    assert teaching.shown_if == "you chose “Teacher” for “Which best describes you?”"
    assert (classmates.label, classmates.conditional) == ("Page 6 — Classmates", False)
    assert page_name(names, 40).label == "Page 40"  # a page the definition no longer has


def test_the_median_page_is_named_at_every_level(progress, lincoln):
    completion_summary_refresh(survey=progress)
    whole = completion_overview(scope=COMMAND_LINE, survey=progress).whole
    assert whole.median_page_name.label == "Page 2 — Second"
    school = completion_overview(scope=COMMAND_LINE, survey=progress, school=lincoln)
    assert [(c.label, str(c.median_page_name)) for c in school.children] == [
        ("grade 7 · student", "Page 2 — Second"), ("grade 7 · teacher", "None")]


def test_the_not_finished_lists_name_the_page_and_put_people_without_a_grade_under_their_role(lincoln):
    import csv
    import io

    from pypdf import PdfReader

    from monitoring.summaries import non_responders, non_responders_write_csv, non_responders_write_pdf
    from surveys.tests.factories import make_demo_survey

    survey = make_demo_survey()
    students = make_respondents(survey, 2, school=lincoln, grade="7", role="student", display_name="Ana")
    teachers = make_respondents(survey, 2, school=lincoln, role="teacher", display_name="Mr Reyes")
    make_respondents(survey, 1, school=lincoln, role="parent", display_name="Ms Ortiz")
    set_state(teachers[:1], Respondent.Status.IN_PROGRESS, 5)
    set_state(students[:1], Respondent.Status.IN_PROGRESS, 6)
    people = non_responders(scope=COMMAND_LINE, survey=survey, school=lincoln)
    stream = io.StringIO()
    non_responders_write_csv(scope=COMMAND_LINE, survey=survey, school=lincoln, people=people, stream=stream)
    rows = {row["external_id"] or row["access_code"]: row for row in csv.DictReader(io.StringIO(stream.getvalue()))}
    assert rows[teachers[0].formatted_access_code]["current_page_name"] == "Page 5 — Your teaching (conditional)"
    assert rows[students[0].formatted_access_code]["current_page_name"] == "Page 6 — Classmates"
    pdf = io.BytesIO()
    non_responders_write_pdf(scope=COMMAND_LINE, survey=survey, school=lincoln, people=people, stream=pdf)
    pages = [page.extract_text() for page in PdfReader(io.BytesIO(pdf.getvalue())).pages]
    assert len(pages) == 3  # grade 7, parents, teachers (no grade sorts last): a page each
    assert "Lincoln (LIN) · Grade 7" in pages[0] and "Page 6 — Classmates" in pages[0]
    assert "Lincoln (LIN) · Parents" in pages[1] and "Ms Ortiz" in pages[1]
    assert "Lincoln (LIN) · Teachers" in pages[2] and "Page 5 — Your teaching (conditional)" in pages[2]
    assert "grade —" not in "".join(pages)


def test_the_not_finished_list_prints_names_in_any_script(lincoln, slip_fonts):
    import io

    from pypdf import PdfReader

    from monitoring.summaries import non_responders, non_responders_write_pdf
    from surveys.tests.factories import make_demo_survey

    survey = make_demo_survey()
    make_respondents(survey, 1, school=lincoln, role="parent", display_name="Анна Иванова")
    make_respondents(survey, 1, school=lincoln, role="parent", display_name="王芳")
    pdf = io.BytesIO()
    non_responders_write_pdf(scope=COMMAND_LINE, survey=survey, school=lincoln,
                             people=non_responders(scope=COMMAND_LINE, survey=survey, school=lincoln), stream=pdf)
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf.getvalue())).pages)
    assert "Анна Иванова" in text and "王芳" in text and "Lincoln (LIN) · Parents" in text


def test_a_school_s_grades_are_listed_k_first_then_as_numbers_and_the_people_without_one_last(survey, lincoln):
    for grade in ("10", "9", "K", "07", ""):
        make_respondents(survey, 1, school=lincoln, grade=grade, role="teacher" if not grade else "student")
    completion_summary_refresh(survey=survey)
    school = completion_overview(scope=COMMAND_LINE, survey=survey, school=lincoln)
    labels = ["grade K · student", "grade 07 · student", "grade 9 · student", "grade 10 · student", "teacher"]
    assert [row.label for row in completion_rows(school.children)] == labels
    assert [row.label for row in completion_rows(school.children, sort="-name")] == labels[::-1]


def test_the_not_finished_lists_go_grade_by_grade_in_grade_order(lincoln):
    import csv
    import io

    from pypdf import PdfReader

    from monitoring.summaries import non_responders, non_responders_write_csv, non_responders_write_pdf
    from surveys.tests.factories import make_survey

    survey = make_survey()
    for grade in ("10", "9", "K", ""):
        make_respondents(survey, 1, school=lincoln, grade=grade, role="teacher" if not grade else "student")
    people = non_responders(scope=COMMAND_LINE, survey=survey, school=lincoln)
    stream = io.StringIO()
    non_responders_write_csv(scope=COMMAND_LINE, survey=survey, school=lincoln, people=people, stream=stream)
    assert [row["grade"] for row in csv.DictReader(io.StringIO(stream.getvalue()))] == ["K", "9", "10", ""]
    pdf = io.BytesIO()
    non_responders_write_pdf(scope=COMMAND_LINE, survey=survey, school=lincoln, people=people, stream=pdf)
    headers = [page.extract_text().splitlines()[1].split(" · ")[1] for page in PdfReader(io.BytesIO(pdf.getvalue())).pages]
    assert headers == ["Grade K", "Grade 9", "Grade 10", "Teachers"]


def test_completion_opens_on_a_coordinator_s_one_school_their_schools_their_one_district_or_the_state(
        lincoln, adams):
    from monitoring.summaries import completion_home

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


def test_the_not_finished_csv_writes_times_in_the_deployment_s_zone_with_the_offset_as_exports_do(
        lincoln, settings):
    import csv
    import io

    from fileformats.tables import moment_text
    from monitoring.summaries import non_responders, non_responders_write_csv
    from surveys.tests.factories import make_survey

    settings.TIME_ZONE = "America/Chicago"
    survey = make_survey()
    person = make_respondents(survey, 1, school=lincoln, grade="7")
    saved = datetime(2026, 12, 2, 15, 15, 0, 250_000, tzinfo=UTC)
    Respondent.objects.filter(pk=person.pk).update(status=Respondent.Status.IN_PROGRESS, last_saved_at=saved)
    stream = io.StringIO()
    non_responders_write_csv(scope=COMMAND_LINE, survey=survey, school=lincoln,
                             people=non_responders(scope=COMMAND_LINE, survey=survey, school=lincoln), stream=stream)
    [row] = csv.DictReader(io.StringIO(stream.getvalue()))
    assert row["last_saved_at"] == "2026-12-02T09:15:00-06:00" == moment_text(saved)
