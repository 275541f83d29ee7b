"""Response exports: one row per respondent, one column per answerable question code.

Multiple-choice answers are one column holding the chosen values separated by
single spaces, in choice order (as stored; the same convention as ODK's
select_multiple). A grid exports one column per row, under the row's code.
Exports stream: respondents are read in pages by primary key and only one
page of answers is held in memory at a time.

Every text cell is safe to open in a spreadsheet (``spreadsheet_safe``): a
text that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is
written with an apostrophe before it, so no spreadsheet takes it for a formula
(an answer ``=HYPERLINK(...)`` arrives as ``'=HYPERLINK(...)``); a number such
as ``-5`` is written as it is.
"""
import csv
import re

from respondents.models import Answer, Respondent
from surveys.selectors import answerable_questions

RESPONDENT_COLUMNS = [
    "respondent_id", "external_id", "school_code", "school_name", "grade", "role", "language",
    "status", "started_at", "last_saved_at", "completed_at",
]


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def spreadsheet_safe(cell):
    """Return ``cell`` as it may go into a CSV or spreadsheet cell without a spreadsheet running it as a formula."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS) and not _NUMBER.match(cell):
        return "'" + cell
    return cell


def responses_header(*, survey):
    questions = answerable_questions(survey=survey)
    return RESPONDENT_COLUMNS + [q.code for q in questions], questions


def responses_rows(*, survey, questions, batch_size=500, using=None):
    """Yield one list of cells per respondent of ``survey``, in id order, read from database ``using``."""
    column = {q.pk: index for index, q in enumerate(questions)}
    respondents = Respondent.objects.using(using).filter(survey=survey).select_related("school").order_by("pk")
    last_pk = 0
    while True:
        batch = list(respondents.filter(pk__gt=last_pk)[:batch_size])
        if not batch:
            return
        last_pk = batch[-1].pk
        answers = {r.pk: [""] * len(questions) for r in batch}
        rows = Answer.objects.using(using).filter(respondent_id__in=answers.keys()).values_list("respondent_id", "question_id", "value")
        for respondent_id, question_id, value in rows:
            if question_id in column:
                answers[respondent_id][column[question_id]] = value
        for r in batch:
            yield [
                r.pk, r.external_id, r.school.code if r.school else "", r.school.name if r.school else "",
                r.grade, r.role, r.language, r.status,
                _iso(r.started_at), _iso(r.last_saved_at), _iso(r.completed_at),
            ] + answers[r.pk]


def responses_write_csv(*, survey, stream, using=None):
    """Write every response of ``survey`` as CSV to the text ``stream``; return the number of respondents.

    ``using`` names the database to read answers from: exports read a replica
    (``config.db_router.replica_alias()``) so they never load the master.
    """
    header, questions = responses_header(survey=survey)
    writer = csv.writer(stream)
    writer.writerow(header)
    count = 0
    for row in responses_rows(survey=survey, questions=questions, using=using):
        writer.writerow([spreadsheet_safe(cell) for cell in row])
        count += 1
    return count


def _iso(moment):
    return moment.isoformat() if moment else ""


# A worksheet's rows, the header included (Excel's limit).
XLSX_MAX_ROWS = 1_048_576
_SHEET_NAME_UNSAFE = re.compile(r"[\[\]:*?/\\']")


def responses_write_xlsx(*, survey, path, using=None, max_rows=XLSX_MAX_ROWS):
    """Write every response of ``survey`` to an XLSX workbook at ``path``; return the number of respondents.

    XlsxWriter in constant-memory mode: each row goes to disk as it is
    written, so memory stays flat. Every text is written as text, never as a
    formula. When the respondents do not fit one sheet, there is one sheet per
    district (a district too big for one sheet continues on "CODE (2)"), and a
    first sheet says so.
    """
    import xlsxwriter

    from respondents.models import School

    header, questions = responses_header(survey=survey)
    total = Respondent.objects.using(using).filter(survey=survey).count()
    workbook = xlsxwriter.Workbook(path, {"constant_memory": True, "strings_to_formulas": False,
                                          "strings_to_urls": False, "strings_to_numbers": False})
    sheets, parts = {}, {}  # name: [worksheet, next row]; name: sheets so far

    def sheet_for(name):
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
        if total + 1 > max_rows:
            about = workbook.add_worksheet("About")
            about.write_string(0, 0, f"{survey.title}: {total} respondents, more than one sheet holds "
                                     f"({max_rows - 1} rows). One sheet per district follows, by district code.")
            district_of = dict(School.objects.using(using).values_list("code", "district__code"))
        count = 0
        for row in responses_rows(survey=survey, questions=questions, using=using):
            name = "Responses" if total + 1 <= max_rows else (district_of.get(row[2]) or "No school")
            entry = sheet_for(name)
            entry[0].write_row(entry[1], 0, row)
            entry[1] += 1
            count += 1
        if not sheets:
            sheet_for("Responses")
    finally:
        workbook.close()
    return count


def _sheet_name(title):
    return _SHEET_NAME_UNSAFE.sub("-", title)[:31] or "Sheet"
