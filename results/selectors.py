"""What the results page reads: one page of the survey's questions, counted within a scope and filters, with
small cells suppressed (``results/suppression.py``).

Only AnswerCount rows are read, only those of the shown questions and of the
level that answers the filters, and the database adds them up: the state's
rows (by grade and role) for a whole-state scope, a district's for a district
(or for a scope that covers every school of it), a school's groups for a
school or for a scope that covers only some schools of a district. So a page
reads a few hundred rows whatever the survey's size; a coordinator of one
school reads that school's.
"""
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Count, Q, QuerySet, Sum

from accounts.scopes import Scope
from respondents.models import District, Respondent, School
from results.aggregates import Bins
from results.models import AnswerCount, ResultsRefresh
from results.suppression import cells_suppressed, table_too_small
from surveys.models import Question, Survey
from surveys.selectors import PageDefinition, QuestionDefinition, page_count, page_definition

Level = AnswerCount.Level
Cell = AnswerCount.Cell
Status = Respondent.Status


@dataclass(frozen=True)
class ResultCell:
    """One answer's count and percentage of those who answered; both None where suppressed."""

    label: str
    count: int | None
    percent: float | None

    @property
    def suppressed(self) -> bool:
        return self.count is None


@dataclass(frozen=True)
class QuestionResult:
    """One question's figures in the selection. ``answered`` is None where too few answered to show anything
    (``too_few``); ``cells`` is empty for a question counted only (text, dates, times)."""

    code: str
    prompt: str
    kind: str
    heading: str = ""  # a grid row's grid prompt
    answered: int | None = None
    too_few: bool = False
    cells: tuple[ResultCell, ...] = ()
    mean: float | None = None
    several: bool = False  # a multiple choice: percentages add up to more than 100

    @property
    def kind_label(self) -> str:
        return str(Question.Kind(self.kind).label)

    @property
    def counted_only(self) -> bool:
        return self.kind not in (*Question.CHOICE_KINDS, *Question.NUMBER_KINDS)

    @property
    def suppressed(self) -> bool:
        return any(cell.suppressed for cell in self.cells)


@dataclass(frozen=True)
class SurveyResults:
    """A page of the survey's questions with their figures, for a selection of respondents."""

    page: PageDefinition
    page_count: int
    threshold: int
    refreshed_at: datetime | None
    # The respondents counted (None: fewer than the threshold, ``too_few``), and how many of them are in
    # progress and completed (each None where suppressed: both, if one is, as they add up to the first).
    respondents: int | None = None
    in_progress: int | None = None
    completed: int | None = None
    too_few: bool = False
    questions: tuple[QuestionResult, ...] = field(default_factory=tuple)


def results_grades(*, survey: Survey) -> list[str]:
    """The grades with counted respondents in the survey (the state's rows), for the filter."""
    grades = AnswerCount.objects.filter(survey=survey, level=Level.STATE, cell=Cell.RESPONDENTS).exclude(
        grade="").values_list("grade", flat=True).distinct()
    return sorted(set(grades), key=lambda grade: (len(grade), grade))


def question_results(*, scope: Scope, survey: Survey, number: int = 1, district: District | None = None,
                     school: School | None = None, grade: str = "", role: str = "") -> SurveyResults | None:
    """The figures of page ``number``'s questions for the respondents of ``scope`` in ``school`` (else
    ``district``, else all), of ``grade`` and ``role`` when given; None for a page the survey does not have.
    The caller has checked the school or district is in scope."""
    page = page_definition(survey=survey, number=number)
    if page is None:
        return None
    threshold = settings.RESULTS_SUPPRESSION_THRESHOLD
    refresh = ResultsRefresh.objects.filter(survey=survey).first()
    questions = [q for item in page.items for q in (item.row_list or (item,)) if q.is_answerable]
    rows = _rows(scope, survey, district, school).filter(
        Q(question_id__in=[q.pk for q in questions]) | Q(question__isnull=True))
    if grade:
        rows = rows.filter(grade=grade)
    if role:
        rows = rows.filter(role=role)
    sums: dict[int | None, dict[tuple[str, str], tuple[int, float | None]]] = {}
    for question_id, cell, value, count, total in rows.values_list("question_id", "cell", "value").annotate(
            n=Sum("count"), t=Sum("total")).order_by():
        sums.setdefault(question_id, {})[cell, value] = (count, total)
    people = sums.get(None, {})
    in_progress = people.get((Cell.RESPONDENTS, Status.IN_PROGRESS), (0, None))[0]
    completed = people.get((Cell.RESPONDENTS, Status.COMPLETED), (0, None))[0]
    shown = {"page": page, "page_count": page_count(survey=survey), "threshold": threshold,
             "refreshed_at": refresh.refreshed_at if refresh else None}
    if table_too_small(in_progress + completed, threshold=threshold):
        return SurveyResults(**shown, too_few=True)
    hidden = cells_suppressed([in_progress, completed], threshold=threshold, additive=True)
    bins = {int(pk): Bins.from_json(data) for pk, data in (refresh.bins if refresh else {}).items()}
    grids = {item.pk: item for item in page.items if item.row_list}
    language = survey.default_language
    return SurveyResults(
        **shown, respondents=in_progress + completed, in_progress=None if hidden[0] else in_progress,
        completed=None if hidden[1] else completed,
        questions=tuple(_question_result(q, sums.get(q.pk, {}), bins.get(q.pk), threshold, language,
                                         grids.get(q.grid_id) if q.grid_id else None) for q in questions))


def _rows(scope: Scope, survey: Survey, district: District | None, school: School | None) -> QuerySet[AnswerCount]:
    rows = AnswerCount.objects.filter(survey=survey)
    if school is not None:
        return rows.filter(level=Level.GROUP, school=school)
    if scope.all_schools:
        return rows.filter(level=Level.DISTRICT, district=district) if district else rows.filter(level=Level.STATE)
    assert scope.school_ids is not None
    # A district whose every school the scope covers reads its district rows; others the groups of its schools.
    wholly = set()
    for district_id, schools, covered in School.objects.filter(
            district__in=[district] if district else scope.districts()).values("district_id").annotate(
            n=Count("pk"), mine=Count("pk", filter=Q(pk__in=scope.school_ids))).values_list(
            "district_id", "n", "mine").order_by():
        if schools == covered:
            wholly.add(district_id)
    mine = School.objects.filter(pk__in=scope.school_ids).exclude(district_id__in=wholly)
    if district is not None:
        mine = mine.filter(district=district)
    return rows.filter(Q(level=Level.DISTRICT, district_id__in=wholly)
                       | Q(level=Level.GROUP, school_id__in=mine.values("pk")))


def _question_result(question: QuestionDefinition, sums: Mapping[tuple[str, str], tuple[int, float | None]],
                     bins: Bins | None, threshold: int, language: str,
                     grid: QuestionDefinition | None) -> QuestionResult:
    prompt = question.translated("prompt", language)
    heading = grid.translated("prompt", language) if grid else ""
    base: dict[str, Any] = {"code": question.code, "prompt": prompt, "kind": question.kind, "heading": heading}
    if question.kind in (Question.Kind.SINGLE, Question.Kind.MULTIPLE):
        labels = [(c.value, c.translated("label", language)) for c in question.choice_list]
    elif question.kind in Question.NUMBER_KINDS:
        labels = [(str(i), bins.label(i)) for i in range(bins.bins)] if bins else []
    else:
        answered = sums.get((Cell.ANSWERED, ""), (0, None))[0]
        if table_too_small(answered, threshold=threshold):
            return QuestionResult(**base, too_few=True)
        return QuestionResult(**base, answered=answered)
    counts = [sums.get((Cell.VALUE, value), (0, None))[0] for value, _ in labels]
    several = question.kind == Question.Kind.MULTIPLE
    answered = sums.get((Cell.ANSWERED, ""), (0, None))[0] if several else sum(counts)
    if table_too_small(answered, threshold=threshold):
        return QuestionResult(**base, too_few=True, several=several)
    hidden = cells_suppressed(counts, threshold=threshold, additive=not several, total=answered)
    cells = tuple(ResultCell(label=label, count=None if off else count,
                             percent=None if off or not answered else round(100 * count / answered, 1))
                  for (_, label), count, off in zip(labels, counts, hidden, strict=True))
    mean = None
    if question.kind in Question.NUMBER_KINDS and answered:
        total = sum(sums.get((Cell.VALUE, value), (0, None))[1] or 0.0 for value, _ in labels)
        mean = round(total / answered, 2)
    return QuestionResult(**base, answered=answered, cells=cells, mean=mean, several=several)


def question_charts(results: SurveyResults) -> list[dict[str, object]]:
    """The charts' data (for ``json_script``): each question's counts, a suppressed bar as null (never drawn) and
    labelled so; none for a question counted only or with too few answers."""
    return [{"code": q.code, "labels": [c.label + (" (suppressed)" if c.suppressed else "") for c in q.cells],
             "values": [c.count for c in q.cells]}
            for q in results.questions if q.cells]


