"""The export bench's seed values and clean-up (bench/export_bench.py)."""
import pytest
from django.utils import timezone

from bench import export_bench
from bench.survey_document import bench_document
from bench.tests.factories import seeded_respondents
from respondents.answer_values import answer_value_problem
from respondents.models import Answer, Respondent
from surveys.models import Choice, Question, Survey
from surveys.selectors import answerable_questions
from surveys.services import survey_create
from surveys.tests.factories import make_survey

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


def test_the_bench_survey_is_deleted_with_its_people_and_their_answers_and_nothing_else():
    kept, bench = make_survey(slug="kept"), survey_create(document=bench_document(slug="export-bench-3", pages=1))
    seeded_respondents(kept, 2, prefix="1")
    people = seeded_respondents(bench, 3, prefix="X")
    question = bench.questions.exclude(kind=Question.Kind.GRID).first()
    Answer.objects.bulk_create(Answer(respondent=person, question=question, value="", saved_at=timezone.now())
                               for person in people)
    export_bench.forget(bench)
    assert list(Survey.objects.values_list("slug", flat=True)) == ["kept"]
    assert Respondent.objects.count() == 2 and not Answer.objects.exists()
