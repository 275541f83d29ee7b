"""The periodic task that keeps the completion summaries of open surveys current."""
import pytest

from monitoring.models import CompletionSummary
from monitoring.tasks import completion_summaries_refresh_task
from respondents.tests.factories import make_respondents
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db
Level = CompletionSummary.Level


def test_the_periodic_task_refreshes_every_open_survey_and_leaves_drafts_alone(progress):
    draft = make_survey(slug="draft", status="draft")
    make_respondents(draft, 2)
    completion_summaries_refresh_task()
    assert CompletionSummary.objects.filter(survey=progress, level=Level.GROUP).count() == 3
    assert not CompletionSummary.objects.filter(survey=draft).exists()
