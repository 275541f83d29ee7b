"""The codebook every export writes beside its data: ``<stem>-codebook.xlsx``, sheets Variables, About and Filter.

Read next: ``docs/architecture.md``, "Response exports" (*The codebook*).
"""
import json
from collections.abc import Iterable
from pathlib import Path

import xlsxwriter
from django.conf import settings

from exports.cells import DATA_ESCAPES, writes_numbers
from exports.filters import STATUSES, ExportFilter, completion_bounds
from exports.options import STATISTICS_FORMATS, ExportOptions
from exports.variables import MISSING_CODES, NOT_ASKED_CELL, ROSTER_FIELDS, Variable, VariablePlan
from fileformats.tables import moment_text
from respondents.code_lists import join_codes
from respondents.models import District, School
from surveys.models import Survey
from surveys.rules import AllOf, rule_describe, rule_to_json
from surveys.selectors import survey_flow

VARIABLE_COLUMNS = [
    "variable", "question code", "page", "kind", "prompt", "choices", "required", "asked when", "type",
    "measurement level", "missing values", "definition version",
]
_WIDTHS = [24, 24, 6, 12, 60, 40, 9, 40, 9, 12, 40, 40]
FILTER_COLUMNS = ["part", "in words", "codes"]


def export_filter_rows(*, survey: Survey, format: str, export_filter: ExportFilter, options: ExportOptions,
                       respondents: int, school_ids: frozenset[int] | None,
                       using: str | None) -> list[tuple[str, str | int, str]]:
    """Return the codebook's Filter sheet: which respondents and roster fields made the file, part by part, in
    words and in codes, and the command that makes the same file."""
    f = export_filter
    districts = dict(District.objects.using(using).filter(code__in=f.districts).values_list("code", "name"))
    schools = dict(School.objects.using(using).filter(code__in=f.schools).values_list("code", "name"))
    start, end = completion_bounds(f)
    zone = settings.TIME_ZONE
    every = "every school, and respondents with no school" if school_ids is None else (
        f"the requester's {len(school_ids)} school(s)")
    command = " ".join(part for part in (
        f"manage.py export_responses {survey.slug} --format {format}", f.as_options(),
        f"--roster-fields {','.join(options.exported_roster_fields)}" if options.exported_roster_fields
        else "--roster-fields ''", "--labels" if options.labels else "",
        "--multiple columns" if options.multiple == "columns" else "",
        "--deidentified" if options.deidentified else "") if part)
    return [
        ("Filter", f.describe(), json.dumps(f.as_dict(), ensure_ascii=False)),
        ("Status", " or ".join(STATUSES[s] for s in f.statuses) if f.statuses
         else "every status: " + ", ".join(STATUSES.values()),
         join_codes(f.statuses)),
        ("Districts", "; ".join(f"{districts.get(code, '?')} ({code})" for code in f.districts) if f.districts
         else "every district", join_codes(f.districts)),
        ("Schools", "; ".join(f"{schools.get(code, '?')} ({code})" for code in f.schools) if f.schools
         else "every school" if not f.districts else "those of the districts", join_codes(f.schools)),
        ("Completed from", f"{f.completed_from.isoformat()}, from its first instant in {zone} "
                           f"({moment_text(start)})" if f.completed_from and start else "no first day",
         f.completed_from.isoformat() if f.completed_from else ""),
        ("Completed to", f"{f.completed_to.isoformat()} included, to its last instant in {zone} "
                         f"(before {moment_text(end)})" if f.completed_to and end else "no last day",
         f.completed_to.isoformat() if f.completed_to else ""),
        ("Within", every, ""),
        ("Roster fields", "; ".join(ROSTER_FIELDS[name] for name in options.exported_roster_fields) or "none",
         ",".join(options.exported_roster_fields)),
        ("Respondents", respondents, ""),
        ("Command line", "the same export (and the same codebook) from the command line, as a state "
                         "administrator: every school", command),
    ]


def codebook_write(*, path: Path, survey: Survey, plan: VariablePlan, format: str, labels: bool = False,
                   about: Iterable[tuple[str, str | int]],
                   filter_rows: Iterable[tuple[str, str | int, str]] = ()) -> None:
    """Write the codebook of an export of ``survey`` (its VariablePlan ``plan``) in ``format`` to ``path``.

    ``labels``: CSV and XLSX hold choice labels. ``about`` is ``[(label,
    value), ...]``; ``filter_rows`` is ``[(part, in words, codes), ...]``
    (``export_filter_rows``), the sheet "Filter".
    """
    statistics = format in STATISTICS_FORMATS

    workbook = xlsxwriter.Workbook(str(path), {"strings_to_formulas": False, "strings_to_urls": False,
                                               "strings_to_numbers": False})
    try:
        wrap = workbook.add_format({"text_wrap": True, "valign": "top"})
        bold = workbook.add_format({"bold": True})
        sheet = workbook.add_worksheet("Variables")
        sheet.write_row(0, 0, VARIABLE_COLUMNS, bold)
        for column, width in enumerate(_WIDTHS):
            sheet.set_column(column, column, width, wrap)
        sheet.freeze_panes(1, 0)
        asked_when = _asked_when(survey)
        for row, v in enumerate(plan.variables, start=1):
            sheet.write_row(row, 0, [
                v.name,
                v.field if v.is_question else "",
                v.page if v.page is not None else "",
                v.kind,
                v.label,
                "\n".join(f"{value} = {label}" for value, label in v.choices),
                ("yes" if v.required else "no") if v.is_question else "",
                asked_when.get(v.field, "always") if v.is_question else "",
                "numeric" if v.numeric else "string",
                v.level,
                _missing(v, statistics=statistics, numbers=writes_numbers(
                    v, statistics=statistics, typed=format == "xlsx", labels=labels)),
                plan.definition_version if v.is_question else "",
            ])
        sheet = workbook.add_worksheet("About")
        sheet.set_column(0, 0, 24, bold)
        sheet.set_column(1, 1, 100, wrap)
        rows = [*about, ("Definition version", plan.definition_version),
                ("Missing values", _missing_rule(format=format, statistics=statistics))]
        if statistics:
            rows.append(("Texts in the data file", _escapes_rule()))
        for row, (label, value) in enumerate(rows):
            sheet.write(row, 0, label)
            sheet.write(row, 1, value)
        sheet = workbook.add_worksheet("Filter")
        sheet.write_row(0, 0, FILTER_COLUMNS, bold)
        for column, width in enumerate((20, 80, 60)):
            sheet.set_column(column, column, width, wrap)
        for row, values in enumerate(filter_rows, start=1):
            sheet.write_row(row, 0, values)
    finally:
        workbook.close()


def _asked_when(survey: Survey) -> dict[str, str]:
    """Return ``{code: its skip logic in words, then as its rule}`` for each question that is not always asked."""
    flow = survey_flow(survey=survey)
    asked: dict[str, str] = {}
    for code, question in flow.questions.items():
        rules = (*((flow.page_rules[question.page],) if question.page in flow.page_rules else ()), *question.rules)
        if not rules:
            continue
        rule = rules[0] if len(rules) == 1 else AllOf(rules=rules)
        prompts, choice_labels = flow.texts(survey.default_language)
        words = rule_describe(rule, prompts=prompts, choice_labels=choice_labels)
        asked[code] = f"if {words}\n{json.dumps(rule_to_json(rule), ensure_ascii=False)}"
    return asked


def _missing(v: Variable, *, statistics: bool, numbers: bool) -> str:
    if not v.is_question:
        return ""
    if statistics and v.missing:
        return "; ".join(f"{m.code} = {m.label}" for m in v.missing)
    why = " (a legal answer could equal a code)" if statistics else ""
    if numbers:
        return f"empty: page not saved, left blank, or not asked (skip logic){why}"
    return f"empty: page not saved or left blank{why}; {NOT_ASKED_CELL}: not asked (skip logic)"


def _escapes_rule() -> str:
    pairs = ", ".join(f"{written} = {_shown(text)}" for written, text in DATA_ESCAPES)
    return ("The data file is UTF-8 text, one line per respondent, values separated by tabs, no quotes. A text "
            "is written with escapes, so that it stays on one line and no spreadsheet runs it: "
            f"{pairs} (a backslash before a first =, +, -, @ or \" only). The .sps or .do file undoes them, "
            "the backslash last, so SPSS and Stata hold every text exactly; another program reading the file "
            "must undo them the same way.")


def _shown(text: str) -> str:
    return {"\t": "tab", "\n": "line feed", "\r": "carriage return", "\\": "backslash"}.get(text, text)


def _missing_rule(*, format: str, statistics: bool) -> str:
    codes = "; ".join(f"{m.code} (Stata {m.stata}) = {m.label}" for m in MISSING_CODES)
    if format == "xlsx":
        return ("An empty cell: the page was not saved (not reached) or the question was left blank; in a numeric "
                "column (numbers only), also a question not asked. "
                f"{NOT_ASKED_CELL} in a text column: the question was not asked, because its skip logic (its own "
                "or its page's show_if) did not hold for the respondent's answers (see asked when).")
    if not statistics:
        return ("An empty cell: the page was not saved (not reached) or the question was left blank. "
                f"{NOT_ASKED_CELL}: the question was not asked, because its skip logic (its own or its page's "
                "show_if) did not hold for the respondent's answers; an answer saved before those answers "
                f"changed is kept in the system but exported as {NOT_ASKED_CELL}. A free text typed as "
                f"{NOT_ASKED_CELL} reads the same: the question's skip logic in the codebook tells them apart.")
    return (f"{codes}. Only in variables whose legal answers cannot equal a code (see the Variables sheet); "
            f"free texts and the others leave both empty and write {NOT_ASKED_CELL} for not asked. "
            f"A number never holds {NOT_ASKED_CELL}: where it carries no codes, every missing answer is empty. "
            f"A multiple choice with nothing chosen is left blank. "
            + ("Stata: strings have no extended missing values, so the .do file empties coded string cells; "
               "the data file keeps the codes." if format == "stata" else ""))
