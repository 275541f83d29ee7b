"""The monitoring tests' survey with people at every stage (``progress``)."""
import pytest

from accounts.scopes import COMMAND_LINE
from monitoring.tests.helpers import set_state
from respondents.models import Respondent
from respondents.tests.factories import make_respondents
from rosters.services import respondent_reissue_code, respondent_withdraw


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
