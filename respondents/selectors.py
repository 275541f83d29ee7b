"""Reads of respondents and their answers."""
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Protocol

from django.db import connections, router

from infra.sql import column, table
from respondents import access_codes
from respondents.models import Answer, Respondent
from surveys.flow import SurveyFlow
from surveys.models import Question, Survey
from surveys.selectors import question_ids, required_questions, survey_flow


class QuestionKey(Protocol):
    """What the answers' reads and the page save use of a question: its id (a Question, or a page definition's
    copy of one)."""

    @property
    def pk(self) -> int: ...


def respondent_for_code(*, typed_code: str) -> Respondent | None:
    """Return the respondent whose access code is ``typed_code`` (as a person typed it), or None."""
    code = access_codes.normalize(typed_code)
    if code is None:
        return None
    return Respondent.objects.filter(access_code=code).first()


def respondent_get(*, respondent_id: int) -> Respondent | None:
    """Return the respondent with ``respondent_id``, or None."""
    return Respondent.objects.filter(pk=respondent_id).first()


def answers_for_questions(*, respondent_id: int, questions: Iterable[QuestionKey], survey: Survey | None = None,
                          codes: Collection[str] = frozenset()) -> tuple[dict[int, str], dict[str, str]]:
    """Return ``({question_id: value}, {code: value})``: the respondent's saved answers to ``questions``, and
    to the questions of ``survey`` that ``codes`` name (what its rules read), in one query."""
    ids, code_ids = _answer_ids(questions, survey, codes)
    if not ids and not code_ids:
        return {}, {}
    rows = list(Answer.objects.filter(respondent_id=respondent_id, question_id__in=ids | set(code_ids))
                .values_list("question_id", "value"))
    return _answers_split(rows, ids, code_ids)


@dataclass(frozen=True)
class RespondentState:
    """What the survey pages check of a respondent on every request (``respondent_answers``)."""

    id: int
    status: str
    access_code: str
    is_withdrawn: bool
    current_page: int

    @property
    def is_completed(self) -> bool:
        return self.status == Respondent.Status.COMPLETED


def respondent_answers(*, respondent_id: int, questions: Iterable[QuestionKey], survey: Survey | None = None,
                       codes: Collection[str] = frozenset()
                       ) -> tuple[RespondentState | None, dict[int, str], dict[str, str]]:
    """Return ``(RespondentState or None, {question_id: value}, {code: value})``: the respondent (None if the row is
    gone) and their saved answers, as ``answers_for_questions``, in one query: the respondent row LEFT JOINed to
    the answers. The page a respondent reads needs both, and this is its only query (docs/performance.md): one
    round trip, and SQL written once per number of questions instead of an ORM query built on every request."""
    ids, code_ids = _answer_ids(questions, survey, codes)
    wanted = [*ids, *code_ids]
    alias = router.db_for_read(Answer)
    with connections[alias].cursor() as cursor:
        cursor.execute(_respondent_answers_sql(len(wanted)), [*wanted, respondent_id])
        rows = cursor.fetchall()
    if not rows:
        return None, {}, {}
    pk, status, access_code, withdrawn, current_page = rows[0][:5]
    state = RespondentState(id=pk, status=status, access_code=access_code, is_withdrawn=bool(withdrawn),
                            current_page=current_page)
    return (state, *_answers_split([row[5:] for row in rows if row[5] is not None], ids, code_ids))


@cache
def _respondent_answers_sql(count: int) -> str:
    r, a = Respondent, Answer
    which = f"a.{column(a, 'question')} IN ({', '.join(['%s'] * count)})" if count else "1 = 0"
    return f"""
        SELECT r.{column(r, "id")}, r.{column(r, "status")}, r.{column(r, "access_code")},
               r.{column(r, "withdrawn_at")} IS NOT NULL, r.{column(r, "current_page")},
               a.{column(a, "question")}, a.{column(a, "value")}
        FROM {table(r)} r
        LEFT JOIN {table(a)} a ON a.{column(a, "respondent")} = r.{column(r, "id")} AND {which}
        WHERE r.{column(r, "id")} = %s
    """


def _answer_ids(questions: Iterable[QuestionKey], survey: Survey | None,
               codes: Collection[str]) -> tuple[set[int], dict[int, str]]:
    """Return ``({question_id}, {question_id: code})``: the ids of ``questions``, and of the questions ``codes`` name."""
    ids = {q.pk for q in questions}
    code_ids: dict[int, str] = {}
    if codes:
        if survey is None:
            raise ValueError("the questions that codes name are those of a survey: give it")
        all_ids = question_ids(survey=survey)
        code_ids = {all_ids[code]: code for code in codes}
    return ids, code_ids


def _answers_split(rows: Sequence[tuple[int, str]], ids: set[int],
                   code_ids: dict[int, str]) -> tuple[dict[int, str], dict[str, str]]:
    return ({pk: value for pk, value in rows if pk in ids},
            {code_ids[pk]: value for pk, value in rows if pk in code_ids})


def missing_required(*, respondent_id: int, survey: Survey, required: Sequence[tuple[int, Question]] | None = None,
                     flow: SurveyFlow | None = None) -> dict[int, list[Question]]:
    """Return ``{page_number: [question, ...]}`` of required questions the respondent has not answered.

    A required question that is not asked (its page or its own show_if does
    not hold) is not missing. ``required`` is ``required_questions(survey=survey)``
    and ``flow`` ``survey_flow(survey=survey)`` when the caller has read them already.
    """
    if required is None:
        required = required_questions(survey=survey)
    if not required:
        return {}
    flow = flow or survey_flow(survey=survey)
    if not flow.conditional:
        answered = set(
            Answer.objects.filter(respondent_id=respondent_id, question_id__in=[q.pk for _, q in required])
            .exclude(value="")
            .values_list("question_id", flat=True)
        )
        asked = None
    else:
        # One query for the required answers and every answer the rules read.
        saved, facts = answers_for_questions(
            respondent_id=respondent_id, questions=[q for _, q in required], survey=survey, codes=flow.reads)
        answered = {pk for pk, value in saved.items() if value != ""}
        answers = flow.effective(facts)
        asked = {q.code for _, q in required if flow.asks(q.code, answers)}
    missing: dict[int, list[Question]] = {}
    for number, question in required:
        if question.pk not in answered and (asked is None or question.code in asked):
            missing.setdefault(number, []).append(question)
    return missing


