"""The school directory: districts and schools from a CSV or XLSX file, checked first and applied on confirmation.

Read next: ``docs/architecture.md``, "The staff area" (*School directory*); the file: ``docs/operations.md``, "Load
a survey and respondents".
"""
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Generic, TypedDict, TypeVar

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Case, IntegerField, Q, QuerySet, When
from django.utils import timezone

from accounts.audit import Action, audit_record
from accounts.scopes import COMMAND_LINE, Scope
from fileformats.checked_files import CheckedFileNotReady, checked_file_discard, problem_rows
from fileformats.tables import Problem, StrPath, Table, TableError, formula_problem, open_table
from infra import sql
from respondents.models import District, School
from rosters.models import DirectoryUpload

COLUMNS = ["district_code", "district_name", "school_code", "school_name"]
CODE_MAX, NAME_MAX = 20, 200
# A state has a few thousand schools; the check holds the file's rows in memory, in the web request.
MAX_ROWS = 100_000
Status = DirectoryUpload.Status
_Row = TypeVar("_Row")
_Old = TypeVar("_Old")


class SchoolRow(TypedDict):
    """A school of the file, as ``DirectoryUpload.school_rows`` keeps it (by its code)."""

    name: str
    district: str


class DirectoryNotReady(CheckedFileNotReady):
    """The directory file cannot be applied or discarded now (not checked, has problems, or done already)."""


@dataclass
class Counts:
    new: int = 0
    updated: int = 0
    unchanged: int = 0

    def __str__(self) -> str:
        return f"{self.new} new, {self.updated} updated, {self.unchanged} unchanged"


def directory_counts(upload: DirectoryUpload, what: str) -> Counts:
    """The counts (``what``: "districts" or "schools") of a DirectoryUpload, as Counts."""
    return Counts(**upload.counts.get(what, {}))


def school_directory_check(*, scope: Scope, path: StrPath, filename: str = "") -> DirectoryUpload:
    """Read and check the directory file at ``path``; keep what applying it would write; return the upload,
    CHECKED or REFUSED (with every problem). Writes nothing to the directory. Only a state administrator's
    ``scope`` may. Raises ``fileformats.tables.TableError`` for a file that cannot be read as a table."""
    scope.require("can_import_schools")
    table = open_table(path, required=COLUMNS, max_bytes=settings.UPLOAD_MAX_BYTES)
    problems: list[Problem] = []
    districts, schools = _read(table, problems)
    return DirectoryUpload.objects.create(
        uploaded_by_id=scope.user_id, uploaded_from=scope.address, source_filename=(filename or str(path))[:255],
        described=table.described, status=Status.REFUSED if problems else Status.CHECKED,
        district_rows={} if problems else districts, school_rows={} if problems else schools,
        counts={} if problems else _counts(districts, schools),
        problem_list=problem_rows(problems), checked_at=timezone.now(),
    )


def school_directory_apply(*, scope: Scope, upload_id: int) -> DirectoryUpload:
    """Write a checked directory file in one transaction, unless the directory changed since it was checked: then
    it is checked again (new counts, a note) and left for the person to confirm. Return the upload. Raises
    DirectoryUpload.DoesNotExist for another person's upload, DirectoryNotReady unless it is CHECKED."""
    scope.require("can_import_schools")
    with transaction.atomic(durable=True):
        upload = _own_upload(scope, upload_id, lock=True)
        if upload.status != Status.CHECKED:
            raise DirectoryNotReady(f"This file is {upload.get_status_display().lower()}: it cannot be applied.")
        _lock_directory()
        counts = _counts(upload.district_rows, upload.school_rows)
        if counts != upload.counts:
            upload.counts, upload.checked_at = counts, timezone.now()
            upload.note = ("The directory changed since this file was checked (another file or an edit was applied): "
                           "the counts below are new. Check them, then apply it again.")
            upload.save(update_fields=["counts", "checked_at", "note"])
            return upload
        _apply(upload.district_rows, upload.school_rows)
        upload.status, upload.applied_at, upload.note = Status.APPLIED, timezone.now(), ""
        upload.save(update_fields=["status", "applied_at", "note"])
        audit_record(scope=scope, action=Action.SCHOOLS_IMPORTED, detail=(
            f"{upload.source_filename}: districts {directory_counts(upload, 'districts')}, "
            f"schools {directory_counts(upload, 'schools')}"))
    return upload


def school_directory_discard(*, scope: Scope, upload_id: int) -> DirectoryUpload:
    """Drop a checked directory file without applying it; return it."""
    return checked_file_discard(uploads=directory_uploads(scope=scope), upload_id=upload_id,
                                not_ready=DirectoryNotReady)


def school_directory_import(*, scope: Scope, path: StrPath, dry_run: bool = False,
                            filename: str = "") -> DirectoryUpload:
    """Check the directory file at ``path`` and, unless ``dry_run`` or it has problems, apply it at once
    (``manage.py import_schools``, where the person at the terminal has confirmed by running it)."""
    upload = school_directory_check(scope=scope, path=path, filename=filename)
    if dry_run or upload.status != Status.CHECKED:
        return upload
    return school_directory_apply(scope=scope, upload_id=upload.pk)


def directory_uploads(*, scope: Scope) -> QuerySet[DirectoryUpload]:
    """The directory files ``scope`` uploaded, newest first (every one, for the command line)."""
    scope.require("can_import_schools")
    uploads = DirectoryUpload.objects.select_related("uploaded_by")
    return uploads if scope is COMMAND_LINE else uploads.filter(uploaded_by_id=scope.user_id)


def school_directory_search(*, scope: Scope, query: str = "") -> QuerySet[School]:
    """The schools ``scope`` covers, with their districts, whose code or name, or district's, holds ``query``."""
    schools = scope.schools().select_related("district").order_by("district__code", "code")
    if query:
        schools = schools.filter(Q(code__icontains=query) | Q(name__icontains=query)
                                 | Q(district__code__icontains=query) | Q(district__name__icontains=query))
    return schools


# The most places a school or district picker lists: the search as you type, and the list of several to choose from.
PICKER_MATCHES = 20
# "Lincoln Middle (LIN)", as the pickers write a place: its code in the last brackets.
_NAMED = re.compile(r"\((?P<code>[^()]+)\)\s*$")
Place = TypeVar("Place", District, School)


@dataclass(frozen=True)
class PlaceLookup(Generic[Place]):
    """What a code or a name typed for a district or a school finds in a scope: ``found``, the one it names (its
    code, "Name (CODE)" as the pickers write it, its exact name, or the only one whose code or name holds the
    text), else ``matches``, the first PICKER_MATCHES of those that hold it (``more``: there are others)."""

    text: str
    found: Place | None = None
    matches: tuple[Place, ...] = ()
    more: bool = False


def district_lookup(*, scope: Scope, text: str) -> PlaceLookup[District]:
    """The district of ``scope`` that ``text`` names (``PlaceLookup``)."""
    return _lookup(scope.districts(), text)


def school_lookup(*, scope: Scope, text: str, district: District | None = None) -> PlaceLookup[School]:
    """The school of ``scope`` (of ``district``, if given) that ``text`` names (``PlaceLookup``)."""
    return _lookup(_schools(scope, district), text)


def district_matches(*, scope: Scope, query: str, limit: int = PICKER_MATCHES) -> tuple[list[District], bool]:
    """The districts of ``scope`` whose code or name holds ``query`` (all, for none), best first: the code, then
    codes and names that start with it, then by name; at most ``limit``, and whether there are more."""
    return _matches(scope.districts(), query, limit)


def school_matches(*, scope: Scope, query: str, district: District | None = None,
                   limit: int = PICKER_MATCHES) -> tuple[list[School], bool]:
    """The schools of ``scope`` (of ``district``, if given), with their districts, as ``district_matches``."""
    return _matches(_schools(scope, district), query, limit)


def _schools(scope: Scope, district: District | None) -> QuerySet[School]:
    schools = scope.schools()
    return schools if district is None else schools.filter(district=district)


def _matches(places: QuerySet[Place], query: str, limit: int) -> tuple[list[Place], bool]:
    query = " ".join(query.split())
    if query:
        places = places.filter(Q(code__icontains=query) | Q(name__icontains=query)).annotate(rank=Case(
            When(code__iexact=query, then=0), When(name__iexact=query, then=1), When(code__istartswith=query, then=2),
            When(name__istartswith=query, then=3), default=4, output_field=IntegerField()))
        places = places.order_by("rank", "name", "code")
    else:
        places = places.order_by("name", "code")
    found = list(places[:limit + 1])
    return found[:limit], len(found) > limit


def _lookup(places: QuerySet[Place], text: str) -> PlaceLookup[Place]:
    text = " ".join(text.split())
    if not text:
        return PlaceLookup(text)
    named = _NAMED.search(text)
    if named:
        coded = list(places.filter(code=named["code"].strip())[:1])
        if coded:
            return PlaceLookup(text, found=coded[0])
    matches, more = _matches(places, text, PICKER_MATCHES)
    # One code, in any case: the code's (codes differ in case only by mistake; the exact one wins).
    codes = [place for place in matches if place.code.lower() == text.lower()]
    exact = [place for place in codes if place.code == text] or codes
    if len(exact) == 1:
        return PlaceLookup(text, found=exact[0])
    named_so = [place for place in matches if place.name.lower() == text.lower()]
    if len(named_so) == 1:
        return PlaceLookup(text, found=named_so[0])
    if len(matches) == 1 and not more:
        return PlaceLookup(text, found=matches[0])
    return PlaceLookup(text, matches=tuple(matches), more=more)


def _own_upload(scope: Scope, upload_id: int, *, lock: bool = False) -> DirectoryUpload:
    uploads = directory_uploads(scope=scope)
    return (uploads.select_for_update(of=("self",)) if lock else uploads).get(pk=upload_id)


def _lock_directory() -> None:
    """Let one directory apply at a time write the directory (PostgreSQL: SHARE ROW EXCLUSIVE, which readers and
    the foreign-key checks of respondents' writes pass through; SQLite locks the database at the first write)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {sql.table(District)}, {sql.table(School)} IN SHARE ROW EXCLUSIVE MODE")


def _counts(districts: Mapping[str, str], schools: Mapping[str, SchoolRow]) -> dict[str, dict[str, int]]:
    """What writing ``districts`` and ``schools`` would do to the directory as it is now."""
    existing_districts = dict(District.objects.filter(code__in=districts).values_list("code", "name"))
    existing_schools = {code: (name, district) for code, name, district in School.objects.filter(code__in=schools)
                        .values_list("code", "name", "district__code")}
    return {
        "districts": _count(districts, existing_districts, lambda name, row: name == row),
        "schools": _count(schools, existing_schools, lambda old, row: old == (row["name"], row["district"])),
    }


def schools_ensure(rows: Collection[tuple[str, str, str, str]]) -> dict[str, School]:
    """Create or update the directory entries ``rows`` of (district code, district name, school code, school name);
    return {school code: School}. For seeding (demo, load tests); files go through school_directory_import."""
    districts = {d_code: d_name for d_code, d_name, _, _ in rows}
    schools = {s_code: SchoolRow(name=s_name, district=d_code) for d_code, _, s_code, s_name in rows}
    with transaction.atomic():
        _apply(districts, schools)
    return {s.code: s for s in School.objects.filter(code__in=schools)}


def _apply(districts: Mapping[str, str], schools: Mapping[str, SchoolRow]) -> None:
    District.objects.bulk_create([District(code=code, name=name) for code, name in districts.items()],
                                 update_conflicts=True, unique_fields=["code"], update_fields=["name"])
    ids = dict(District.objects.filter(code__in=districts).values_list("code", "id"))
    School.objects.bulk_create(
        [School(code=code, name=row["name"], district_id=ids[row["district"]]) for code, row in schools.items()],
        update_conflicts=True, unique_fields=["code"], update_fields=["name", "district"],
    )


def _read(table: Table, problems: list[Problem]) -> tuple[dict[str, str], dict[str, SchoolRow]]:
    """Return ({district code: name}, {school code: {"name", "district"}}), appending every problem found."""
    districts: dict[str, str] = {}
    schools: dict[str, SchoolRow] = {}
    first_seen: dict[str, int] = {}
    for number, row in table.rows:
        if number > MAX_ROWS + 1:
            raise TableError(f"The file has more than {MAX_ROWS:,} rows: a school directory has one row a school.")
        bad = False
        for column in COLUMNS:
            value = row[column]
            problem = formula_problem(number, column, value)
            if problem is None and not value:
                problem = Problem(number, column, "", "required")
            if problem is None and len(value) > (CODE_MAX if column.endswith("_code") else NAME_MAX):
                problem = Problem(number, column, value,
                                  f"longer than {CODE_MAX if column.endswith('_code') else NAME_MAX} characters")
            if problem:
                problems.append(problem)
                bad = True
        if bad:
            continue
        district, school = row["district_code"], row["school_code"]
        if districts.setdefault(district, row["district_name"]) != row["district_name"]:
            problems.append(Problem(number, "district_name", row["district_name"],
                                    f"district {district} is named {districts[district]!r} on an earlier row"))
        if school in schools:
            problems.append(Problem(number, "school_code", school, f"listed twice (first on row {first_seen[school]})"))
            continue
        schools[school] = SchoolRow(name=row["school_name"], district=district)
        first_seen[school] = number
    return districts, schools


def _count(rows: Mapping[str, _Row], existing: Mapping[str, _Old], same: Callable[[_Old, _Row], bool]
           ) -> dict[str, int]:
    counts = {"new": 0, "updated": 0, "unchanged": 0}
    for code, row in rows.items():
        if code not in existing:
            counts["new"] += 1
        elif same(existing[code], row):
            counts["unchanged"] += 1
        else:
            counts["updated"] += 1
    return counts
