"""Completion monitoring: the summary rebuilt from respondents, rolled up exactly, scoped, never on the save path."""
import pytest
from django.utils import timezone

from respondents.models import CompletionSummary, Respondent, StaffMember
from respondents.monitoring import completion_overview, completion_summary_refresh
from respondents.scopes import COMMAND_LINE
from respondents.services import respondent_reissue_code, respondent_withdraw
from respondents.tests.factories import make_respondents, make_staff, scope_of

pytestmark = pytest.mark.django_db


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


def test_the_summary_counts_each_school_grade_and_role_with_withdrawn_people_apart(progress):
    assert completion_summary_refresh(survey=progress) == 3
    rows = {(r.school.code, r.grade, r.role): r for r in CompletionSummary.objects.select_related("school")}
    lincoln_students = rows["LIN", "7", "student"]
    assert (lincoln_students.rostered, lincoln_students.withdrawn, lincoln_students.not_started,
            lincoln_students.in_progress, lincoln_students.completed) == (3, 1, 0, 2, 1)
    assert lincoln_students.pages == {"2": 1, "3": 1}
    assert rows["ADA", "8", "student"].in_progress == 2  # a reissued code is the same respondent
    assert completion_summary_refresh(survey=progress) == 3  # rebuilt, not added to
    assert CompletionSummary.objects.count() == 3


def test_the_overview_rolls_up_exactly_to_school_district_and_state(progress):
    completion_summary_refresh(survey=progress)
    whole, refreshed_at = completion_overview(scope=COMMAND_LINE, survey=progress)
    assert refreshed_at is not None
    assert (whole.rostered, whole.withdrawn, whole.completed, whole.in_progress, whole.not_started) == (6, 1, 1, 4, 1)
    assert whole.completion_rate == 16.7 and whole.median_page == 2  # pages 2, 2, 2, 3
    assert [d.code for d in whole.children] == ["D1", "D2"]
    lincoln = whole.children[0].children[0]
    assert (lincoln.code, lincoln.rostered, lincoln.completion_rate, lincoln.median_page) == ("LIN", 4, 25.0, 2)
    assert [group.label for group in lincoln.children] == ["grade 7 · student", "grade 7 · teacher"]


def test_a_coordinator_sees_only_their_schools(progress, lincoln):
    completion_summary_refresh(survey=progress)
    coordinator = scope_of(make_staff(StaffMember.Role.SCHOOL_COORDINATOR, schools=[lincoln]))
    whole, _ = completion_overview(scope=coordinator, survey=progress)
    assert [school.code for district in whole.children for school in district.children] == ["LIN"]
    assert whole.rostered == 4


def test_before_any_refresh_the_overview_is_empty_and_says_so(survey):
    whole, refreshed_at = completion_overview(scope=COMMAND_LINE, survey=survey)
    assert refreshed_at is None and whole.rostered == 0 and whole.median_page is None


def test_the_periodic_task_refreshes_every_open_survey_and_leaves_drafts_alone(progress):
    from respondents.tasks import completion_summaries_refresh_task
    from surveys.tests.factories import make_survey

    draft = make_survey(slug="draft", status="draft")
    make_respondents(draft, 2)
    completion_summaries_refresh_task()
    assert CompletionSummary.objects.filter(survey=progress).count() == 3
    assert not CompletionSummary.objects.filter(survey=draft).exists()
