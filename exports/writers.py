"""Response exports: one row per respondent, one column per variable, as CSV, XLSX, SPSS or Stata.

``export_write`` writes the data, its syntax file and the codebook; ``export_zip`` bundles them. Read next:
``docs/architecture.md``, "Response exports"; what each file holds: ``docs/operations.md``, "Export responses".
"""
import csv
import os
import random
import re
import zipfile
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import xlsxwriter
from django.conf import settings
from django.db.models import Count, QuerySet
from django.utils import timezone

from exports.cells import data_text, writes_numbers
from exports.codebook import codebook_write, export_filter_rows
from exports.filters import NO_FILTER, ExportFilter, export_filter_apply
from exports.options import FORMATS, STATISTICS_FORMATS, ExportError, ExportOptions
from exports.syntax_files import spss_syntax_write, stata_syntax_write
from exports.variables import (
    LEFT_BLANK,
    NOT_ASKED,
    NOT_ASKED_CELL,
    NOT_SAVED,
    Variable,
    VariablePlan,
    variables_plan,
)
from fileformats.tables import moment_text, spreadsheet_safe
from respondents.models import Answer, Respondent
from surveys.models import Question, Survey
from surveys.selectors import question_ids, survey_flow

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

PROGRESS_EVERY = 1000


@dataclass(frozen=True)
class ExportResult:
    data: Path
    syntax: Path | None
    codebook: Path
    respondent_count: int
    suppressed_schools: int = 0
    suppressed_respondents: int = 0

    @property
    def files(self) -> tuple[Path, ...]:
        """Every file the export wrote, the data first."""
        return tuple(path for path in (self.data, self.syntax, self.codebook) if path is not None)


@dataclass(frozen=True)
class _Selection:
    """Who an export holds: the respondents of ``survey`` in ``school_ids`` (every one for None) that
    ``export_filter`` keeps, less the suppressed."""

    survey: Survey
    using: str | None
    school_ids: frozenset[int] | None
    deidentified: bool
    total: int
    export_filter: ExportFilter = NO_FILTER
    suppressed_school_ids: frozenset[int] = frozenset()
    no_school_suppressed: bool = False
    suppressed_schools: int = 0
    suppressed_respondents: int = 0

    def respondents(self) -> QuerySet[Respondent]:
        respondents = Respondent.objects.using(self.using).filter(survey=self.survey)
        if self.school_ids is not None:
            respondents = respondents.filter(school_id__in=self.school_ids)
        if self.deidentified:
            respondents = respondents.filter(withdrawn_at=None)
        return export_filter_apply(respondents, self.export_filter)

    def keeps(self, school_id: int | None) -> bool:
        """Whether the export holds the respondents of the school ``school_id`` (None: no school)."""
        if school_id is None:
            return not self.no_school_suppressed
        return school_id not in self.suppressed_school_ids


def _selection(*, survey: Survey, using: str | None, school_ids: frozenset[int] | None, deidentified: bool,
               export_filter: ExportFilter = NO_FILTER) -> _Selection:
    selection = _Selection(survey=survey, using=using, school_ids=school_ids, deidentified=deidentified, total=0,
                           export_filter=export_filter)
    counts = dict(selection.respondents().order_by().values_list("school_id").annotate(n=Count("pk")))
    if not deidentified:
        return replace(selection, total=sum(counts.values()))
    minimum = settings.EXPORT_SMALL_SCHOOL_MIN
    small = {school_id: n for school_id, n in counts.items() if n < minimum}
    schools = frozenset(school_id for school_id in small if school_id is not None)
    return replace(selection, total=sum(counts.values()) - sum(small.values()), suppressed_school_ids=schools,
                   no_school_suppressed=None in small, suppressed_schools=len(schools),
                   suppressed_respondents=sum(small.values()))


# Stands in an export's answers for a question the respondent was not asked (skip logic).
_NOT_ASKED = object()
# One respondent's answers as the writers read them: {question id: stored text, or _NOT_ASKED}.
Answers = dict[int, Any]
# A cell of the data: text, a number, or a time for a roster field's (each writer says it its own way).
CellMaker = Callable[[Respondent, Answers], Any]


def _not_asked_marker(survey: Survey) -> Callable[[Answers], None] | None:
    """Return a function that marks, in one respondent's ``{question_id: value}``, the questions not asked, and
    puts in each calculation's value.

    None for a survey without skip logic or calculations.
    """
    flow = survey_flow(survey=survey)
    if not flow.conditional and not flow.calculations:
        return None
    ids = question_ids(survey=survey)
    conditional = [code for code in flow.questions if flow.sometimes_hidden(code)]
    reads, codes = flow.effective_reads()
    read = [(code, ids[code]) for code in reads]
    calculation_ids = dict(Question.objects.filter(survey_id=survey.pk, kind=Question.Kind.CALCULATE)
                           .values_list("code", "pk"))
    calculations = [(code, calculation_ids[code]) for code in flow.calculations]

    def mark(answers: Answers) -> None:
        stored = {code: answers[pk] for code, pk in read if pk in answers}
        effective = flow.effective(stored, codes=codes)
        for code in conditional:
            if not flow.asks(code, effective):
                answers[ids[code]] = _NOT_ASKED
        for code, pk in calculations:
            answers[pk] = effective[code] if flow.asks(code, effective) else _NOT_ASKED
    return mark


_ID_PAGE = 50_000


def _respondent_batches(*, selection: _Selection, batch_size: int) -> Iterator[list[Respondent]]:
    """Yield the respondents of ``selection`` ``batch_size`` at a time: in id order, or shuffled when de-identified.

    In id order they are read by primary key (keyset), so nothing is held
    but a batch. Shuffled, the ids are read first (an array: 8 bytes each)
    and shuffled with the system's randomness, then read in that order; a
    respondent gone or withdrawn since is left out.
    """
    respondents = selection.respondents().select_related("school__district")
    if not selection.deidentified:
        respondents, last_pk = respondents.order_by("pk"), 0
        while True:
            batch = list(respondents.filter(pk__gt=last_pk)[:batch_size])
            if not batch:
                return
            last_pk = batch[-1].pk
            yield [r for r in batch if selection.keeps(r.school_id)]
    # The ids by keyset too: a client-side cursor (production has no server-side ones behind pgbouncer) would hold
    # the whole result at once.
    ids, pairs, last_pk = array("q"), selection.respondents().order_by("pk").values_list("pk", "school_id"), 0
    while page := list(pairs.filter(pk__gt=last_pk)[:_ID_PAGE]):
        last_pk = page[-1][0]
        ids.extend(pk for pk, school_id in page if selection.keeps(school_id))
    random.SystemRandom().shuffle(ids)
    for start in range(0, len(ids), batch_size):
        wanted = ids[start:start + batch_size]
        found = {r.pk: r for r in respondents.filter(pk__in=list(wanted))}
        yield [found[pk] for pk in wanted if pk in found]


def _respondent_answers(*, selection: _Selection, batch_size: int = 500) -> Iterator[tuple[Respondent, Answers]]:
    """Yield ``(respondent, {question_id: value})`` for each respondent of ``selection``: in id order, or shuffled
    when it is de-identified.

    A question the respondent was not asked holds ``_NOT_ASKED``.
    """
    mark = _not_asked_marker(selection.survey)
    for batch in _respondent_batches(selection=selection, batch_size=batch_size):
        answers: dict[int, Answers] = {r.pk: {} for r in batch}
        if batch:
            rows = Answer.objects.using(selection.using).filter(respondent_id__in=answers.keys()).values_list(
                "respondent_id", "question_id", "value")
            for respondent_id, question_id, value in rows:
                answers[respondent_id][question_id] = value
        for r in batch:
            if mark:
                mark(answers[r.pk])
            yield r, answers[r.pk]


def _day(moment: datetime | None) -> str:
    """A time as de-identified exports write it: the day (in the deployment's time zone)."""
    return timezone.localtime(moment).date().isoformat() if moment else ""


def _school(attribute: str) -> Callable[[Respondent], Any]:
    return lambda r: getattr(r.school, attribute) if r.school else ""


def _district(attribute: str) -> Callable[[Respondent], Any]:
    return lambda r: getattr(r.school.district, attribute) if r.school else ""


_ROSTER_VALUES: dict[str, Callable[[Respondent], Any]] = {
    "respondent_id": lambda r: r.pk,
    "external_id": lambda r: r.external_id,
    "display_name": lambda r: r.display_name,
    "school_code": _school("code"),
    "school_name": _school("name"),
    "district_code": _district("code"),
    "district_name": _district("name"),
    "grade": lambda r: r.grade,
    "role": lambda r: r.role,
    "language": lambda r: r.language,
    "status": lambda r: r.status,
    "current_page": lambda r: r.current_page,
    "started_at": lambda r: r.started_at,
    "last_saved_at": lambda r: r.last_saved_at,
    "completed_at": lambda r: r.completed_at,
    "withdrawn_at": lambda r: r.withdrawn_at,
}
_TIME_FIELDS = frozenset({"started_at", "last_saved_at", "completed_at", "withdrawn_at"})


def _cell_makers(variables: Iterable[Variable], *, statistics: bool, labels: bool = False, typed: bool = False,
                 deidentified: bool = False) -> list[CellMaker]:
    """Return one function ``(respondent, answers) -> cell`` per variable.

    ``statistics``: the SPSS/Stata data (raw values, missing-value codes,
    texts escaped by ``data_text``); otherwise CSV/XLSX (blank cells, choice
    labels when ``labels``, numbers as numbers when ``typed``).
    ``deidentified``: times are days.
    """
    return [_cell_maker(v, statistics=statistics, labels=labels, typed=typed, deidentified=deidentified)
            for v in variables]


def _cell_maker(v: Variable, *, statistics: bool, labels: bool, typed: bool, deidentified: bool) -> CellMaker:
    make = _answer_cell_maker(v, statistics=statistics, labels=labels, typed=typed, deidentified=deidentified)
    qid = v.question_id
    if qid is None:  # a roster field
        return _escaped(make) if statistics and not v.numeric else make
    not_asked: int | str
    if statistics and NOT_ASKED in v.missing:
        not_asked = NOT_ASKED.code
    elif writes_numbers(v, statistics=statistics, typed=typed, labels=labels):
        not_asked = ""  # a number's cell holds a number or nothing, never text
    else:
        not_asked = NOT_ASKED_CELL
    return lambda respondent, answers: not_asked if answers.get(qid) is _NOT_ASKED else make(respondent, answers)


def _escaped(make: CellMaker) -> CellMaker:
    def cell(respondent: Respondent, answers: Answers) -> object:
        value = make(respondent, answers)
        return data_text(value) if isinstance(value, str) else value
    return cell


def _answer_cell_maker(v: Variable, *, statistics: bool, labels: bool, typed: bool,
                       deidentified: bool) -> CellMaker:
    qid = v.question_id
    if qid is None:  # a roster field
        read = _ROSTER_VALUES[v.field]
        if v.field in _TIME_FIELDS:
            moment = _day if deidentified else moment_text
            return lambda respondent, _: moment(read(respondent))
        return lambda respondent, _: read(respondent)
    if statistics:
        missing = {None: NOT_SAVED.code, "": LEFT_BLANK.code} if v.missing else {None: "", "": ""}
    else:
        missing = {None: "", "": ""}
    if v.choice_value is not None:
        chosen = v.choice_value

        def column(_: Respondent, answers: Answers) -> int | str:
            value = answers.get(qid)
            return missing[value] if not value else int(chosen in value.split(" "))
        return column
    if statistics and v.numeric:
        return lambda _, answers: missing[value] if not (value := answers.get(qid)) else value
    if statistics:
        return lambda _, answers: missing[value] if not (value := answers.get(qid)) else data_text(value)
    if labels and v.choices:
        names = dict(v.choices)
        if v.kind == Question.Kind.MULTIPLE:
            return lambda _, answers: "; ".join(names.get(x, x) for x in value.split(" ")) if (
                value := answers.get(qid)) else ""
        return lambda _, answers: names.get(value, value) if (value := answers.get(qid)) else ""
    if typed and v.numeric:
        # A decimal answer (a calculation's number too) is a number in a cell as well.
        number = float if v.kind in (Question.Kind.DECIMAL, Question.Kind.CALCULATE) else int
        return lambda _, answers: number(value) if (value := answers.get(qid)) else ""
    return lambda _, answers: answers.get(qid) or ""


class _Counter:
    """Count rows as they go by and report progress every PROGRESS_EVERY rows and at the end."""

    def __init__(self, rows: Iterable[tuple[Respondent, Answers]], *, total: int,
                 progress: Callable[[int, int], object] | None) -> None:
        self.rows, self.total, self.progress, self.done = rows, total, progress, 0

    def __iter__(self) -> Iterator[tuple[Respondent, Answers]]:
        for row in self.rows:
            yield row
            self.done += 1
            if self.progress and self.done % PROGRESS_EVERY == 0:
                self.progress(self.done, self.total)
        if self.progress:
            self.progress(self.done, self.total)


def _csv_write(*, stream: "SupportsWrite[str]", plan: VariablePlan, rows: Iterable[tuple[Respondent, Answers]],
               labels: bool = False, deidentified: bool = False) -> None:
    makers = _cell_makers(plan.variables, statistics=False, labels=labels, deidentified=deidentified)
    writer = csv.writer(stream)
    writer.writerow([v.name for v in plan.variables])
    for respondent, answers in rows:
        writer.writerow([spreadsheet_safe(make(respondent, answers)) for make in makers])


def _data_write(*, stream: "SupportsWrite[str]", plan: VariablePlan, rows: Iterable[tuple[Respondent, Answers]],
                deidentified: bool = False) -> None:
    """Write the SPSS and Stata data file: a line of names, then tab-separated lines, texts escaped
    (``exports.cells.data_text``; why: ``docs/architecture.md``, "Response exports")."""
    makers = _cell_makers(plan.variables, statistics=True, deidentified=deidentified)
    stream.write("\t".join(v.name for v in plan.variables) + "\n")
    for respondent, answers in rows:
        stream.write("\t".join([str(make(respondent, answers)) for make in makers]) + "\n")


# A worksheet's rows, the header included (Excel's limit).
XLSX_MAX_ROWS = 1_048_576
_SHEET_NAME_UNSAFE = re.compile(r"[\[\]:*?/\\']")


# A sheet's XML past 4 GB needs ZIP64 (XlsxWriter refuses to close the workbook otherwise): a million respondents
# by 70 columns is about 9 GB of XML. About 60 bytes of XML a cell; ZIP64 from a quarter of the limit on, since
# older spreadsheets warn about ZIP64 in a small file.
ZIP64_FROM_CELLS = 2**32 // 60 // 4


def xlsx_needs_zip64(*, rows: int, columns: int) -> bool:
    """Whether an XLSX of ``rows`` by ``columns`` cells may pass ZIP's 4 GB limits."""
    return rows * columns >= ZIP64_FROM_CELLS


def _xlsx_write(*, path: Path, survey: Survey, plan: VariablePlan, rows: Iterable[tuple[Respondent, Answers]],
                total: int, labels: bool = False, max_rows: int = XLSX_MAX_ROWS, deidentified: bool = False) -> None:
    """Write the rows to an XLSX workbook at ``path``.

    XlsxWriter in constant-memory mode: each row goes to disk as it is
    written, so memory stays flat. Every text is written as text, never as a
    formula. When the respondents do not fit one sheet, there is one sheet per
    district (a district too big for one sheet continues on "CODE (2)"), and a
    first sheet says so.
    """
    header = [v.name for v in plan.variables]
    makers = _cell_makers(plan.variables, statistics=False, labels=labels, typed=True, deidentified=deidentified)
    workbook = xlsxwriter.Workbook(str(path), {"constant_memory": True, "strings_to_formulas": False,
                                               "strings_to_urls": False, "strings_to_numbers": False,
                                               "use_zip64": xlsx_needs_zip64(rows=total, columns=len(header))})
    sheets: dict[str, list[Any]] = {}  # name: [worksheet, next row]
    parts: dict[str, int] = {}  # name: sheets so far
    split = total + 1 > max_rows

    def sheet_for(name: str) -> list[Any]:
        entry = sheets.get(name)
        if entry is None or entry[1] >= max_rows:
            parts[name] = parts.get(name, 0) + 1
            title = name if parts[name] == 1 else f"{name} ({parts[name]})"
            worksheet = workbook.add_worksheet(_sheet_name(title))
            worksheet.write_row(0, 0, header)
            worksheet.freeze_panes(1, 0)
            entry = sheets[name] = [worksheet, 1]
        return entry

    try:
        if split:
            about = workbook.add_worksheet("About")
            about.write_string(0, 0, f"{survey.title}: {total} respondents, more than one sheet holds "
                                     f"({max_rows - 1} rows). One sheet per district follows, by district code.")
        for respondent, answers in rows:
            name = "Responses"
            if split:
                name = respondent.school.district.code if respondent.school else "No school"
            entry = sheet_for(name)
            entry[0].write_row(entry[1], 0, [make(respondent, answers) for make in makers])
            entry[1] += 1
        if not sheets:
            sheet_for("Responses")
    finally:
        workbook.close()


def _sheet_name(title: str) -> str:
    return _SHEET_NAME_UNSAFE.sub("-", title)[:31] or "Sheet"


def _prepare(*, survey: Survey, options: ExportOptions | None, using: str | None, school_ids: Iterable[int] | None,
             export_filter: ExportFilter) -> tuple[ExportOptions, VariablePlan, _Selection]:
    options = options or ExportOptions()
    plan = variables_plan(survey=survey, roster_fields=options.exported_roster_fields, multiple=options.multiple,
                          using=using)
    school_ids = None if school_ids is None else frozenset(school_ids)
    selection = _selection(survey=survey, using=using, school_ids=school_ids, deidentified=options.deidentified,
                           export_filter=export_filter)
    return options, plan, selection


def responses_write_csv(*, survey: Survey, stream: "SupportsWrite[str]", using: str | None = None,
                        options: ExportOptions | None = None, school_ids: frozenset[int] | None = None,
                        export_filter: ExportFilter = NO_FILTER,
                        progress: Callable[[int, int], object] | None = None) -> int:
    """Write every response of ``survey`` (that ``export_filter`` keeps) as CSV to the text ``stream``; return the
    number of respondents.

    ``using`` names the database to read answers from: exports read a replica
    (``infra.db_router.replica_alias()``) so they never load the master. No
    codebook: ``export_write`` writes one beside its files.
    """
    options, plan, selection = _prepare(survey=survey, options=options, using=using, school_ids=school_ids,
                                        export_filter=export_filter)
    rows = _Counter(_respondent_answers(selection=selection), total=selection.total, progress=progress)
    _csv_write(stream=stream, plan=plan, rows=rows, labels=options.labels, deidentified=options.deidentified)
    return rows.done


def responses_write_xlsx(*, survey: Survey, path: Path, using: str | None = None, max_rows: int = XLSX_MAX_ROWS,
                         options: ExportOptions | None = None, school_ids: frozenset[int] | None = None,
                         export_filter: ExportFilter = NO_FILTER,
                         progress: Callable[[int, int], object] | None = None) -> int:
    """Write every response of ``survey`` to an XLSX workbook at ``path``; return the number of respondents."""
    options, plan, selection = _prepare(survey=survey, options=options, using=using, school_ids=school_ids,
                                        export_filter=export_filter)
    rows = _Counter(_respondent_answers(selection=selection), total=selection.total, progress=progress)
    _xlsx_write(path=path, survey=survey, plan=plan, rows=rows, total=selection.total, labels=options.labels,
                max_rows=max_rows, deidentified=options.deidentified)
    return rows.done


# The data file's suffix in each format: SPSS and Stata read a file no spreadsheet takes as its own.
DATA_SUFFIXES = {"csv": ".csv", "xlsx": ".xlsx", "spss": ".dat", "stata": ".dat"}


def export_paths(*, format: str, directory: Path, stem: str) -> dict[str, Path | None]:
    """Return the paths an export of ``format`` writes in ``directory``: data, syntax (or None), codebook."""
    directory = Path(directory)
    return {
        "data": directory / f"{stem}{DATA_SUFFIXES[format]}",
        "syntax": {"spss": directory / f"{stem}.sps", "stata": directory / f"{stem}.do"}.get(format),
        "codebook": directory / f"{stem}-codebook.xlsx",
    }


def export_write(*, survey: Survey, format: str, options: ExportOptions, directory: Path, using: str | None = None,
                 school_ids: frozenset[int] | None = None, export_filter: ExportFilter = NO_FILTER,
                 progress: Callable[[int, int], None] | None = None, stem: str | None = None,
                 max_rows: int = XLSX_MAX_ROWS) -> ExportResult:
    """Write an export of ``survey``'s responses into ``directory``; return an ExportResult.

    Writes the data (``<stem>.csv``, ``<stem>.xlsx`` for XLSX, ``<stem>.dat``
    for SPSS and Stata), the syntax that reads it for SPSS (``<stem>.sps``) or
    Stata (``<stem>.do``), and the
    codebook (``<stem>-codebook.xlsx``); ``stem`` is the survey's slug unless
    given. ``school_ids`` limits the export to those schools (None: every
    respondent, those with no school too); ``export_filter`` (exports/filters.py)
    narrows them, in the query, and the codebook's Filter sheet says how. ``progress(done, total)`` is called
    every 1,000 respondents and at the end. Raise ExportError for a format or
    directory that will not do; if anything fails, no file is left behind and
    files of an earlier export with the same names are untouched.
    """
    if format not in FORMATS:
        raise ExportError(f"Unknown format {format!r}: one of {', '.join(FORMATS)}.")
    directory = Path(directory)
    if not directory.is_dir():
        raise ExportError(f"No directory {directory}.")
    stem = stem or survey.slug
    paths = export_paths(format=format, directory=directory, stem=stem)
    written = {key: path for key, path in paths.items() if path is not None}
    options, plan, selection = _prepare(survey=survey, options=options, using=using, school_ids=school_ids,
                                        export_filter=export_filter)
    statistics = format in STATISTICS_FORMATS
    partial = {key: path.with_name(path.name + ".partial") for key, path in written.items()}
    try:
        rows = _Counter(_respondent_answers(selection=selection), total=selection.total, progress=progress)
        if format == "xlsx":
            _xlsx_write(path=partial["data"], survey=survey, plan=plan, rows=rows, total=selection.total,
                        labels=options.labels, max_rows=max_rows, deidentified=options.deidentified)
        else:
            with open(partial["data"], "w", newline="", encoding="utf-8") as stream:
                if statistics:
                    _data_write(stream=stream, plan=plan, rows=rows, deidentified=options.deidentified)
                else:
                    _csv_write(stream=stream, plan=plan, rows=rows, labels=options.labels,
                               deidentified=options.deidentified)
        if format == "spss":
            spss_syntax_write(path=partial["syntax"], survey=survey, plan=plan, data_name=written["data"].name)
        elif format == "stata":
            stata_syntax_write(path=partial["syntax"], survey=survey, plan=plan, data_name=written["data"].name)
        result = ExportResult(
            data=written["data"], syntax=paths["syntax"], codebook=written["codebook"], respondent_count=rows.done,
            suppressed_schools=selection.suppressed_schools, suppressed_respondents=selection.suppressed_respondents)
        codebook_write(path=partial["codebook"], survey=survey, plan=plan, format=format, labels=options.labels,
                       about=_about(survey=survey, format=format, options=options, result=result,
                                    school_ids=selection.school_ids, export_filter=export_filter),
                       filter_rows=export_filter_rows(survey=survey, format=format, export_filter=export_filter,
                                                      options=options, respondents=result.respondent_count,
                                                      school_ids=selection.school_ids, using=using))
        for key, path in partial.items():
            os.replace(path, written[key])
    except BaseException:
        for path in partial.values():
            path.unlink(missing_ok=True)
        raise
    return result


def _about(*, survey: Survey, format: str, options: ExportOptions, result: ExportResult,
           school_ids: frozenset[int] | None, export_filter: ExportFilter) -> list[tuple[str, str | int]]:
    return [
        ("Survey", f"{survey.title} ({survey.slug})"),
        ("Format", format),
        ("Options", options.describe()),
        ("Filter", f"{export_filter.describe()} (the Filter sheet says it part by part)"),
        ("Schools", "every school, and respondents with no school" if school_ids is None
         else f"{len(school_ids)} school(s) of the requester's scope"),
        ("Respondents", result.respondent_count),
        ("Withdrawn respondents", "left out" if options.deidentified else "included (see status)"),
        ("Row order", "shuffled (de-identified)" if options.deidentified else "by respondent id (roster order)"),
        ("Times", f"the day only, in {settings.TIME_ZONE} (de-identified)" if options.deidentified
         else f"ISO 8601 in {settings.TIME_ZONE}, with the offset from UTC, to the second"),
        ("Suppressed schools", result.suppressed_schools),
        ("Suppressed respondents", result.suppressed_respondents),
        ("Suppression rule", f"de-identified exports leave out schools with fewer than "
                             f"{settings.EXPORT_SMALL_SCHOOL_MIN} respondents (respondents with no school count as "
                             f"one school)" if options.deidentified else "none: not de-identified"),
        ("Files", ", ".join(path.name for path in result.files)),
        ("Generated at", moment_text(timezone.now())),
    ]


def export_zip(*, files: Iterable[Path], path: Path) -> Path:
    """Bundle ``files`` (an ExportResult's ``files``) into one ZIP at ``path``, file by file; return ``path``."""
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
            for file in files:
                bundle.write(file, arcname=Path(file).name)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return path
