"""The school directory: districts and schools, loaded from a CSV or XLSX file.

Columns ``district_code, district_name, school_code, school_name``. Importing
again updates names (and a school's district) and never duplicates: districts
and schools are keyed by their codes. A file with any problem writes nothing.
A directory is a few thousand rows, so it is checked whole in memory.
"""
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction

from respondents.audit import Action, audit_record
from respondents.models import District, School
from respondents.tabular import Problem, formula_problem, open_table

COLUMNS = ["district_code", "district_name", "school_code", "school_name"]
CODE_MAX, NAME_MAX = 20, 200


@dataclass
class Counts:
    new: int = 0
    updated: int = 0
    unchanged: int = 0

    def __str__(self):
        return f"{self.new} new, {self.updated} updated, {self.unchanged} unchanged"


@dataclass
class DirectoryImport:
    described: str  # the file as read: "CSV (UTF-8)", "XLSX"
    districts: Counts = field(default_factory=Counts)
    schools: Counts = field(default_factory=Counts)
    problems: list[Problem] = field(default_factory=list)
    applied: bool = False


def school_directory_import(*, scope, path, dry_run=False, filename=""):
    """Check the directory file at ``path`` and, unless ``dry_run`` or it has problems, apply it in one transaction.

    Only a state administrator's ``scope`` may. Raises ``respondents.tabular.TableError`` for a file that cannot
    be read as a table.
    """
    scope.require("can_import_schools")
    table = open_table(path, required=COLUMNS, max_bytes=settings.UPLOAD_MAX_BYTES)
    result = DirectoryImport(described=table.described)
    districts, schools = _read(table, result.problems)
    if result.problems:
        return result
    with transaction.atomic(durable=True):
        existing_districts = {d.code: d for d in District.objects.select_for_update().filter(code__in=districts)}
        existing_schools = {s.code: s for s in School.objects.select_for_update().select_related("district")
                            .filter(code__in=schools)}
        _count(result.districts, districts, existing_districts, lambda d, name: d.name == name)
        _count(result.schools, schools, existing_schools,
               lambda s, row: (s.name, s.district.code) == (row["name"], row["district"]))
        if dry_run:
            return result
        _apply(districts, schools)
        result.applied = True
        audit_record(scope=scope, action=Action.SCHOOLS_IMPORTED,
                     detail=f"{filename or path}: districts {result.districts}, schools {result.schools}")
    return result


def schools_ensure(rows):
    """Create or update the directory entries ``rows`` of (district code, district name, school code, school name);
    return {school code: School}. For seeding (demo, load tests); files go through school_directory_import."""
    districts = {d_code: d_name for d_code, d_name, _, _ in rows}
    schools = {s_code: {"name": s_name, "district": d_code} for d_code, _, s_code, s_name in rows}
    with transaction.atomic():
        _apply(districts, schools)
    return {s.code: s for s in School.objects.filter(code__in=schools)}


def _apply(districts, schools):
    District.objects.bulk_create([District(code=code, name=name) for code, name in districts.items()],
                                 update_conflicts=True, unique_fields=["code"], update_fields=["name"])
    ids = dict(District.objects.filter(code__in=districts).values_list("code", "id"))
    School.objects.bulk_create(
        [School(code=code, name=row["name"], district_id=ids[row["district"]]) for code, row in schools.items()],
        update_conflicts=True, unique_fields=["code"], update_fields=["name", "district"],
    )


def _read(table, problems):
    """Return ({district code: name}, {school code: {"name", "district"}}), appending every problem found."""
    districts, schools, first_seen = {}, {}, {}
    for number, row in table.rows:
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
        schools[school] = {"name": row["school_name"], "district": district}
        first_seen[school] = number
    return districts, schools


def _count(counts, rows, existing, same):
    for code, row in rows.items():
        if code not in existing:
            counts.new += 1
        elif same(existing[code], row):
            counts.unchanged += 1
        else:
            counts.updated += 1
