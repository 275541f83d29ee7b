"""The school directory: CSV or XLSX in, districts and schools upserted by code, any problem writes nothing."""
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from openpyxl import Workbook

from accounts.scopes import COMMAND_LINE
from fileformats.tables import TableError
from respondents.models import District, School
from rosters.directory import directory_counts, school_directory_import

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]

HEADER = "district_code,district_name,school_code,school_name\n"
GOOD = HEADER + "D1,North,S1,Alpha Elementary\nD1,North,S2,Beta Middle\nD2,South,S3,Gamma High\n"


def csv_file(tmp_path, text, *, encoding="utf-8", name="schools.csv"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def xlsx_file(tmp_path, rows, name="schools.xlsx"):
    workbook = Workbook()
    for row in rows:
        workbook.active.append(row)
    path = tmp_path / name
    workbook.save(path)
    return path


def directory():
    return sorted(School.objects.values_list("code", "name", "district__code", "district__name"))


def test_a_directory_is_loaded_and_loading_it_again_changes_nothing(tmp_path):
    first = school_directory_import(scope=COMMAND_LINE, path=csv_file(tmp_path, GOOD))
    assert first.applied and first.described == "CSV (UTF-8)"
    assert (directory_counts(first, 'districts').new, directory_counts(first, 'schools').new) == (2, 3)
    assert directory() == [("S1", "Alpha Elementary", "D1", "North"), ("S2", "Beta Middle", "D1", "North"),
                           ("S3", "Gamma High", "D2", "South")]
    again = school_directory_import(scope=COMMAND_LINE, path=csv_file(tmp_path, GOOD))
    assert again.counts == {"districts": {"new": 0, "updated": 0, "unchanged": 2},
                            "schools": {"new": 0, "updated": 0, "unchanged": 3}}
    assert School.objects.count() == 3 and District.objects.count() == 2


def test_a_corrected_directory_updates_names_and_districts_by_code_and_never_duplicates(tmp_path):
    school_directory_import(scope=COMMAND_LINE, path=csv_file(tmp_path, GOOD))
    ids = dict(School.objects.values_list("code", "id"))
    corrected = HEADER + "D1,North County,S1,Alpha Elementary School\nD2,South,S2,Beta Middle\nD2,South,S4,Delta\n"
    result = school_directory_import(scope=COMMAND_LINE, path=csv_file(tmp_path, corrected))
    assert (directory_counts(result, 'districts').updated, directory_counts(result, 'districts').unchanged) == (1, 1)
    assert (directory_counts(result, 'schools').new, directory_counts(result, 'schools').updated) == (1, 2)
    assert directory() == [("S1", "Alpha Elementary School", "D1", "North County"), ("S2", "Beta Middle", "D2", "South"),
                           ("S3", "Gamma High", "D2", "South"), ("S4", "Delta", "D2", "South")]
    assert School.objects.get(code="S1").id == ids["S1"]  # the same row, updated: respondents keep their school


def test_a_dry_run_counts_and_writes_nothing(tmp_path):
    result = school_directory_import(scope=COMMAND_LINE, path=csv_file(tmp_path, GOOD), dry_run=True)
    assert not result.applied and (directory_counts(result, 'districts').new, directory_counts(result, 'schools').new) == (2, 3)
    assert not School.objects.exists() and not District.objects.exists()


def test_xlsx_is_read_with_numbers_as_codes_and_column_names_matched_loosely(tmp_path):
    path = xlsx_file(tmp_path, [["District Code", "District Name", "School Code", "School Name", "Notes"],
                                [12, "North", 1203, "Alpha"], [None, None, None, None], [12, "North", 1204.0, "Beta"]])
    result = school_directory_import(scope=COMMAND_LINE, path=path)
    assert result.described == "XLSX" and result.applied
    assert directory() == [("1203", "Alpha", "12", "North"), ("1204", "Beta", "12", "North")]


@pytest.mark.parametrize("encoding, said", [("utf-8-sig", "CSV (UTF-8 with BOM)"), ("cp1252", "CSV (Windows-1252)")])
def test_the_text_encoding_is_detected_and_said(tmp_path, encoding, said):
    result = school_directory_import(scope=COMMAND_LINE, path=csv_file(tmp_path, HEADER + "D1,Nörth,S1,École Ñandú\n", encoding=encoding))
    assert result.described == said
    assert directory() == [("S1", "École Ñandú", "D1", "Nörth")]


def test_a_semicolon_separated_csv_is_read(tmp_path):
    text = "district_code;district_name;school_code;school_name\nD1;North;S1;Alpha\n"
    assert school_directory_import(scope=COMMAND_LINE, path=csv_file(tmp_path, text)).applied


@pytest.mark.parametrize("content, says", [
    (b"", "The file is empty."),
    (b"district_code,school_code\nD1,S1\n", "Missing required columns: district_name, school_name."),
    (HEADER.encode(), "no rows below its header"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a CSV or XLSX file"),
    (b"PK\x03\x04 this is no workbook", "not an XLSX workbook"),
    (HEADER.encode() + b"D1,North,S1,Caf\x81\n", "neither UTF-8 nor Windows-1252"),
    (b"district_code,district_code,district_name,school_code,school_name\n", "more than once: district_code"),
])
def test_a_bad_file_gets_one_clear_message_and_writes_nothing(tmp_path, content, says):
    path = tmp_path / "schools.csv"
    path.write_bytes(content)
    with pytest.raises(TableError, match=says.replace(".", r"\.")):
        school_directory_import(scope=COMMAND_LINE, path=path)
    assert not School.objects.exists()


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path, settings):
    settings.UPLOAD_MAX_BYTES = 100
    with pytest.raises(TableError, match="largest accepted"):
        school_directory_import(scope=COMMAND_LINE, path=csv_file(tmp_path, GOOD + "D3,East,S9," + "x" * 200 + "\n"))


def test_every_bad_row_is_reported_with_row_column_value_and_reason_and_nothing_is_written(tmp_path):
    text = (HEADER
            + "D1,North,S1,Alpha\n"
            + "D1,North,,Beta\n"                 # row 3: a school without a code
            + "D1,=HYPERLINK(\"x\"),S3,Gamma\n"  # row 4: a formula
            + "D1,North,S1,Alpha again\n"        # row 5: S1 twice
            + "D1,Norht,S5,Epsilon\n"            # row 6: D1 with another name
            + "D2,South,S6," + "x" * 201 + "\n")  # row 7: too long
    result = school_directory_import(scope=COMMAND_LINE, path=csv_file(tmp_path, text))
    assert not result.applied
    assert [(p.row, p.column, p.reason) for p in result.problems()] == [
        (3, "school_code", "required"),
        (4, "district_name", "a formula: type the value itself"),
        (5, "school_code", "listed twice (first on row 2)"),
        (6, "district_name", "district D1 is named 'North' on an earlier row"),
        (7, "school_name", "longer than 200 characters"),
    ]
    assert not School.objects.exists() and not District.objects.exists()


def test_import_schools_prints_what_it_did_and_exits_1_with_every_problem(tmp_path):
    out = io.StringIO()
    call_command("import_schools", str(csv_file(tmp_path, GOOD)), "--dry-run", stdout=out)
    assert "schools: 3 new" in out.getvalue() and "Dry run: nothing was written." in out.getvalue()
    assert not School.objects.exists()
    call_command("import_schools", str(csv_file(tmp_path, GOOD)), stdout=out)
    assert School.objects.count() == 3
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 problem; nothing was written") as failed:
        call_command("import_schools", str(csv_file(tmp_path, HEADER + "D9,West,S9,=1+1\n")), stdout=out, stderr=err)
    assert failed.value.returncode == 1
    assert "row 2, column school_name: a formula" in err.getvalue()
    with pytest.raises(CommandError, match="Missing required column"):
        call_command("import_schools", str(csv_file(tmp_path, "school_code\nS1\n")))
    assert School.objects.count() == 3


MIGRATION_CHECK = """
import django
django.setup()
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

before, after = [("respondents", "0002_page_save_log")], [("respondents", "0003_schools")]
executor = MigrationExecutor(connection)
executor.migrate(before)
old = executor.loader.project_state(before).apps
survey = old.get_model("surveys", "Survey").objects.create(slug="old", title="Old")
Respondent = old.get_model("respondents", "Respondent")
for n, school in enumerate(["Lincoln", "Adams", "Lincoln", ""]):
    Respondent.objects.create(survey=survey, access_code=f"CODE{n:06d}", school=school)
executor = MigrationExecutor(connection)
executor.migrate(after)
new = executor.loader.project_state(after).apps
for r in new.get_model("respondents", "Respondent").objects.select_related("school__district").order_by("access_code"):
    print(r.access_code, (r.school.code, r.school.name, r.school.district.code) if r.school else None)
"""


def test_the_migration_turns_free_text_schools_into_schools_of_a_pre_directory_district(tmp_path):
    # In a process of its own, on a database file of its own: the suite's database is at the latest migration.
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "DATABASE_URL": f"sqlite:///{tmp_path}/m.sqlite3"}
    run = subprocess.run([sys.executable, "-c", MIGRATION_CHECK], cwd=ROOT, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "CODE000000 ('OLD-0002', 'Lincoln', 'PRE-DIRECTORY')",
        "CODE000001 ('OLD-0001', 'Adams', 'PRE-DIRECTORY')",
        "CODE000002 ('OLD-0002', 'Lincoln', 'PRE-DIRECTORY')",
        "CODE000003 None",
    ]


def test_only_a_state_administrator_loads_the_directory_and_it_is_audited(tmp_path):
    from django.core.exceptions import PermissionDenied

    from accounts.models import AuditEntry, StaffMember
    from respondents.tests.factories import make_staff, scope_of

    district = scope_of(make_staff(StaffMember.Role.DISTRICT_COORDINATOR))
    with pytest.raises(PermissionDenied):
        school_directory_import(scope=district, path=csv_file(tmp_path, GOOD))
    state = scope_of(make_staff(StaffMember.Role.STATE_ADMIN, username="state"))
    school_directory_import(scope=state, path=csv_file(tmp_path, GOOD), filename="directory.csv")
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.username) == ("schools_imported", "state")
    assert entry.detail.startswith("directory.csv: districts ")


def test_a_directory_of_more_rows_than_a_state_has_schools_is_refused_and_nothing_is_written(tmp_path, monkeypatch):
    from rosters import directory as schools

    monkeypatch.setattr(schools, "MAX_ROWS", 2)
    with pytest.raises(TableError, match="more than 2 rows"):
        school_directory_import(scope=COMMAND_LINE, path=csv_file(tmp_path, GOOD))
    assert not School.objects.exists()


# ---------------------------------------------------------------- the pickers' lookups (staff:places, the forms)

@pytest.fixture
def places():
    from respondents.tests.factories import make_school

    return {code: make_school(code, name, district) for code, name, district in (
        ("LIN", "Lincoln Middle", ("D1", "North")), ("LINH", "Lincoln Heights", ("D1", "North")),
        ("BER", "Berlin High", ("D2", "South")), ("ada", "Adams (old)", ("D2", "South")),
        ("ADA", "Adams", ("D2", "South")))}


def test_a_place_is_found_by_its_code_in_any_case_its_name_name_and_code_or_as_the_only_match(places):
    from rosters.directory import district_lookup, school_lookup

    for text, code in (("LIN", "LIN"), ("lin", "LIN"), ("  Lincoln   Middle ", "LIN"),
                       ("Lincoln Heights (LINH)", "LINH"), ("heights", "LINH"), ("ADA", "ADA"), ("ada", "ada"),
                       ("Adams", "ADA"), ("berlin", "BER")):
        assert school_lookup(scope=COMMAND_LINE, text=text).found == places[code], text
    assert district_lookup(scope=COMMAND_LINE, text="south").found.code == "D2"


def test_a_text_several_places_hold_lists_them_best_first_and_one_out_of_scope_finds_nothing(places):
    from accounts.models import StaffMember
    from respondents.tests.factories import make_staff, scope_of
    from rosters.directory import school_lookup

    several = school_lookup(scope=COMMAND_LINE, text="Lincoln")
    assert several.found is None and [s.code for s in several.matches] == ["LINH", "LIN"] and not several.more
    assert [s.code for s in school_lookup(scope=COMMAND_LINE, text="li").matches] == ["LINH", "LIN", "BER"]
    coordinator = scope_of(make_staff(StaffMember.Role.SCHOOL_COORDINATOR, schools=[places["LIN"]]))
    assert school_lookup(scope=coordinator, text="Lincoln").found == places["LIN"]  # the only one in scope
    nothing = school_lookup(scope=coordinator, text="Berlin High (BER)")
    assert nothing.found is None and nothing.matches == ()
    within = school_lookup(scope=COMMAND_LINE, text="Adams", district=District.objects.get(code="D1"))
    assert within.found is None and within.matches == ()


def test_the_pickers_matches_are_capped_and_say_there_are_more(places):
    from respondents.tests.factories import make_school
    from rosters.directory import PICKER_MATCHES, school_matches

    for n in range(PICKER_MATCHES + 1):
        make_school(f"S{n:02d}", f"School {n:02d}", ("D3", "East"))
    found, more = school_matches(scope=COMMAND_LINE, query="school")
    assert len(found) == PICKER_MATCHES and more
    found, more = school_matches(scope=COMMAND_LINE, query="S05")
    assert [s.code for s in found] == ["S05"] and not more
    found, more = school_matches(scope=COMMAND_LINE, query="")
    assert len(found) == PICKER_MATCHES and more and found[0].name == "Adams"
