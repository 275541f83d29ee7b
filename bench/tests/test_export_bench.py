"""The export bench's seed values (bench/export_bench.py; its clean-up: test_stack.py)."""
import pytest

from bench import export_bench
from bench.survey_document import bench_document
from respondents.answer_values import answer_value_problem
from surveys.models import Choice, Question
from surveys.selectors import answerable_questions
from surveys.services import survey_create

pytestmark = pytest.mark.django_db


def test_every_value_seeded_keeps_its_question_s_rules_and_every_answerable_question_gets_some():
    survey = survey_create(document=bench_document(slug="export-bench-test", pages=7))  # every kind of last question
    values = export_bench.question_values(survey)
    questions = {q.pk: q for q in answerable_questions(survey=survey)}
    assert set(values) == set(questions) and len(values) == 35
    assert {questions[pk].kind for pk in values} == set(Question.Kind.values) - set(Question.UNANSWERED_KINDS)
    for pk, options in values.items():
        question = questions[pk]
        choices = list(Choice.objects.filter(question_id=question.grid_id or pk).order_by("position")
                       .values_list("value", flat=True))
        assert options, question.code
        assert [answer_value_problem(question, value, choices) for value in options] == [None] * len(options), \
            question.code
