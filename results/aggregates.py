"""Results by question: every selection's figures, suppressed, rebuilt off the save path (``answer_counts_refresh``).

Read next: ``docs/architecture.md``, "Results by question" (which answers count, what is stored, the refresh).
"""
import io
import math
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connections, router, transaction
from django.db.models import Count, F, FloatField, Max, Min, Q, QuerySet, Sum
from django.db.models.functions import Cast, Floor
from django.utils import timezone

from infra import sql
from respondents.models import Answer, Respondent, School
from results.models import AnswerCount, ResultsRefresh
from results.suppression import (
    NO_SCHOOL,
    STATE,
    Adding,
    Node,
    Places,
    district_node,
    figures_suppressed,
    school_node,
)
from results.suppression import Cell as FigureCell
from surveys.flow import SurveyFlow
from surveys.models import Question, Survey
from surveys.selectors import QuestionDefinition, answerable_questions, survey_flow

Level = AnswerCount.Level
Cell = AnswerCount.Cell
Status = Respondent.Status
# The respondents whose answers count: those who have saved a page (not started: no answers) and are not withdrawn.
COUNTED = (Status.IN_PROGRESS, Status.COMPLETED)
_GROUP = ("respondent__school_id", "respondent__grade", "respondent__role")
# A group count: school, grade, role, question, cell, value, count, total (a number's bin's answers added up).
Entry = tuple[int | None, str, str, int | None, str, str, int, float | None]
# A question's group counts (None: the respondents'), with how its figures add up (``kind_of``).
Family = tuple[int | None, Adding, list[Entry]]
BATCH = 5000
# A respondent batch of the skip-logic count.
PEOPLE = 2000


@dataclass(frozen=True)
class Bins:
    """A number question's bins: ``bins`` of ``width`` from ``low``; an answer falls in bin floor((x - low) / width)."""

    low: float
    width: float
    bins: int
    integer: bool

    def index(self, number: float) -> int:
        return self.clamp(math.floor((number - self.low) / self.width))

    def clamp(self, index: int) -> int:
        """The bin of a floor((x - low) / width): answers past either end (a bound changed since) in the end bins."""
        return min(self.bins - 1, max(0, index))

    def label(self, index: int) -> str:
        start = self.low + index * self.width
        if self.integer:
            end = start + self.width - 1
            return f"{start:g}" if end == start else f"{start:g}–{end:g}"
        return f"{start:g} to under {start + self.width:g}"

    def as_json(self) -> dict[str, float | int | bool]:
        return {"low": self.low, "width": self.width, "bins": self.bins, "integer": self.integer}

    @classmethod
    def from_json(cls, data: Mapping[str, float | int | bool]) -> "Bins":
        return cls(low=float(data["low"]), width=float(data["width"]), bins=int(data["bins"]),
                   integer=bool(data["integer"]))


def number_bins(*, low: float, high: float, integer: bool, most: int = 10) -> Bins:
    """Return at most about ``most`` bins of a round width (1, 2, 2.5 or 5 times a power of ten; whole for an
    integer question, each whole number its own bin when they are few) covering ``low`` to ``high``."""
    span = max(0.0, high - low)
    if integer and span < most:
        width = 1.0
    else:
        raw = span / most if span > 0 else 1.0
        magnitude = 10.0 ** math.floor(math.log10(raw))
        width = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw * (1 - 1e-9))
        if integer:
            width = float(max(1, math.ceil(width)))
    start = math.floor(low / width) * width
    return Bins(low=start, width=width, bins=int((high - start) // width) + 1, integer=integer)


def answer_counts_refresh(*, survey: Survey, using: str | None = None) -> int:
    """Rebuild ``survey``'s figures from database ``using`` (a replica), suppressed with the threshold of now
    (``RESULTS_SUPPRESSION_THRESHOLD``); return the rows written."""
    started = time.monotonic()
    flow = survey_flow(survey=survey)
    questions = answerable_questions(survey=survey)
    conditional = [q for q in questions if flow.sometimes_hidden(q.code)]
    always = [q for q in questions if q not in conditional]
    bins = _bins(survey, [q for q in questions if q.kind in Question.NUMBER_KINDS], using)
    schools = dict(School.objects.using(using).values_list("pk", "district_id"))
    threshold = settings.RESULTS_SUPPRESSION_THRESHOLD
    families = _chain(_respondent_families(survey, using), _counted_families(survey, always, bins, using),
                      _asked_families(survey, flow, conditional, {q.code: q.pk for q in questions}, bins, using))
    now = timezone.now()
    with transaction.atomic(durable=True):
        AnswerCount.objects.filter(survey=survey).delete()
        written = _write(survey, families, schools, threshold)
        ResultsRefresh.objects.update_or_create(survey=survey, defaults={
            "refreshed_at": now, "seconds": round(time.monotonic() - started, 2), "threshold": threshold,
            "bins": {str(pk): b.as_json() for pk, b in bins.items()}})
    return written


def answer_counts_refresh_open(*, using: str | None = None) -> int:
    """Rebuild the answer counts of every open survey, reading database ``using``; return how many."""
    surveys = list(Survey.objects.filter(status=Survey.Status.OPEN))
    for survey in surveys:
        answer_counts_refresh(survey=survey, using=using)
    return len(surveys)


def kind_of(question: Question | QuestionDefinition) -> Adding:
    """How a question's figures add up (``results.suppression``): a single choice's and a number's bins to those who
    answered, a multiple choice's each with those who did not choose it, the rest only counted."""
    if question.kind == Question.Kind.MULTIPLE:
        return Adding.CHOICES
    if question.kind == Question.Kind.SINGLE or question.kind in Question.NUMBER_KINDS:
        return Adding.VALUES
    return Adding.NOTHING


def _chain(*parts: Iterable[Family]) -> Iterator[Family]:
    for part in parts:
        yield from part


def _answers(survey: Survey, using: str | None) -> QuerySet[Answer]:
    """The answers that count, blank ones left out (the skip logic is the callers')."""
    return Answer.objects.using(using).filter(
        respondent__survey_id=survey.pk, respondent__withdrawn_at__isnull=True,
        respondent__status__in=COUNTED).exclude(value="").order_by()


def _bins(survey: Survey, numbers: Sequence[Question], using: str | None) -> dict[int, Bins]:
    """Each number question's bins: from its minimum and maximum, else from its answers' (one query)."""
    if not numbers:
        return {}
    seen: dict[int, Mapping[str, Any]] = {row["question_id"]: row for row in _answers(survey, using).filter(
        question_id__in=[q.pk for q in numbers]).annotate(number=Cast("value", FloatField())).values(
        "question_id").annotate(low=Min("number"), high=Max("number"))}
    bins = {}
    for question in numbers:
        row = seen.get(question.pk, {})
        low = question.min_value if question.min_value is not None else row.get("low")
        high = question.max_value if question.max_value is not None else row.get("high")
        if low is None or high is None:
            continue  # nobody has answered it yet: no bins, no counts
        bins[question.pk] = number_bins(low=float(low), high=float(max(low, high)),
                                        integer=question.kind == Question.Kind.INTEGER)
    return bins


def _counted(survey: Survey, using: str | None) -> QuerySet[Respondent]:
    """The respondents whose answers count (``COUNTED``: started, not withdrawn); the answers' own query joins the
    same conditions (``_answers``)."""
    return Respondent.objects.using(using).filter(survey=survey, withdrawn_at__isnull=True,
                                                  status__in=COUNTED).order_by()


def _respondent_families(survey: Survey, using: str | None) -> Iterator[Family]:
    people = _counted(survey, using)
    yield None, Adding.PEOPLE, [(school_id, grade, role, None, Cell.RESPONDENTS, status, count, None)
                         for school_id, grade, role, status, count in people.values_list(
                             "school_id", "grade", "role", "status").annotate(count=Count("pk"))]


def _counted_families(survey: Survey, questions: Sequence[Question], bins: Mapping[int, Bins],
                      using: str | None) -> Iterator[Family]:
    """The group counts of the questions that are always asked: GROUP BY in the database, a query a question (one
    for all those counted only)."""
    answers = _answers(survey, using)
    counted_only = []
    for question in questions:
        mine = answers.filter(question_id=question.pk)
        if question.kind == Question.Kind.SINGLE:
            yield question.pk, Adding.VALUES, [(school_id, grade, role, question.pk, Cell.VALUE, value, count, None)
                                        for school_id, grade, role, value, count in mine.values_list(
                                            *_GROUP, "value").annotate(n=Count("pk"))]
        elif question.kind == Question.Kind.MULTIPLE:
            yield question.pk, Adding.CHOICES, list(_multiple_entries(question, mine))
        elif question.kind in Question.NUMBER_KINDS:
            if question.pk not in bins:
                continue
            b = bins[question.pk]
            binned = mine.annotate(number=Cast("value", FloatField())).annotate(
                bin=Floor((F("number") - b.low) / b.width)).values_list(*_GROUP, "bin").annotate(
                n=Count("pk"), total=Sum("number"))
            yield question.pk, Adding.VALUES, [(school_id, grade, role, question.pk, Cell.VALUE, str(b.clamp(int(index))),
                                         count, float(total)) for school_id, grade, role, index, count, total in binned]
        else:
            counted_only.append(question.pk)
    if counted_only:
        by_question: dict[int, list[Entry]] = {pk: [] for pk in counted_only}
        rows = answers.filter(question_id__in=counted_only).values_list(*_GROUP, "question_id").annotate(
            n=Count("pk"))
        for school_id, grade, role, question_id, count in rows:
            by_question[question_id].append((school_id, grade, role, question_id, Cell.ANSWERED, "", count, None))
        for pk, entries in by_question.items():
            yield pk, Adding.NOTHING, entries


def _multiple_entries(question: Question, answers: QuerySet[Answer]) -> Iterator[Entry]:
    """A multiple choice's: chosen values are stored in one text separated by single spaces (no value holds a
    space), so each choice is counted where the text is it, starts or ends with it, or holds it between spaces."""
    values = list(question.choices.values_list("value", flat=True))

    def chose(value: str) -> Q:
        return (Q(value=value) | Q(value__startswith=f"{value} ") | Q(value__endswith=f" {value}")
                | Q(value__contains=f" {value} "))

    counts = {f"c{i}": Count("pk", filter=chose(value)) for i, value in enumerate(values)}
    for row in answers.values(*_GROUP).annotate(answered=Count("pk"), **counts):
        group = (row["respondent__school_id"], row["respondent__grade"], row["respondent__role"])
        yield *group, question.pk, Cell.ANSWERED, "", row["answered"], None
        for i, value in enumerate(values):
            if row[f"c{i}"]:
                yield *group, question.pk, Cell.VALUE, value, row[f"c{i}"], None


def _asked_families(survey: Survey, flow: SurveyFlow, questions: Sequence[Question], ids: Mapping[str, int],
                    bins: Mapping[int, Bins], using: str | None) -> Iterator[Family]:
    """The entries of the questions with skip logic: each respondent's answers read in batches (those the rules
    read and these questions'), the question counted where the flow asks it (as ``exports.writers`` marks it)."""
    if not questions:
        return
    reads, codes = flow.effective_reads()
    read = reads | {q.code for q in questions}
    code_of = {ids[code]: code for code in read if code in ids}
    tally: Counter[tuple[int | None, str, str, int, str, str]] = Counter()
    totals: dict[tuple[int | None, str, str, int, str, str], float] = {}
    people = _counted(survey, using).order_by("pk").values_list("pk", "school_id", "grade", "role")
    last = 0
    while batch := list(people.filter(pk__gt=last)[:PEOPLE]):
        last = batch[-1][0]
        stored: dict[int, dict[str, str]] = {pk: {} for pk, *_ in batch}
        for respondent_id, question_id, value in Answer.objects.using(using).filter(
                respondent_id__in=list(stored), question_id__in=list(code_of)).values_list(
                "respondent_id", "question_id", "value"):
            stored[respondent_id][code_of[question_id]] = value
        for pk, school_id, grade, role in batch:
            answers = stored[pk]
            effective = flow.effective(answers, codes=codes)
            for question in questions:
                value = answers.get(question.code, "")
                if not value or not flow.asks(question.code, effective):
                    continue
                for cell, counted, number in _cells(question, value, bins):
                    where: tuple[int | None, str, str, int, str, str] = (
                        school_id, grade, role, question.pk, cell, counted)
                    tally[where] += 1
                    if number is not None:
                        totals[where] = totals.get(where, 0.0) + number
    by_question: dict[int, list[Entry]] = {question.pk: [] for question in questions}
    for where, count in tally.items():
        by_question[where[3]].append((*where, count, totals.get(where)))
    for question in questions:
        yield question.pk, kind_of(question), by_question[question.pk]


def _cells(question: Question, value: str, bins: Mapping[int, Bins]) -> Sequence[tuple[str, str, float | None]]:
    """Where one answer is counted: [(cell, value, number added to the total)]."""
    if question.kind == Question.Kind.SINGLE:
        return [(Cell.VALUE, value, None)]
    if question.kind == Question.Kind.MULTIPLE:
        return [(Cell.ANSWERED, "", None)] + [(Cell.VALUE, chosen, None) for chosen in value.split(" ")]
    if question.kind in Question.NUMBER_KINDS:
        if question.pk not in bins:
            return []
        number = float(value)
        return [(Cell.VALUE, str(bins[question.pk].index(number)), number)]
    return [(Cell.ANSWERED, "", None)]


# The table's columns in the order ``_write`` makes its rows.
COLUMNS = ("survey_id", "level", "district_id", "school_id", "grade", "every_grade", "role", "every_role",
           "question_id", "cell", "value", "count", "total", "hidden")
Row = tuple[int, str, int | None, int | None, str, bool, str, bool, int | None, str, str, int, float | None, bool]


def places_of(schools: Mapping[int, int]) -> Places:
    """The state's places (``schools``: {school id: its district's}): the state is its districts and the respondents
    with no school, whom nobody can select; a district is its schools."""
    children: dict[Node, list[Node]] = {STATE: [NO_SCHOOL]}
    for school_id, district_id in sorted(schools.items()):
        district = district_node(district_id)
        if district not in children:
            children[district] = []
            children[STATE].append(district)
        children[district].append(school_node(school_id))
    return Places(children=children, unseen=frozenset({NO_SCHOOL}))


def group_counts(entries: Iterable[Entry]) -> tuple[dict[FigureCell, int], dict[FigureCell, float]]:
    """A question's group counts as ``figures_suppressed`` takes them: a number's bins also give its mean (those
    who answered, and their answers added up)."""
    counts: defaultdict[FigureCell, int] = defaultdict(int)
    totals: defaultdict[FigureCell, float] = defaultdict(float)
    for school_id, grade, role, _, cell, value, count, total in entries:
        node = school_node(school_id) if school_id is not None else NO_SCHOOL
        counts[node, grade, role, cell, value] += count
        if total is not None:
            counts[node, grade, role, Cell.MEAN, ""] += count
            totals[node, grade, role, Cell.MEAN, ""] += total
    return counts, totals


def row_place(node: Node, schools: Mapping[int, int]) -> tuple[str, int | None, int | None]:
    """The level, district and school of a place's rows."""
    kind, pk = node
    if kind == "school":
        assert pk is not None
        return Level.SCHOOL, schools.get(pk), pk
    if kind == "district":
        return Level.DISTRICT, pk, None
    return Level.STATE, None, None


def _write(survey: Survey, families: Iterable[Family], schools: Mapping[int, int], threshold: int) -> int:
    """Add each question's (and the respondents') group counts up into every selection, suppress them
    (``figures_suppressed``, over the whole state) and write every figure, BATCH rows at a time; return how many."""
    places = places_of(schools)
    written = 0
    for question_id, kind, entries in families:
        counts, totals = group_counts(entries)
        figures = figures_suppressed(counts=counts, totals=totals, places=places, kind=kind, threshold=threshold)
        rows: list[Row] = []
        for (node, grade, role, cell, value), figure in figures.items():
            level, district_id, school_id = row_place(node, schools)
            rows.append((survey.pk, level, district_id, school_id, grade or "", grade is None, role or "",
                         role is None, question_id, cell, value, figure.count, figure.total, figure.hidden))
        for start in range(0, len(rows), BATCH):
            _insert(rows[start:start + BATCH])
        written += len(rows)
    return written


def _insert(rows: Sequence[Row]) -> None:
    """Insert ``rows`` (in COLUMNS order): on PostgreSQL with one COPY (with bulk_create, making the model
    instances and their SQL took 11 of a rebuild's 17 s under the profiler at 20,000 bench respondents),
    elsewhere with bulk_create."""
    if not rows:
        return
    connection = connections[router.db_for_write(AnswerCount)]
    if connection.vendor != "postgresql":
        AnswerCount.objects.bulk_create(AnswerCount(**dict(zip(COLUMNS, row, strict=True))) for row in rows)
        return
    data = io.StringIO()
    for row in rows:
        data.write("\t".join(_copy_text(value) for value in row))
        data.write("\n")
    data.seek(0)
    statement = f"COPY {sql.table(AnswerCount)} ({', '.join(COLUMNS)}) FROM STDIN"
    with connection.cursor() as cursor:
        raw = cursor.cursor
        if hasattr(raw, "copy_expert"):  # psycopg2
            raw.copy_expert(statement, data)
        else:  # psycopg 3
            with raw.copy(statement) as copy:
                copy.write(data.getvalue())


def _copy_text(value: object) -> str:
    """A value in COPY's text format: \\N for NULL; a backslash, tab, line feed or carriage return escaped."""
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    return str(value).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
