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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from accounts.models import AuditEntry
from accounts.scopes import Scope
from respondents.grades import grades_sorted
from respondents.models import Answer, District, Respondent, School
from results.aggregates import COUNTED, Bins, kind_of
from results.models import AnswerCount, ResultsRefresh
from results.suppression import (
    SCOPE,
    STATE,
    Adding,
    Figure,
    Node,
    Places,
    district_node,
    figures_suppressed,
    school_node,
    scope_district_node,
)
from results.suppression import Cell as FigureCell
from surveys.caching import definition_memo
from surveys.flow import SurveyFlow
from surveys.models import Question, Survey
from surveys.selectors import (
    PageDefinition,
    QuestionDefinition,
    answerable_questions,
    page_count,
    page_definition,
    question_ids,
    survey_flow,
    survey_pages,
)

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
    """The grades with counted respondents in the survey (the state's rows), in grade order, for the filter."""
    grades = AnswerCount.objects.filter(survey=survey, level=Level.STATE, cell=Cell.RESPONDENTS).exclude(
        grade="").values_list("grade", flat=True).distinct()
    return grades_sorted(grades)


def question_results(*, scope: Scope, survey: Survey, number: int = 1, district: District | None = None,
                     school: School | None = None, grade: str = "", role: str = "") -> SurveyResults | None:
    """The figures of page ``number``'s questions for the respondents of ``scope`` in ``school`` (else
    ``district``, else all), of ``grade`` and ``role`` when given; None for a page the survey does not have.
    The caller has checked the school or district is in scope. Every figure is suppressed across every selection
    the scope can make (``results.suppression.figures_suppressed``): a selection of the whole state's places reads
    its rows as the refresh suppressed them, a selection of a coordinator's own (their schools, their part of a
    district) is suppressed over the schools' rows as they are."""
    page = page_definition(survey=survey, number=number)
    if page is None:
        return None
    refresh = ResultsRefresh.objects.filter(survey=survey).first()
    threshold = refresh.threshold if refresh else settings.RESULTS_SUPPRESSION_THRESHOLD
    questions = [q for item in page.items for q in (item.row_list or (item,)) if q.is_answerable]
    wanted = [q.pk for q in questions]
    tree = scope_places(scope=scope)
    node = (school_node(school.pk) if school is not None
            else tree.district_place(district.pk) if district is not None else tree.root)
    figures = (_own_figures(survey, tree, node, wanted, {q.pk: kind_of(q) for q in questions}, grade or None,
                            role or None, threshold) if node in tree.own else
               _stored_figures(survey, node, wanted, grade or None, role or None))
    shown: dict[str, Any] = {"page": page, "page_count": page_count(survey=survey), "threshold": threshold,
             "refreshed_at": refresh.refreshed_at if refresh else None}
    people = figures.get(None, {})
    everyone = people.get((Cell.RESPONDENTS, ""), _NONE)
    if 0 < everyone.count < threshold:
        return SurveyResults(**shown, too_few=True)
    if not everyone.count:
        return SurveyResults(**shown, respondents=0, in_progress=0, completed=0)
    bins = {int(pk): Bins.from_json(data) for pk, data in (refresh.bins if refresh else {}).items()}
    grids = {item.pk: item for item in page.items if item.row_list}
    language = survey.default_language
    return SurveyResults(
        **shown, respondents=_shown(everyone), in_progress=_shown(people.get((Cell.RESPONDENTS, Status.IN_PROGRESS))),
        completed=_shown(people.get((Cell.RESPONDENTS, Status.COMPLETED))),
        questions=tuple(_question_result(q, figures.get(q.pk, {}), bins.get(q.pk), threshold, language,
                                         grids.get(q.grid_id) if q.grid_id else None) for q in questions))


# A figure a selection does not have: nobody.
_NONE = Figure(0, None, False)
# {question id (None: the respondents): {(cell, value): figure}} of one selection.
Figures = dict[int | None, dict[tuple[str, str], Figure]]


def _shown(figure: Figure | None) -> int | None:
    """A count as the page shows it: None where it is hidden; 0 for nobody."""
    figure = figure or _NONE
    return None if figure.hidden else figure.count


@dataclass(frozen=True)
class ScopePlaces:
    """The places a scope's viewer selects: ``root`` (no district or school chosen), each district's place, and
    which of them are the scope's own (``own``: made of some schools of a district, or of several districts or
    schools, so that the whole state's rows do not have them), with ``places`` saying what each is made of."""

    root: Node
    districts: Mapping[int, Node]
    places: Places
    own: frozenset[Node] = frozenset()

    def district_place(self, district_id: int) -> Node:
        return self.districts.get(district_id, district_node(district_id))


def scope_places(*, scope: Scope) -> ScopePlaces:
    """The places of ``scope`` (a query for a scope of some schools, none for the whole state): a district it
    covers whole is the district's place; a district it covers in part is its schools there, together; the root is
    the state, or the one place the scope is, or its districts' places together."""
    if scope.all_schools:
        return ScopePlaces(root=STATE, districts={}, places=Places())
    assert scope.school_ids is not None
    mine: dict[int, list[int]] = {}
    every: dict[int, int] = {}
    for school_id, district_id in School.objects.filter(district_id__in=School.objects.filter(
            pk__in=scope.school_ids).values("district_id")).values_list("pk", "district_id"):
        every[district_id] = every.get(district_id, 0) + 1
        if school_id in scope.school_ids:
            mine.setdefault(district_id, []).append(school_id)
    whole = {district_id for district_id, schools in mine.items() if len(schools) == every[district_id]}
    children: dict[Node, list[Node]] = {}
    districts: dict[int, Node] = {}
    for district_id, schools in sorted(mine.items()):
        if district_id in whole:
            districts[district_id] = district_node(district_id)
        elif len(schools) == 1:
            districts[district_id] = school_node(schools[0])
        else:
            districts[district_id] = scope_district_node(district_id)
            children[districts[district_id]] = [school_node(pk) for pk in sorted(schools)]
    tops = list(districts.values())
    root = tops[0] if len(tops) == 1 else SCOPE
    if root == SCOPE:
        children[SCOPE] = tops
    return ScopePlaces(root=root, districts=districts, places=Places(children=children), own=frozenset(children))


def _stored_figures(survey: Survey, node: Node, questions: Sequence[int], grade: str | None,
                    role: str | None) -> Figures:
    """One selection of the whole state's places, as the refresh suppressed it: one query of a few dozen rows."""
    rows = _rows_of(survey, [node]).filter(Q(question_id__in=questions) | Q(question__isnull=True))
    rows = rows.filter(every_grade=True) if grade is None else rows.filter(every_grade=False, grade=grade)
    rows = rows.filter(every_role=True) if role is None else rows.filter(every_role=False, role=role)
    figures: Figures = {}
    for question_id, cell, value, count, total, hidden in rows.values_list(
            "question_id", "cell", "value", "count", "total", "hidden"):
        figures.setdefault(question_id, {})[cell, value] = Figure(count, total, hidden)
    return figures


def _own_figures(survey: Survey, tree: ScopePlaces, node: Node, questions: Sequence[int],
                 kinds: Mapping[int, Adding], grade: str | None, role: str | None, threshold: int) -> Figures:
    """One selection of the scope's own places: its parts' rows (every grade and role), their figures added up and
    suppressed over all the scope's own places, the parts' figures kept as the refresh suppressed them."""
    parts = sorted({child for children in tree.places.children.values() for child in children
                    if child not in tree.own})
    counts: dict[int | None, dict[FigureCell, int]] = {}
    totals: dict[int | None, dict[FigureCell, float]] = {}
    fixed: dict[int | None, dict[FigureCell, bool]] = {}
    for level, district_id, school_id, question_id, grade_, every_grade, role_, every_role, cell, value, count, \
            total, hidden in _rows_of(survey, parts).filter(
            Q(question_id__in=questions) | Q(question__isnull=True)).values_list(
            "level", "district_id", "school_id", "question_id", "grade", "every_grade", "role", "every_role", "cell",
            "value", "count", "total", "hidden"):
        at = school_node(school_id) if level == Level.SCHOOL else district_node(district_id)
        key = (at, None if every_grade else grade_, None if every_role else role_, cell, value)
        fixed.setdefault(question_id, {})[key] = hidden
        if not (every_grade or every_role):
            counts.setdefault(question_id, {})[key] = count
            if total is not None:
                totals.setdefault(question_id, {})[key] = total
    figures: Figures = {}
    for family in [None, *questions]:
        if family not in counts:
            continue
        solved = figures_suppressed(counts=counts[family], totals=totals.get(family), places=tree.places,
                                    kind=Adding.PEOPLE if family is None else kinds[family],
                                    threshold=threshold, fixed=fixed[family])
        figures[family] = {(cell, value): figure for (at, g, r, cell, value), figure in solved.items()
                                if at == node and g == grade and r == role}
    return figures


def _rows_of(survey: Survey, nodes: Sequence[Node]) -> QuerySet[AnswerCount]:
    """The rows of the whole state's places ``nodes``."""
    where = Q()
    for kind, pk in nodes:
        if kind == "state":
            where |= Q(level=Level.STATE)
        elif kind == "district":
            where |= Q(level=Level.DISTRICT, district_id=pk)
        else:
            where |= Q(level=Level.SCHOOL, school_id=pk)
    return AnswerCount.objects.filter(where, survey=survey)


def _question_result(question: QuestionDefinition, figures: Mapping[tuple[str, str], Figure], bins: Bins | None,
                     threshold: int, language: str, grid: QuestionDefinition | None) -> QuestionResult:
    prompt = question.translated("prompt", language)
    heading = grid.translated("prompt", language) if grid else ""
    base: dict[str, Any] = {"code": question.code, "prompt": prompt, "kind": question.kind, "heading": heading}
    answered = figures.get((Cell.ANSWERED, ""), _NONE)
    several = question.kind == Question.Kind.MULTIPLE
    if 0 < answered.count < threshold:
        return QuestionResult(**base, too_few=True, several=several)
    if question.kind in (Question.Kind.SINGLE, Question.Kind.MULTIPLE):
        labels = [(c.value, c.translated("label", language)) for c in question.choice_list]
    elif question.kind in Question.NUMBER_KINDS:
        labels = [(str(i), bins.label(i)) for i in range(bins.bins)] if bins else []
    else:
        return QuestionResult(**base, answered=_shown(answered))
    total = None if answered.hidden else answered.count
    cells = []
    for value, label in labels:
        figure = figures.get((Cell.VALUE, value), _NONE)
        hidden = figure.hidden
        cells.append(ResultCell(label=label, count=None if hidden else figure.count,
                                percent=None if hidden or not total else round(100 * figure.count / total, 1)))
    mean = figures.get((Cell.MEAN, ""))
    shown_mean = (round(mean.total / mean.count, 2) if mean and mean.count and mean.total is not None
                  and not mean.hidden and total else None)
    return QuestionResult(**base, answered=total, cells=tuple(cells), mean=shown_mean, several=several)


# ---------------------------------------------------------------- the question index, stale counts, text answers


@dataclass(frozen=True)
class IndexedQuestion:
    """A question of the results page's index: its code and prompt, and its grid's prompt for a grid's row."""

    code: str
    prompt: str
    heading: str = ""


@dataclass(frozen=True)
class IndexedPage:
    number: int
    title: str
    questions: tuple[IndexedQuestion, ...]


def question_index(*, survey: Survey) -> tuple[IndexedPage, ...]:
    """Every question the results pages show, page by page (a grid's rows with its prompt), in the survey's default
    language: the index of the results page. Kept with the survey's definition (``definition_memo``)."""
    def build() -> tuple[IndexedPage, ...]:
        language = survey.default_language
        pages = []
        for number in range(1, page_count(survey=survey) + 1):
            page = page_definition(survey=survey, number=number)
            assert page is not None
            questions = tuple(
                IndexedQuestion(code=q.code, prompt=q.translated("prompt", language),
                                heading=item.translated("prompt", language) if item.row_list else "")
                for item in page.items for q in (item.row_list or (item,)) if q.is_answerable)
            pages.append(IndexedPage(number=number, title=page.page.translated("title", language),
                                     questions=questions))
        return tuple(pages)

    return definition_memo.get(("results-index", survey.pk), build)


def answer_counts_stale(*, survey: Survey, max_age: float) -> bool:
    """Whether ``survey``'s answer counts are to be rebuilt before they are read (the embedded default's results
    page, ``RESULTS_REFRESH_ON_REQUEST``): none yet, older than ``max_age`` seconds, suppressed with another
    threshold than the setting's, or made before a page save, a withdrawal or restoral, a roster or a new version
    applied, or a school directory applied. The refresh's row and two indexed EXISTS; a save that commits while a
    rebuild reads is caught by ``max_age``."""
    made = ResultsRefresh.objects.filter(survey=survey).values_list("refreshed_at", "threshold").first()
    if made is None:
        return True
    refreshed_at, threshold = made
    if (timezone.now() - refreshed_at).total_seconds() > max_age or threshold != settings.RESULTS_SUPPRESSION_THRESHOLD:
        return True
    if Respondent.objects.filter(survey=survey, last_saved_at__gte=refreshed_at).exists():
        return True
    return AuditEntry.objects.filter(at__gte=refreshed_at).filter(
        Q(survey=survey, action__in=COUNTS_CHANGED) | Q(action=AuditEntry.Action.SCHOOLS_IMPORTED)).exists()


# The staff actions after which a survey's counts are stale: who is counted, or in which group, changed.
COUNTS_CHANGED = (AuditEntry.Action.RESPONDENT_WITHDRAWN, AuditEntry.Action.RESPONDENT_RESTORED,
                  AuditEntry.Action.ROSTER_APPLIED, AuditEntry.Action.SURVEY_REVISED)
TEXT_KINDS = (Question.Kind.SHORT_TEXT, Question.Kind.LONG_TEXT)
# Different texts a page of text answers lists; the skip-logic path reads its candidates this many at a time.
TEXT_ANSWERS_PAGE = 50
TEXT_BATCH = 1000


@dataclass(frozen=True)
class TextAnswer:
    """One text as it was written, and how many of the selection wrote exactly it."""

    text: str
    people: int


@dataclass(frozen=True)
class TextAnswers:
    """A page (``number``, from 1) of what the selection wrote to a text question, by text. ``result``: the
    question's figures in the selection (None where the selection is too small to show any); nothing is listed
    unless ``shown``: the selection shows how many answered. ``page`` is the question's page of the survey."""

    code: str
    prompt: str
    page: int
    number: int
    result: QuestionResult | None
    refreshed_at: datetime | None
    answers: tuple[TextAnswer, ...] = ()
    more: bool = False

    @property
    def shown(self) -> bool:
        return self.result is not None and self.result.answered is not None


def text_answers(*, scope: Scope, survey: Survey, code: str, district: District | None = None,
                 school: School | None = None, grade: str = "", role: str = "", number: int = 1,
                 per_page: int = TEXT_ANSWERS_PAGE) -> TextAnswers | None:
    """Page ``number`` of the texts written to text question ``code`` by the respondents ``question_results``
    counts in the selection (the same filters; the caller has checked the school or district is in scope): in
    progress or completed, not withdrawn, the answer not blank and asked by the skip logic with the answers they
    have now, saved before the counts were made (so two selections' lists differ only as their counts do). In
    order of the text, each text once with how many wrote it; never who. Listed only where the selection shows
    how many answered (``TextAnswers.shown``); only for a scope that may export. None for no such text question.
    """
    scope.require("can_export")
    question = next((q for q in answerable_questions(survey=survey) if q.code == code and q.kind in TEXT_KINDS),
                    None)
    if question is None:
        return None
    page = {p.pk: p.position for p in survey_pages(survey=survey)}[question.page_id]
    results = question_results(scope=scope, survey=survey, number=page, district=district, school=school,
                               grade=grade, role=role)
    assert results is not None
    result = next((q for q in results.questions if q.code == code), None)
    prompt = question.translated("prompt", survey.default_language)
    shown = TextAnswers(code=code, prompt=prompt, page=page, number=number, result=result,
                        refreshed_at=results.refreshed_at)
    if not shown.shown or results.refreshed_at is None:
        return shown
    answers = Answer.objects.filter(
        question_id=question.pk, respondent__survey_id=survey.pk, respondent__withdrawn_at__isnull=True,
        respondent__status__in=COUNTED, saved_at__lte=results.refreshed_at).exclude(value="").order_by()
    if not scope.all_schools:
        answers = answers.filter(respondent__school_id__in=scope.school_ids or ())
    if school is not None:
        answers = answers.filter(respondent__school=school)
    elif district is not None:
        answers = answers.filter(respondent__school__district=district)
    if grade:
        answers = answers.filter(respondent__grade=grade)
    if role:
        answers = answers.filter(respondent__role=role)
    skip = (number - 1) * per_page
    flow = survey_flow(survey=survey)
    if flow.sometimes_hidden(code):
        texts = _asked_texts(answers, flow, code, question_ids(survey=survey), skip + per_page + 1)[skip:]
    else:
        texts = [TextAnswer(text=value, people=people) for value, people in answers.values("value").annotate(
            people=Count("pk")).values_list("value", "people").order_by("value")[skip:skip + per_page + 1]]
    return TextAnswers(code=code, prompt=prompt, page=page, number=number, result=result,
                       refreshed_at=results.refreshed_at, answers=tuple(texts[:per_page]), more=len(texts) > per_page)


def _asked_texts(answers: QuerySet[Answer], flow: SurveyFlow, code: str, ids: Mapping[str, int],
                 wanted: int) -> list[TextAnswer]:
    """The first ``wanted`` texts (by text, each with how many wrote it) of ``answers`` whose respondents the flow
    asks ``code`` with the answers they have now (as ``results.aggregates`` counts them), read TEXT_BATCH at a
    time in order of text."""
    reads, codes = flow.effective_reads()
    code_of = {ids[c]: c for c in reads if c in ids}
    texts: list[TextAnswer] = []
    current: TextAnswer | None = None
    after: tuple[str, int] | None = None
    while len(texts) < wanted:
        batch = answers.order_by("value", "pk")
        if after is not None:
            batch = batch.filter(Q(value__gt=after[0]) | Q(value=after[0], pk__gt=after[1]))
        rows = list(batch.values_list("pk", "value", "respondent_id")[:TEXT_BATCH])
        if not rows:
            break
        after = (rows[-1][1], rows[-1][0])
        stored: dict[int, dict[str, str]] = {respondent_id: {} for _, _, respondent_id in rows}
        for respondent_id, question_id, value in Answer.objects.filter(
                respondent_id__in=list(stored), question_id__in=list(code_of)).values_list(
                "respondent_id", "question_id", "value"):
            stored[respondent_id][code_of[question_id]] = value
        for _, value, respondent_id in rows:
            if not flow.asks(code, flow.effective(stored[respondent_id], codes=codes)):
                continue
            if current is not None and current.text == value:
                current = TextAnswer(text=value, people=current.people + 1)
                continue
            if current is not None:
                texts.append(current)
                if len(texts) == wanted:
                    break
            current = TextAnswer(text=value, people=1)
    if current is not None and len(texts) < wanted:
        texts.append(current)
    return texts
