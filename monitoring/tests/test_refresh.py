"""The completion summary rebuilt from respondents, rolled up exactly, never on the save path."""
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from accounts.scopes import COMMAND_LINE
from monitoring.models import CompletionSummary
from monitoring.refresh import completion_summary_refresh
from monitoring.selectors import Completion, completion_overview, completions_per_hour
from respondents.models import Respondent
from respondents.tests.factories import make_respondents
from rosters.services import respondent_withdraw

pytestmark = pytest.mark.django_db
Level = CompletionSummary.Level


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
