"""page_save and roster_create, called directly."""
import uuid

import pytest

from respondents.models import Answer, Nav, PageSave, Respondent
from respondents.services import PageSaveRefused, page_save
from respondents.tests.factories import make_school
from rosters.services import RosterEntry, roster_create
from surveys.selectors import page_definition

pytestmark = pytest.mark.django_db


def save(respondent, number, answers, *, nav=Nav.NEXT, save_id=None):
    definition = page_definition(survey=respondent.survey, number=number)
    values = {q: answers.get(code, "") for code, q in definition.answerable.items()}
    return page_save(respondent_id=respondent.pk, definition=definition, values=values,
                     save_id=save_id or uuid.uuid4(), nav=nav)


def test_next_and_back_stay_within_the_survey(respondent):
    assert save(respondent, 1, {}, nav=Nav.BACK).next_page == 1
    assert save(respondent, 3, {}, nav=Nav.NEXT).next_page == 3
    assert save(respondent, 2, {}, nav=Nav.NEXT).next_page == 3


def test_progress_counts_the_pages_behind_the_respondent(respondent):
    assert save(respondent, 1, {}).progress == 33
    assert save(respondent, 2, {}).progress == 67


def test_the_first_save_starts_the_response_and_later_ones_keep_the_start_time(respondent):
    save(respondent, 1, {"colour": "red"})
    started = Respondent.objects.get(pk=respondent.pk).started_at
    save(respondent, 2, {})
    respondent.refresh_from_db()
    assert respondent.started_at == started and respondent.last_saved_at >= started
    assert respondent.status == Respondent.Status.IN_PROGRESS


def test_a_retried_save_id_writes_nothing_even_with_other_answers(respondent):
    save_id = uuid.uuid4()
    first = save(respondent, 1, {"colour": "red"}, save_id=save_id)
    retry = save(respondent, 1, {"colour": "blue"}, save_id=save_id)
    assert retry.replayed and (retry.next_page, retry.progress) == (first.next_page, first.progress)
    assert Answer.objects.get(question__code="colour").value == "red"


def test_a_late_replay_of_an_earlier_save_id_does_not_bring_back_older_answers(respondent):
    first, second = uuid.uuid4(), uuid.uuid4()
    original = save(respondent, 1, {"colour": "red"}, save_id=first)
    save(respondent, 1, {"colour": "blue"}, save_id=second)
    late = save(respondent, 1, {"colour": "red"}, save_id=first)
    assert Answer.objects.get(question__code="colour").value == "blue"
    assert late.replayed and (late.page, late.next_page, late.completed) == (original.page, original.next_page, False)


def test_a_replay_answers_as_the_first_save_did_even_after_the_respondent_moved_on(respondent):
    save_id = uuid.uuid4()
    save(respondent, 1, {"colour": "red"}, save_id=save_id)
    save(respondent, 2, {}, nav=Nav.NEXT)
    replay = save(respondent, 1, {"colour": "red"}, save_id=save_id)
    assert (replay.page, replay.next_page, replay.replayed) == (1, 2, True)
    assert Respondent.objects.get(pk=respondent.pk).current_page == 3


def test_a_replay_of_the_finish_after_completion_answers_completed(respondent):
    save(respondent, 1, {"colour": "red"})
    save_id = uuid.uuid4()
    assert save(respondent, 3, {"again": "2"}, nav=Nav.FINISH, save_id=save_id).completed
    replay = save(respondent, 3, {"again": "1"}, nav=Nav.FINISH, save_id=save_id)
    assert replay.completed and replay.replayed
    assert Answer.objects.get(question__code="again").value == "2"


def test_every_applied_save_is_logged_once_with_its_page_nav_and_answer_count(respondent):
    ids = [uuid.uuid4() for _ in range(3)]
    save(respondent, 1, {"colour": "red"}, save_id=ids[0])
    save(respondent, 2, {}, nav=Nav.BACK, save_id=ids[1])
    save(respondent, 2, {}, nav=Nav.BACK, save_id=ids[1])  # a replay: not logged again
    save(respondent, 3, {"again": "1"}, nav=Nav.FINISH, save_id=ids[2])
    log = list(PageSave.objects.filter(respondent=respondent).order_by("pk").values_list(
        "save_id", "page", "nav", "next_page", "completed", "answer_count"))
    assert log == [
        (ids[0], 1, "next", 2, False, 4),
        (ids[1], 2, "back", 1, False, 3),
        (ids[2], 3, "finish", 3, True, 2),
    ]


def test_a_retried_finish_reports_the_same_missing_pages(respondent):
    save_id = uuid.uuid4()
    first = save(respondent, 3, {"again": "1"}, nav=Nav.FINISH, save_id=save_id)
    retry = save(respondent, 3, {"again": "1"}, nav=Nav.FINISH, save_id=save_id)
    assert first.missing.keys() == retry.missing.keys() == {1}
    assert not first.completed and not retry.completed


def test_a_completed_response_refuses_new_saves(respondent):
    save(respondent, 1, {"colour": "red"})
    assert save(respondent, 3, {"again": "2"}, nav=Nav.FINISH).completed
    with pytest.raises(PageSaveRefused) as refused:
        save(respondent, 1, {"colour": "blue"})
    assert refused.value.reason == PageSaveRefused.LOCKED
    assert Answer.objects.get(question__code="colour").value == "red"


def test_a_deleted_respondent_is_gone(respondent):
    definition = page_definition(survey=respondent.survey, number=1)
    Respondent.objects.filter(pk=respondent.pk).delete()
    with pytest.raises(PageSaveRefused) as refused:
        page_save(respondent_id=respondent.pk, definition=definition, values={}, save_id=uuid.uuid4(), nav=Nav.NEXT)
    assert refused.value.reason == PageSaveRefused.GONE


def test_a_roster_gets_one_unique_code_per_respondent(survey):
    lincoln = make_school("LIN", "Lincoln")
    entries = [RosterEntry(external_id=f"s{n}", school=lincoln, grade="7", role="student") for n in range(25)]
    roster = roster_create(survey=survey, name="Lincoln", entries=entries, batch_size=10)
    respondents = list(roster.respondents.all())
    assert len(respondents) == 25
    assert len({r.access_code for r in respondents}) == 25
    assert {r.school for r in respondents} == {lincoln}


def test_a_roster_with_a_repeated_external_id_is_refused_whole(survey):
    from django.db import IntegrityError

    entries = [RosterEntry(external_id="same"), RosterEntry(external_id="same")]
    with pytest.raises(IntegrityError):
        roster_create(survey=survey, name="Bad", entries=entries)
    assert not Respondent.objects.exists()
