"""page_save and roster_create, called directly."""
import uuid

import pytest

from respondents.models import Answer, Respondent
from respondents.services import Nav, PageSaveRefused, RosterEntry, page_save, roster_create
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
    entries = [RosterEntry(external_id=f"s{n}", school="Lincoln", grade="7", role="student") for n in range(25)]
    roster = roster_create(survey=survey, name="Lincoln", entries=entries, batch_size=10)
    respondents = list(roster.respondents.all())
    assert len(respondents) == 25
    assert len({r.access_code for r in respondents}) == 25
    assert {r.school for r in respondents} == {"Lincoln"}


def test_a_roster_with_a_repeated_external_id_is_refused_whole(survey):
    from django.db import IntegrityError

    entries = [RosterEntry(external_id="same"), RosterEntry(external_id="same")]
    with pytest.raises(IntegrityError):
        roster_create(survey=survey, name="Bad", entries=entries)
    assert not Respondent.objects.exists()
