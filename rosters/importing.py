"""Roster import: a CSV or XLSX file of people for a survey, checked first (a dry run), applied on confirmation.

``roster_upload`` keeps the file, ``roster_check`` stages its rows and problems, ``roster_apply`` writes them in
set-based SQL. Read next: ``docs/architecture.md``, "The staff area" (*Roster import*); the file's columns:
``docs/operations.md``, "The staff area: people and codes".
"""
import csv
import io
import logging
import os
import time
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal, TypedDict

from django.conf import settings
from django.core.files import File
from django.db import connection, transaction
from django.db.models import Count, Exists, Min, OuterRef, QuerySet
from django.utils import timezone

from accounts.audit import Action, audit_record
from accounts.scopes import COMMAND_LINE, NotStaff, Scope, staff_scope
from fileformats.tables import Problem, Table, TableError, formula_problem, local_path, open_table, spreadsheet_safe
from infra import sql
from respondents import access_codes
from respondents.models import Respondent, School, text_max_length
from rosters.models import Roster, RosterProblem, RosterRow
from rosters.selectors import rosters_in_scope
from surveys.models import Survey

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

log = logging.getLogger(__name__)
REQUIRED = ["external_id", "school_code"]
OPTIONAL = ["grade", "role", "language", "display_name"]
MAX_LENGTH = {name: text_max_length(Respondent, name) for name in ["external_id", "grade", "display_name"]}
BATCH = 5000
Status = Roster.Status
# What a school and role's rows made: one line of Roster.counts each (with the school's code and the role).
NUMBERS: tuple[Literal["new", "updated", "unchanged", "errors"], ...] = ("new", "updated", "unchanged", "errors")
# {(school code, role): rows with errors}
Errors = Counter[tuple[str, str]]
# A row staged for RosterRow: STAGED's fields less the code, in order.
StagedRow = tuple[int, str, int, str, str, str, str]


class RosterNumbers(TypedDict):
    new: int
    updated: int
    unchanged: int
    errors: int


class RosterCount(RosterNumbers):
    """One line of ``Roster.counts``: what the rows of one school and role made."""

    school: str
    role: str


class RosterNotReady(Exception):
    """The roster cannot be applied now (not checked, has problems, or already applied)."""


class RosterStale(RosterNotReady):
    """The survey changed under the roster while it was being applied: nothing of it was applied."""


ELSEWHERE = "already a respondent of a school that is not yours"


# ---------------------------------------------------------------- 1. upload

def roster_upload(*, scope: Scope, survey: Survey, file: File, filename: str) -> Roster:
    """Keep the uploaded ``file`` and return a Roster to check; raise TableError for a file over the size limit."""
    scope.require("can_manage_people")
    if file.size > settings.UPLOAD_MAX_BYTES:
        raise TableError(f"The file is {file.size / 1e6:.1f} MB; the largest accepted is "
                         f"{settings.UPLOAD_MAX_BYTES / 1e6:.0f} MB.")
    if file.size == 0:
        raise TableError("The file is empty.")
    roster = Roster(survey=survey, name=filename[:200], source_filename=filename[:255], status=Status.CHECKING,
                    uploaded_by_id=scope.user_id, uploaded_from=scope.address)
    roster.file.save(os.path.basename(filename) or "roster", file, save=False)
    roster.save()
    return roster


# ---------------------------------------------------------------- 2. check (the dry run)

def roster_check(*, roster_id: int) -> Roster:
    """Read and check the roster's file, staging its rows; leave it CHECKED or REFUSED. Writes no respondent."""
    roster = Roster.objects.select_related("survey", "uploaded_by").get(pk=roster_id)
    if roster.status != Status.CHECKING:
        return roster
    started = time.monotonic()
    try:
        scope = _uploader_scope(roster)
        with local_path(roster.file) as path:
            table = open_table(path, required=REQUIRED, optional=OPTIONAL, max_bytes=settings.UPLOAD_MAX_BYTES)
            roster.columns = [c for c in OPTIONAL if c in table.columns]
            Roster.objects.filter(pk=roster.pk).update(
                described=table.described, columns=roster.columns, rows_expected=table.rows_expected)
            errors = _stage(roster, table, scope)
        _analyze_staged()
        staged = time.monotonic()
        errors.update(_whole_file_problems(roster, scope))
        problem_count = RosterProblem.objects.filter(roster=roster).count()
        with transaction.atomic(durable=True):
            Roster.objects.filter(pk=roster.pk).update(
                status=Status.REFUSED if problem_count else Status.CHECKED, problem_count=problem_count,
                counts=_counts(roster, errors), checked_at=timezone.now())
            roster.refresh_from_db()
            audit_record(scope=scope, action=Action.ROSTER_CHECKED, survey=roster.survey,
                         detail=f"{roster.source_filename}: {roster.rows_read} rows, {problem_count} problems")
    except TableError as error:
        return _refuse(roster, error=str(error))
    except RosterNotReady as error:
        return _refuse(roster, error=str(error), status=Status.FAILED)
    except Exception as error:
        _refuse(roster, error=f"The check failed: {error}", status=Status.FAILED)
        raise
    log.info("roster %s checked: %s rows read and staged in %.1f s, whole-file checks and counts in %.1f s, "
             "%s problems", roster.pk, roster.rows_read, staged - started, time.monotonic() - staged, problem_count)
    if problem_count:
        _forget_staged(roster)
    return roster


def _stage(roster: Roster, table: Table, scope: Scope) -> Errors:
    """Stage the good rows and record the problems, a batch at a time; return {(school, role): rows with errors}."""
    schools = dict(School.objects.values_list("code", "pk"))
    roles = set(Respondent.Role.values)
    # The site's languages and the survey's own (a survey may be in a language the interface does not speak).
    languages = {code for code, _ in settings.LANGUAGES} | set(roster.survey.languages or ())
    errors = Errors()
    rows: list[StagedRow] = []
    problems: list[Problem] = []
    read = 0
    for number, record in table.rows:
        read += 1
        found = _row_problems(number, record, schools, roles, languages, scope)
        if found:
            problems.extend(found)
            errors[record["school_code"], record.get("role", "").lower()] += 1
        else:
            rows.append((number, record["external_id"], schools[record["school_code"]], record.get("grade", ""),
                         record.get("role", "").lower(), record.get("language", "") or "en",
                         record.get("display_name", "")))
        if len(rows) + len(problems) >= BATCH:
            _write_batch(roster, rows, problems, read)
            rows, problems = [], []
    _write_batch(roster, rows, problems, read)
    roster.rows_read = read
    return errors


def _row_problems(number: int, record: dict[str, str], schools: dict[str, int], roles: set[str], languages: set[str],
                  scope: Scope) -> list[Problem]:
    found: list[Problem] = []
    for column, value in record.items():
        problem = formula_problem(number, column, value)
        if problem is None and column in MAX_LENGTH and len(value) > MAX_LENGTH[column]:
            problem = Problem(number, column, value, f"longer than {MAX_LENGTH[column]} characters")
        if problem:
            found.append(problem)
    if found:
        return found
    for column in REQUIRED:
        if not record[column]:
            found.append(Problem(number, column, "", "required"))
    school = record["school_code"]
    if school and school not in schools:
        found.append(Problem(number, "school_code", school, "not in the school directory"))
    elif school and not scope.covers_school(schools[school]):
        found.append(Problem(number, "school_code", school, "not one of your schools"))
    role = record.get("role", "")
    if role and role.lower() not in roles:
        found.append(Problem(number, "role", role, f"unknown role: use {', '.join(sorted(roles))}"))
    language = record.get("language", "")
    if language and language not in languages:
        found.append(Problem(number, "language", language,
                             f"unknown language: use {', '.join(sorted(languages))}"))
    return found


STAGED = ["row", "external_id", "school_id", "grade", "role", "language", "display_name", "access_code"]


def _write_batch(roster: Roster, rows: list[StagedRow], problems: list[Problem], read: int) -> None:
    """Stage ``rows`` (tuples in STAGED order, less the code) with fresh codes, and record ``problems``.

    On PostgreSQL the rows go in with COPY, several times faster than
    INSERTs of model instances (``make bench-roster``); elsewhere with
    bulk_create.
    """
    coded = [(*row, code) for row, code in zip(rows, access_codes.generate_many(len(rows)), strict=True)]
    if connection.vendor == "postgresql" and coded:
        text = io.StringIO()
        # Every text quoted: in COPY's CSV an unquoted empty field is NULL, a quoted one the empty string.
        csv.writer(text, quoting=csv.QUOTE_NONNUMERIC).writerows((roster.pk, *row) for row in coded)
        text.seek(0)
        with connection.cursor() as cursor:
            cursor.cursor.copy_expert(
                f"COPY {sql.table(RosterRow)} (roster_id, {', '.join(STAGED)}) FROM STDIN WITH (FORMAT csv)", text)
    else:
        RosterRow.objects.bulk_create([RosterRow(roster_id=roster.pk, **dict(zip(STAGED, row, strict=True)))
                                       for row in coded], batch_size=BATCH)
    RosterProblem.objects.bulk_create(
        [RosterProblem(roster_id=roster.pk, row=p.row, column=p.column, value=p.value[:200], reason=p.reason[:300])
         for p in problems], batch_size=BATCH)
    Roster.objects.filter(pk=roster.pk).update(rows_read=read)


def _analyze_staged() -> None:
    """Give PostgreSQL's planner fresh statistics of the staging table: a roster just added a million rows to it,
    and autovacuum's ANALYZE comes later; the whole-file checks and the upsert are planned on these."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {sql.table(RosterRow)}")


def _whole_file_problems(roster: Roster, scope: Scope) -> Errors:
    """Record the problems only the whole file shows; return {(school, role): rows with errors} for them."""
    errors = Errors()
    staged = RosterRow.objects.filter(roster=roster)
    twice = (staged.values("external_id").annotate(copies=Count("pk"), first=Min("row")).filter(copies__gt=1)
             .values("external_id", "first"))
    first_row = {item["external_id"]: item["first"] for item in twice.iterator(chunk_size=BATCH)}
    problems: list[RosterProblem] = []
    if first_row:
        repeated = staged.filter(external_id__in=list(first_row)).exclude(
            row__in=list(first_row.values())).select_related("school").order_by("row")
        for row in repeated.iterator(chunk_size=BATCH):
            problems.append(RosterProblem(roster_id=roster.pk, row=row.row, column="external_id",
                                          value=row.external_id[:200],
                                          reason=f"listed twice in the file (first on row {first_row[row.external_id]})"))
            errors[row.school.code, row.role] += 1
    elsewhere, elsewhere_errors = _elsewhere_problems(roster, scope)
    RosterProblem.objects.bulk_create(problems + elsewhere, batch_size=BATCH)
    return errors + elsewhere_errors


def _counts(roster: Roster, errors: Errors) -> list[RosterCount]:
    """Per school and role: new, updated, unchanged (over the staged rows) and errors; sorted by school, role.

    One LEFT JOIN of the staged rows to the survey's respondents (a hash join
    over a million rows); correlated EXISTS inside COUNT(... FILTER) would
    probe the index once per row and aggregate, several times slower.
    """
    # Null-safe, as _update_changed's test of what differs: a person without a school is updated, not unchanged.
    same = " AND ".join(f"r.{c} IS NOT DISTINCT FROM s.{c}" for c in ["school_id", *_columns(roster)])
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT sc.code, s.role, "
            f"SUM(CASE WHEN r.id IS NULL THEN 1 ELSE 0 END), "
            f"SUM(CASE WHEN r.id IS NOT NULL AND NOT ({same}) THEN 1 ELSE 0 END), "
            f"SUM(CASE WHEN r.id IS NOT NULL AND {same} THEN 1 ELSE 0 END) "
            f"FROM {sql.table(RosterRow)} AS s JOIN {sql.table(School)} AS sc ON sc.id = s.school_id "
            f"LEFT JOIN {sql.table(Respondent)} AS r ON r.survey_id = %s AND r.external_id = s.external_id "
            f"WHERE s.roster_id = %s GROUP BY sc.code, s.role",
            [roster.survey_id, roster.pk])
        summary = {(school, role): RosterNumbers(new=int(new), updated=int(updated), unchanged=int(unchanged),
                                                 errors=0)
                   for school, role, new, updated, unchanged in cursor.fetchall()}
    for key, count in errors.items():
        summary.setdefault(key, RosterNumbers(new=0, updated=0, unchanged=0, errors=0))["errors"] += count
    return [RosterCount(school=school, role=role, **numbers) for (school, role), numbers in sorted(summary.items())]


# ---------------------------------------------------------------- 3. apply

def roster_apply_start(*, scope: Scope, roster_id: int) -> Roster:
    """Mark a checked roster as being applied (once, however often the person clicks); return it.

    Only its uploader applies it (the command line applies any). Raises
    Roster.DoesNotExist outside ``scope``, RosterNotReady for someone else's roster or unless CHECKED.
    """
    scope.require("can_manage_people")
    roster = _own_roster(scope, roster_id)
    if not Roster.objects.filter(pk=roster.pk, status=Status.CHECKED).update(status=Status.APPLYING):
        roster.refresh_from_db()
        if roster.status in {Status.APPLYING, Status.APPLIED}:
            return roster
        raise RosterNotReady(f"This roster is {roster.get_status_display().lower()}: it cannot be applied.")
    roster.status = Status.APPLYING
    return roster


def roster_apply(*, roster_id: int) -> Roster:
    """Upsert the staged rows of a roster marked APPLYING into its survey, in one transaction; return it."""
    roster = Roster.objects.select_related("survey", "uploaded_by").get(pk=roster_id)
    if roster.status != Status.APPLYING:
        return roster
    started = time.monotonic()
    try:
        scope = _uploader_scope(roster)
        with transaction.atomic(durable=True):
            _lock_for_apply(roster)
            if scope.school_ids is not None and RosterRow.objects.filter(roster=roster).exclude(
                    school_id__in=scope.school_ids).exists():
                raise RosterNotReady("The file names schools that are no longer yours: upload it again.")
            # What the check found must still hold: it is read again here, under the lock, and the writes below
            # are conditioned on it as well.
            elsewhere, errors = _elsewhere_problems(roster, scope)
            counts = _counts(roster, errors)
            if elsewhere or counts != roster.counts:
                return _checked_again(roster, scope=scope, elsewhere=elsewhere, counts=counts)
            _draw_again_clashing_codes(roster)
            inserted = _insert_new(roster)
            updated = _update_changed(roster, scope)
            totals = _totals(counts)
            if (inserted, updated) != (totals["new"], totals["updated"]):
                # Someone else wrote one of these people after the reading above (not through a roster, which
                # waits for the lock): nothing of this file is kept.
                raise RosterStale(f"People of this file were changed while it was being applied ({inserted} of "
                                  f"{totals['new']} added, {updated} of {totals['updated']} updated): nothing was "
                                  f"applied. Upload it again.")
            Roster.objects.filter(pk=roster.pk).update(status=Status.APPLIED, counts=counts,
                                                       applied_at=timezone.now())
            audit_record(scope=scope, action=Action.ROSTER_APPLIED, survey=roster.survey,
                         detail=f"{roster.source_filename}: {totals['new']} new, {totals['updated']} updated, "
                                f"{totals['unchanged']} unchanged")
    except Exception as error:
        Roster.objects.filter(pk=roster.pk).update(status=Status.FAILED, error=str(error)[:2000])
        roster.refresh_from_db()
        if isinstance(error, RosterNotReady):
            return roster
        raise
    log.info("roster %s applied in %.1f s", roster.pk, time.monotonic() - started)
    # Rows of the survey's earlier applied rosters are no longer needed: who is missing is judged by the latest.
    RosterRow.objects.filter(roster__survey_id=roster.survey_id, roster__status=Status.APPLIED).exclude(
        roster=roster).delete()
    _forget_file(roster)
    roster.refresh_from_db()
    return roster


def roster_discard(*, scope: Scope, roster_id: int) -> Roster:
    """Drop a checked roster without applying it (the person chose not to); return it."""
    scope.require("can_manage_people")
    roster = _own_roster(scope, roster_id)
    with transaction.atomic(durable=True):
        discarded = Roster.objects.filter(pk=roster.pk, status=Status.CHECKED).update(status=Status.DISCARDED)
        if discarded:
            audit_record(scope=scope, action=Action.ROSTER_DISCARDED, survey=roster.survey,
                         detail=f"{roster.source_filename}: {roster.rows_read} rows, nothing applied")
    if discarded:
        _forget_staged(roster)
    roster.refresh_from_db()
    return roster


def _draw_again_clashing_codes(roster: Roster, attempts: int = 5) -> None:
    """Give a new code to a staged row whose code is already someone's or another staged row's (astronomically
    rare: about once in 400 state-wide imports)."""
    staged = RosterRow.objects.filter(roster=roster)
    for _ in range(attempts):
        taken = list(staged.filter(Exists(Respondent.objects.filter(access_code=OuterRef("access_code"))))
                     .values_list("pk", flat=True))
        # The codes drawn twice first (a tiny list), then their rows: an IN (GROUP BY … HAVING) subquery here
        # was planned as a re-run per row and took minutes.
        twice = list(staged.values("access_code").annotate(copies=Count("pk")).filter(copies__gt=1)
                     .values_list("access_code", flat=True))
        if twice:
            taken += list(staged.filter(access_code__in=twice).values_list("pk", flat=True))
        if not taken:
            return
        for pk in taken:
            RosterRow.objects.filter(pk=pk).update(access_code=access_codes.generate())
    raise RuntimeError("could not draw unused access codes")


def _lock_for_apply(roster: Roster) -> None:
    """Take the locks of a roster's apply, first in its transaction: the roster's row, and the survey's row in
    FOR NO KEY UPDATE mode, so that applies to one survey run one at a time and each reads what the one before
    it wrote (a roster checked before another was applied is judged on the survey as it is now).

    Nobody's respondent row is locked for the reading: a page save updates its respondent's row, and would
    wait for the whole apply. Saves take only KEY SHARE locks on the survey's row (foreign keys), which NO KEY
    UPDATE lets through. Writers that are not roster applies (``/admin/``) are met by the writes themselves:
    ``_update_changed`` and ``_insert_new`` touch only what the reading found, and their counts are compared.
    On SQLite the first write locks the whole database instead.
    """
    Roster.objects.filter(pk=roster.pk).update(status=Status.APPLYING)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT 1 FROM {sql.table(Survey)} WHERE id = %s FOR NO KEY UPDATE",
                           [roster.survey_id])


def _elsewhere_problems(roster: Roster, scope: Scope) -> tuple[list[RosterProblem], Errors]:
    """Return the staged people who are respondents of a school ``scope`` does not cover (the file may not move
    them), as RosterProblems not yet saved, and {(school, role): how many} of them."""
    problems: list[RosterProblem] = []
    errors = Errors()
    if scope.school_ids is None:
        return problems, errors
    elsewhere = RosterRow.objects.filter(roster=roster).filter(Exists(
        Respondent.objects.filter(survey_id=roster.survey_id, external_id=OuterRef("external_id"))
        .exclude(school_id__in=scope.school_ids)
    )).select_related("school").order_by("row")
    for row in elsewhere.iterator(chunk_size=BATCH):
        problems.append(RosterProblem(roster_id=roster.pk, row=row.row, column="external_id",
                                      value=row.external_id[:200], reason=ELSEWHERE))
        errors[row.school.code, row.role] += 1
    return problems, errors


def _checked_again(roster: Roster, *, scope: Scope, elsewhere: list[RosterProblem],
                   counts: list[RosterCount]) -> Roster:
    """Record what the survey's changes since the check make of ``roster`` (inside the apply's transaction):
    REFUSED with the new problems, or CHECKED again with the new counts, to be confirmed again; audited."""
    if elsewhere:
        RosterProblem.objects.bulk_create(elsewhere, batch_size=BATCH)
        status, note = Status.REFUSED, ""
        detail = f"{len(elsewhere)} people of the file are now respondents of schools that are not the uploader's"
    else:
        status = Status.CHECKED
        note = detail = ("The survey changed since this roster was checked (another roster or an edit was applied): "
                         "the counts below are new. Check them, then apply it again.")
    Roster.objects.filter(pk=roster.pk).update(status=status, problem_count=len(elsewhere), counts=counts, error=note,
                                               checked_at=timezone.now())
    audit_record(scope=scope, action=Action.ROSTER_CHECKED, survey=roster.survey,
                 detail=f"{roster.source_filename}: checked again when applied, nothing applied: {detail}")
    if elsewhere:
        _forget_staged(roster)
    roster.refresh_from_db()
    return roster


def _update_changed(roster: Roster, scope: Scope) -> int:
    """Update the people of the file whose fields differ (within ``scope``'s schools); return how many."""
    columns = ["school_id", *_columns(roster)]
    assignments = ", ".join(f"{c} = s.{c}" for c in columns)
    differs = " OR ".join(f"r.{c} IS DISTINCT FROM s.{c}" for c in columns)
    # The scope again in the statement: PostgreSQL checks the WHERE anew on a row another transaction changed
    # since the reading, so nobody is moved from a school the uploader does not cover.
    within, parameters = "", [roster.pk, roster.survey_id]
    if scope.school_ids is not None:
        within = f" AND r.school_id IN ({', '.join(['%s'] * len(scope.school_ids))})" if scope.school_ids else " AND FALSE"
        parameters += list(scope.school_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {sql.table(Respondent)} AS r SET {assignments} FROM {sql.table(RosterRow)} AS s "
            f"WHERE s.roster_id = %s AND r.survey_id = %s AND r.external_id = s.external_id AND ({differs}){within}",
            parameters)
        return cursor.rowcount


def _insert_new(roster: Roster) -> int:
    """Add the people of the file who are not in the survey; return how many. One added meanwhile by another
    writer is skipped (ON CONFLICT), not taken over, and the count shows it."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {sql.table(Respondent)} (survey_id, roster_id, external_id, access_code, school_id, grade, "
            "role, language, display_name, status, current_page) "
            "SELECT %s, %s, s.external_id, s.access_code, s.school_id, s.grade, s.role, s.language, s.display_name, "
            f"%s, 1 FROM {sql.table(RosterRow)} AS s WHERE s.roster_id = %s AND NOT EXISTS ("
            f"SELECT 1 FROM {sql.table(Respondent)} AS r WHERE r.survey_id = %s AND r.external_id = s.external_id) "
            "ON CONFLICT (survey_id, external_id) WHERE NOT (external_id = '') DO NOTHING",
            [roster.survey_id, roster.pk, Respondent.Status.NOT_STARTED, roster.pk, roster.survey_id])
        return cursor.rowcount


# ---------------------------------------------------------------- reading a roster's outcome

def roster_missing(*, scope: Scope, roster: Roster) -> QuerySet[Respondent]:
    """The survey's respondents (in scope, not withdrawn) of the schools the file lists who are not in it."""
    codes = {item["school"] for item in roster.counts}
    return (scope.respondents(roster.survey).filter(school__code__in=codes, withdrawn_at=None)
            .exclude(Exists(RosterRow.objects.filter(roster=roster, external_id=OuterRef("external_id"))))
            .select_related("school").order_by("school__code", "external_id"))


def roster_problems(*, roster: Roster) -> QuerySet[RosterProblem]:
    return RosterProblem.objects.filter(roster=roster).order_by("row", "id")


PROBLEM_COLUMNS = ["row", "column", "value", "reason"]


def roster_problems_write_csv(*, roster: Roster, stream: "SupportsWrite[str]") -> None:
    """Write every problem of the roster as CSV (spreadsheet-safe cells) to the text ``stream``."""
    writer = csv.writer(stream)
    writer.writerow(PROBLEM_COLUMNS)
    for problem in roster_problems(roster=roster).iterator(chunk_size=BATCH):
        writer.writerow([problem.row, problem.column, spreadsheet_safe(problem.value), problem.reason])


def roster_totals(roster: Roster) -> dict[str, int]:
    """The counts summed over schools and roles."""
    return _totals(roster.counts)


def _totals(counts: Iterable[RosterCount]) -> dict[str, int]:
    totals: dict[str, int] = dict.fromkeys(NUMBERS, 0)
    for item in counts:
        for key in NUMBERS:
            totals[key] += item[key]
    return totals


# ---------------------------------------------------------------- helpers

def _columns(roster: Roster) -> list[str]:
    """The optional columns the file has, as SQL names: only the known ones ever reach an f-string."""
    return [column for column in OPTIONAL if column in roster.columns]


def _own_roster(scope: Scope, roster_id: int) -> Roster:
    """The roster, if ``scope`` sees it (Roster.DoesNotExist otherwise) and uploaded it (RosterNotReady otherwise:
    the person who checked the counts is the one who confirms them)."""
    if scope is COMMAND_LINE:
        return Roster.objects.select_related("survey").get(pk=roster_id)
    roster = rosters_in_scope(scope=scope).get(pk=roster_id)
    if roster.uploaded_by_id != scope.user_id:
        who = roster.uploaded_by.get_username() if roster.uploaded_by else "the command line"
        raise RosterNotReady(f"Only {who}, who uploaded this roster, can apply or discard it.")
    return roster


def _uploader_scope(roster: Roster) -> Scope:
    if roster.uploaded_by is None:
        return COMMAND_LINE
    try:
        return staff_scope(user=roster.uploaded_by, address=roster.uploaded_from)
    except NotStaff:
        raise RosterNotReady(f"{roster.uploaded_by.get_username()}, who uploaded it, no longer has a staff role: "
                             "nothing was applied.") from None


def _refuse(roster: Roster, *, error: str, status: str = Status.REFUSED) -> Roster:
    Roster.objects.filter(pk=roster.pk).update(status=status, error=error[:2000], checked_at=timezone.now())
    _forget_staged(roster)
    roster.refresh_from_db()
    return roster


def _forget_staged(roster: Roster) -> None:
    RosterRow.objects.filter(roster=roster).delete()
    _forget_file(roster)


def _forget_file(roster: Roster) -> None:
    if roster.file:
        roster.file.delete(save=False)
        Roster.objects.filter(pk=roster.pk).update(file="")
