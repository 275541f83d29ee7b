"""What a roster's apply locks on PostgreSQL (the live stack): applies to one survey take turns, page saves never
wait for one. Each test holds an apply's transaction open after its locks and its reading, in a thread of its own,
and does the other thing meanwhile."""
import threading
import uuid

import pytest
from django.db import OperationalError, connection, connections, transaction

from accounts.scopes import COMMAND_LINE
from respondents.models import Nav, Respondent
from respondents.services import page_save
from rosters import importing as rosters
from rosters.models import Roster
from rosters.tests.helpers import HEADER, apply, check
from surveys.selectors import page_definition

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True, databases="__all__")]
HOLD_SECONDS = 20


class HeldApply(threading.Thread):
    """An apply's transaction, held open after ``_lock_for_apply`` and the reading, until ``release`` is set."""

    def __init__(self, roster):
        super().__init__(daemon=True)
        self.roster, self.holding, self.release = roster, threading.Event(), threading.Event()
        self.released_in_time = None

    def run(self):
        try:
            with transaction.atomic():
                rosters._lock_for_apply(self.roster)
                rosters._elsewhere_problems(self.roster, COMMAND_LINE)
                rosters._counts(self.roster, {})
                self.holding.set()
                self.released_in_time = self.release.wait(HOLD_SECONDS)
        finally:
            connections.close_all()

    def __enter__(self):
        self.start()
        assert self.holding.wait(HOLD_SECONDS), "the apply did not take its locks"
        return self

    def __exit__(self, *exc):
        self.release.set()
        self.join()


@pytest.fixture
def checked(survey, lincoln):
    """s1 in the survey, and a checked roster naming s1 (changed) and s2 (new)."""
    apply(COMMAND_LINE, check(COMMAND_LINE, survey, HEADER + "s1,LIN,7,student,en,\n"))
    roster = check(COMMAND_LINE, survey, HEADER + "s1,LIN,8,student,en,\ns2,LIN,7,student,en,\n")
    assert roster.status == Roster.Status.CHECKED
    return roster


def test_a_page_save_of_a_person_in_the_file_does_not_wait_for_the_apply(survey, checked):
    person = Respondent.objects.get(external_id="s1")
    definition = page_definition(survey=survey, number=1)
    values = {question: "" for question in definition.answerable.values()}
    with HeldApply(checked) as held:
        result = page_save(respondent_id=person.pk, definition=definition, values=values, save_id=uuid.uuid4(),
                           nav=Nav.NEXT)
        assert result.next_page == 2
    assert held.released_in_time, "the save waited for the apply's transaction to end"


def test_a_second_apply_to_the_survey_waits_for_the_first(survey, checked):
    other = check(COMMAND_LINE, survey, HEADER + "s3,LIN,7,student,en,\n")
    with HeldApply(checked):
        with pytest.raises(OperationalError, match="lock timeout"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '1s'")
            rosters._lock_for_apply(other)
