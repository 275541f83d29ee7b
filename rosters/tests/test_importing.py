"""Roster import: the dry run, the apply (upsert), bad files, scoping, the command, the audit entries."""
import csv
import io

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import CommandError, call_command
from openpyxl import Workbook

from accounts.models import AuditEntry, StaffMember
from accounts.scopes import COMMAND_LINE
from respondents.models import Respondent
from respondents.tests.factories import make_staff, scope_of
from rosters.importing import (
    RosterNotReady,
    roster_apply,
    roster_apply_start,
    roster_check,
    roster_discard,
    roster_missing,
    roster_problems,
    roster_problems_write_csv,
    roster_totals,
)
from rosters.models import Roster, RosterRow
from rosters.selectors import rosters_in_scope
from rosters.services import respondent_withdraw
from rosters.tests.helpers import HEADER, apply, check, upload
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
def problems(roster):
    return [(p.row, p.column, p.value, p.reason) for p in roster_problems(roster=roster)]


FIRST = HEADER + (
    "s1,LIN,7,student,en,Ana\n"
    "s2,LIN,7,student,es,Ben\n"
    "t1,LIN,,teacher,en,Ms Cruz\n"
    "s3,ADA,8,student,en,Dee\n"
)


# ---------------------------------------------------------------- dry run and apply

def test_a_dry_run_counts_per_school_and_role_and_writes_no_respondent(survey, lincoln, adams):
    roster = check(COMMAND_LINE, survey, FIRST)
    assert roster.status == Roster.Status.CHECKED and roster.described == "CSV (UTF-8)" and roster.rows_read == 4
    assert roster.counts == [
        {"school": "ADA", "role": "student", "new": 1, "updated": 0, "unchanged": 0, "errors": 0},
        {"school": "LIN", "role": "student", "new": 2, "updated": 0, "unchanged": 0, "errors": 0},
        {"school": "LIN", "role": "teacher", "new": 1, "updated": 0, "unchanged": 0, "errors": 0},
    ]
    assert not Respondent.objects.exists()


def test_applying_adds_everyone_with_a_code_and_the_display_name(survey, lincoln, adams):
    roster = apply(COMMAND_LINE, check(COMMAND_LINE, survey, FIRST))
    assert roster.status == Roster.Status.APPLIED and roster_totals(roster)["new"] == 4
    ana = Respondent.objects.get(survey=survey, external_id="s1")
    assert (ana.school, ana.grade, ana.role, ana.language, ana.display_name) == (lincoln, "7", "student", "en", "Ana")
    assert Respondent.objects.get(external_id="s2").language == "es"
    assert len({r.access_code for r in Respondent.objects.all()}) == 4
    assert not RosterRow.objects.exclude(roster=roster).exists() and not roster.file


def test_reimporting_a_corrected_file_adds_updates_never_duplicates_and_keeps_every_code(survey, lincoln, adams):
    apply(COMMAND_LINE, check(COMMAND_LINE, survey, FIRST))
    codes = dict(Respondent.objects.values_list("external_id", "access_code"))
    second = HEADER + (
        "s1,LIN,7,student,en,Ana\n"      # unchanged
        "s2,LIN,8,student,es,Ben\n"      # grade changed
        "s3,LIN,8,student,en,Dee\n"      # moved to Lincoln
        "s4,LIN,7,student,en,Eve\n"      # new
    )
    roster = check(COMMAND_LINE, survey, second)
    assert roster_totals(roster) == {"new": 1, "updated": 2, "unchanged": 1, "errors": 0}
    apply(COMMAND_LINE, roster)
    assert Respondent.objects.filter(survey=survey).count() == 5
    assert Respondent.objects.get(external_id="s2").grade == "8"
    assert Respondent.objects.get(external_id="s3").school == lincoln
    assert all(Respondent.objects.get(external_id=e).access_code == code for e, code in codes.items())
    again = check(COMMAND_LINE, survey, second)
    assert roster_totals(again) == {"new": 0, "updated": 0, "unchanged": 4, "errors": 0}


def test_a_file_without_an_optional_column_leaves_that_field_alone(survey, lincoln, adams):
    apply(COMMAND_LINE, check(COMMAND_LINE, survey, FIRST))
    roster = apply(COMMAND_LINE, check(COMMAND_LINE, survey, "external_id,school_code\ns1,LIN\n"))
    assert roster_totals(roster)["unchanged"] == 1
    assert Respondent.objects.get(external_id="s1").display_name == "Ana"


def test_people_missing_from_the_new_file_are_listed_not_deleted_and_may_be_withdrawn(survey, lincoln, adams):
    apply(COMMAND_LINE, check(COMMAND_LINE, survey, FIRST))
    roster = apply(COMMAND_LINE, check(COMMAND_LINE, survey, HEADER + "s1,LIN,7,student,en,Ana\n"))
    missing = roster_missing(scope=COMMAND_LINE, roster=roster)
    # Only the schools the file lists: Adams' s3 is not "missing" from a Lincoln file.
    assert [r.external_id for r in missing] == ["s2", "t1"]
    assert Respondent.objects.count() == 4
    respondent_withdraw(scope=COMMAND_LINE, respondent_ids=[r.pk for r in missing], survey=survey)
    assert not roster_missing(scope=COMMAND_LINE, roster=roster).exists()
    assert Respondent.objects.filter(withdrawn_at__isnull=False).count() == 2


def test_applying_twice_applies_once_and_a_refused_roster_cannot_be_applied(survey, lincoln, adams):
    roster = check(COMMAND_LINE, survey, FIRST)
    apply(COMMAND_LINE, roster)
    assert roster_apply_start(scope=COMMAND_LINE, roster_id=roster.pk).status == Roster.Status.APPLIED
    assert roster_apply(roster_id=roster.pk).status == Roster.Status.APPLIED
    assert Respondent.objects.count() == 4
    bad = check(COMMAND_LINE, survey, HEADER + "s9,NOPE,7,student,en,\n")
    with pytest.raises(RosterNotReady, match="not applied"):
        roster_apply_start(scope=COMMAND_LINE, roster_id=bad.pk)


def test_a_discarded_roster_is_never_applied(survey, lincoln, adams):
    roster = roster_discard(scope=COMMAND_LINE, roster_id=check(COMMAND_LINE, survey, FIRST).pk)
    assert roster.status == Roster.Status.DISCARDED and not RosterRow.objects.exists()
    with pytest.raises(RosterNotReady):
        roster_apply_start(scope=COMMAND_LINE, roster_id=roster.pk)


def test_an_xlsx_roster_reads_like_the_csv(survey, lincoln, adams, tmp_path):
    book = Workbook()
    sheet = book.active
    for line in FIRST.splitlines():
        sheet.append([int(v) if v.isdigit() else v for v in line.split(",")])
    data = io.BytesIO()
    book.save(data)
    roster = check(COMMAND_LINE, survey, data.getvalue(), name="roster.xlsx")
    assert roster.status == Roster.Status.CHECKED and roster.described == "XLSX"
    assert roster_totals(roster)["new"] == 4


@pytest.mark.parametrize("encoded, described", [
    ("\ufeff" + FIRST.replace("Ana", "Ana María"), "CSV (UTF-8 with BOM)"),
    (FIRST.replace("Ana", "Ana María").encode("cp1252"), "CSV (Windows-1252)"),
])
def test_the_encoding_is_detected_and_said(survey, lincoln, adams, encoded, described):
    roster = apply(COMMAND_LINE, check(COMMAND_LINE, survey, encoded))
    assert roster.described == described
    assert Respondent.objects.get(external_id="s1").display_name == "Ana María"


# ---------------------------------------------------------------- bad files

@pytest.mark.parametrize("content, message", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a CSV or XLSX file"),
    (b"PK\x03\x04 not really a workbook", "not an XLSX workbook"),
    (b"external_id,school_code\ns1,LIN\xc3\x28\x81\n", "neither UTF-8 nor Windows-1252"),
    ("external_id,grade\ns1,7\n", "Missing required column: school_code"),
    (HEADER, "no rows below its header"),
])
def test_a_file_that_is_not_a_roster_gets_one_clear_message_and_writes_nothing(survey, lincoln, content, message):
    roster = check(COMMAND_LINE, survey, content)
    assert roster.status == Roster.Status.REFUSED and message in roster.error
    assert not Respondent.objects.exists() and not RosterRow.objects.exists() and not roster.file


def test_an_empty_file_or_one_over_the_size_limit_is_refused_at_upload(survey, settings):
    from fileformats.tables import TableError

    with pytest.raises(TableError, match="empty"):
        upload(COMMAND_LINE, survey, b"")
    settings.UPLOAD_MAX_BYTES = 100
    with pytest.raises(TableError, match="largest accepted is 0 MB"):
        upload(COMMAND_LINE, survey, FIRST)
    assert not Roster.objects.exists()


@pytest.mark.parametrize("line, problem", [
    ("s1,LIN,7,student,en,Ana\ns1,LIN,8,student,en,Ann", (3, "external_id", "s1", "listed twice in the file (first on row 3)")),
    ("s1,NOPE,7,student,en,", (2, "school_code", "NOPE", "not in the school directory")),
    ("s1,LIN,7,pupil,en,", (2, "role", "pupil", "unknown role: use parent, staff, student, teacher")),
    ("s1,LIN,7,student,fr,", (2, "language", "fr", "unknown language: use en, es")),
    ("s1,LIN,7,student,en,=HYPERLINK(\"x\")", (2, "display_name", '=HYPERLINK("x")', "a formula: type the value itself")),
    (",LIN,7,student,en,", (2, "external_id", "", "required")),
    ("s1,LIN," + "9" * 21 + ",student,en,", (2, "grade", "9" * 21, "longer than 20 characters")),
])
def test_a_bad_row_is_reported_with_row_column_value_and_reason_and_nothing_is_written(survey, lincoln, line, problem):
    roster = check(COMMAND_LINE, survey, HEADER + "ok,LIN,7,student,en,\n" + line + "\n")
    assert roster.status == Roster.Status.REFUSED and roster.problem_count == 1
    row, column, value, reason = problem
    assert problems(roster) == [(row + 1, column, value, reason)]
    assert roster_totals(roster)["errors"] == 1 and roster_totals(roster)["new"] >= 1
    with pytest.raises(RosterNotReady):
        roster_apply_start(scope=COMMAND_LINE, roster_id=roster.pk)
    assert not Respondent.objects.exists()


def test_every_problem_downloads_as_csv_with_formulas_made_harmless(survey, lincoln):
    roster = check(COMMAND_LINE, survey, HEADER + "=1+1,LIN,7,student,en,\ns2,NOPE,7,pupil,en,\n")
    out = io.StringIO()
    roster_problems_write_csv(roster=roster, stream=out)
    assert list(csv.reader(io.StringIO(out.getvalue()))) == [
        ["row", "column", "value", "reason"],
        ["2", "external_id", "'=1+1", "a formula: type the value itself"],
        ["3", "school_code", "NOPE", "not in the school directory"],
        ["3", "role", "pupil", "unknown role: use parent, staff, student, teacher"],
    ]


# ---------------------------------------------------------------- scoping

def test_a_school_coordinator_cannot_import_into_another_school(survey, lincoln, adams, coordinator):
    roster = check(scope_of(coordinator), survey, FIRST)
    assert roster.status == Roster.Status.REFUSED
    assert problems(roster) == [(5, "school_code", "ADA", "not one of your schools")]
    assert not Respondent.objects.exists()


def test_a_school_coordinator_cannot_move_a_person_of_another_school_into_theirs(survey, lincoln, adams, coordinator):
    apply(COMMAND_LINE, check(COMMAND_LINE, survey, FIRST))
    roster = check(scope_of(coordinator), survey, HEADER + "s3,LIN,8,student,en,Dee\n")
    assert problems(roster) == [(2, "external_id", "s3", "already a respondent of a school that is not yours")]
    assert Respondent.objects.get(external_id="s3").school.code == "ADA"


def test_a_roster_checked_before_another_school_took_a_person_is_refused_when_applied(
        survey, lincoln, adams, coordinator):
    # Lincoln checks a file naming stu-777 (nobody yet) and leaves it; Adams adds stu-777; Lincoln applies.
    stale = check(scope_of(coordinator), survey, HEADER + "stu-777,LIN,7,student,en,Taken Over\n")
    assert stale.status == Roster.Status.CHECKED
    adams_coordinator = scope_of(make_staff(Role.SCHOOL_COORDINATOR, schools=[adams]))
    apply(adams_coordinator, check(adams_coordinator, survey, HEADER + "stu-777,ADA,8,student,en,Dee\n"))
    roster = apply(scope_of(coordinator), stale)
    assert roster.status == Roster.Status.REFUSED
    assert problems(roster) == [(2, "external_id", "stu-777", "already a respondent of a school that is not yours")]
    person = Respondent.objects.get(external_id="stu-777")
    assert (person.school, person.display_name, person.grade) == (adams, "Dee", "8")
    assert not scope_of(coordinator).respondents(survey).exists()
    assert not RosterRow.objects.filter(roster=roster).exists()
    entry = AuditEntry.objects.filter(action="roster_checked", username=coordinator.username).latest("id")
    assert "checked again when applied, nothing applied" in entry.detail
    assert not AuditEntry.objects.filter(action="roster_applied", username=coordinator.username).exists()


def test_a_roster_whose_counts_changed_since_the_check_is_checked_again_and_applied_only_once_confirmed(
        survey, lincoln, coordinator):
    scope = scope_of(coordinator)
    first = check(scope, survey, HEADER + "s1,LIN,7,student,en,Ana\n")
    second = check(scope, survey, HEADER + "s1,LIN,7,student,en,Ana\ns2,LIN,7,student,en,Ben\n")
    assert roster_totals(second)["new"] == 2
    apply(scope, first)
    roster = apply(scope, second)
    assert roster.status == Roster.Status.CHECKED and "the counts below are new" in roster.error
    assert (roster_totals(roster)["new"], roster_totals(roster)["unchanged"]) == (1, 1)
    assert set(Respondent.objects.values_list("external_id", flat=True)) == {"s1"}
    roster = apply(scope, roster)
    assert roster.status == Roster.Status.APPLIED
    assert set(Respondent.objects.values_list("external_id", flat=True)) == {"s1", "s2"}
    assert "1 new, 0 updated, 1 unchanged" in AuditEntry.objects.filter(action="roster_applied").latest("id").detail


def test_a_person_without_a_school_is_counted_as_updated_and_given_the_file_s_school(survey, lincoln):
    apply(COMMAND_LINE, check(COMMAND_LINE, survey, HEADER + "s1,LIN,7,student,en,Ana\n"))
    Respondent.objects.update(school=None)
    roster = check(COMMAND_LINE, survey, HEADER + "s1,LIN,7,student,en,Ana\n")
    assert roster_totals(roster)["updated"] == 1
    assert apply(COMMAND_LINE, roster).status == Roster.Status.APPLIED
    assert Respondent.objects.get().school == lincoln


def test_a_district_coordinator_imports_into_the_schools_of_their_district(survey, lincoln, adams):
    district = make_staff(Role.DISTRICT_COORDINATOR, districts=[lincoln.district])
    scope = scope_of(district)
    roster = apply(scope, check(scope, survey, HEADER + "s1,LIN,7,student,en,\n"))
    assert roster.status == Roster.Status.APPLIED and Respondent.objects.get().school == lincoln
    assert check(scope, survey, HEADER + "s2,ADA,7,student,en,\n").status == Roster.Status.REFUSED


def test_only_the_uploader_sees_and_applies_a_roster_and_an_analyst_imports_nothing(survey, lincoln, coordinator):
    roster = check(scope_of(coordinator), survey, HEADER + "s1,LIN,7,student,en,\n")
    other = make_staff(Role.SCHOOL_COORDINATOR, schools=[lincoln])
    with pytest.raises(Roster.DoesNotExist):
        roster_apply_start(scope=scope_of(other), roster_id=roster.pk)
    assert not rosters_in_scope(scope=scope_of(other), survey=survey).exists() and rosters_in_scope(scope=scope_of(coordinator), survey=survey).get() == roster
    state = scope_of(make_staff(Role.STATE_ADMIN))
    assert rosters_in_scope(scope=state, survey=survey).get() == roster  # a state administrator sees it, but the uploader confirms it
    with pytest.raises(RosterNotReady, match=f"Only {coordinator.username}, who uploaded this roster"):
        roster_apply_start(scope=state, roster_id=roster.pk)
    analyst = scope_of(make_staff(Role.ANALYST))
    with pytest.raises(PermissionDenied):
        upload(analyst, survey, FIRST)
    with pytest.raises(PermissionDenied):
        roster_apply_start(scope=analyst, roster_id=roster.pk)


def test_missing_people_are_listed_only_within_the_scope(survey, lincoln, adams, coordinator):
    apply(COMMAND_LINE, check(COMMAND_LINE, survey, FIRST))
    roster = check(COMMAND_LINE, survey, HEADER + "x1,LIN,7,student,en,\nx2,ADA,7,student,en,\n")
    seen = {r.external_id for r in roster_missing(scope=scope_of(coordinator), roster=roster)}
    assert seen == {"s1", "s2", "t1"}


# ---------------------------------------------------------------- audit

def test_the_dry_run_and_the_apply_are_audited_with_who_and_from_where(survey, lincoln, coordinator):
    scope = scope_of(coordinator, address="198.51.100.4")
    apply(scope, check(scope, survey, HEADER + "s1,LIN,7,student,en,\n"))
    entries = list(AuditEntry.objects.order_by("id").values_list("action", "username", "address", "survey"))
    assert entries == [
        ("roster_checked", coordinator.username, "198.51.100.4", survey.pk),
        ("roster_applied", coordinator.username, "198.51.100.4", survey.pk),
    ]
    assert "1 new" in AuditEntry.objects.get(action="roster_applied").detail


# ---------------------------------------------------------------- the command

def test_import_roster_applies_a_clean_file_and_prints_the_counts(survey, lincoln, adams, tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text(FIRST)
    out = io.StringIO()
    call_command("import_roster", survey.slug, str(path), "--dry-run", stdout=out)
    assert "4 new, 0 updated, 0 unchanged" in out.getvalue() and "Dry run" in out.getvalue()
    assert not Respondent.objects.exists()
    call_command("import_roster", survey.slug, str(path), stdout=out)
    assert Respondent.objects.count() == 4 and out.getvalue().endswith("Applied.\n")


def test_import_roster_prints_every_problem_writes_them_to_csv_and_exits_1(survey, lincoln, tmp_path):
    path, errors = tmp_path / "roster.csv", tmp_path / "errors.csv"
    path.write_text(HEADER + "s1,NOPE,7,student,en,\ns2,LIN,7,pupil,en,\n")
    err = io.StringIO()
    with pytest.raises(CommandError, match="2 problems; nothing was written") as raised:
        call_command("import_roster", survey.slug, str(path), "--errors-csv", str(errors), stderr=err)
    assert raised.value.returncode == 1
    assert "row 2, school_code, 'NOPE': not in the school directory" in err.getvalue()
    assert "row 3, role, 'pupil'" in err.getvalue()
    assert len(errors.read_text().splitlines()) == 3 and not Respondent.objects.exists()


def test_import_roster_refuses_an_unknown_survey_or_file(survey, tmp_path):
    with pytest.raises(CommandError, match="No survey 'nope'"):
        call_command("import_roster", "nope", __file__)
    with pytest.raises(CommandError, match="No file"):
        call_command("import_roster", survey.slug, str(tmp_path / "absent.csv"))


# ---------------------------------------------------------------- slip names

def test_slip_names_are_never_exported_and_are_purged_when_the_survey_closes(survey, lincoln, adams):
    from datetime import timedelta

    from django.utils import timezone

    from exports.writers import responses_write_csv

    apply(COMMAND_LINE, check(COMMAND_LINE, survey, FIRST))
    out = io.StringIO()
    responses_write_csv(survey=survey, stream=out)
    assert "Ana" not in out.getvalue() and "display_name" not in out.getvalue()
    other = make_survey(slug="other")
    apply(COMMAND_LINE, check(COMMAND_LINE, other, FIRST))
    survey.status = survey.Status.CLOSED
    survey.save()
    assert not Respondent.objects.filter(survey=survey).exclude(display_name="").exists()
    assert Respondent.objects.filter(survey=other, display_name="Ana").exists()
    other.closes_at = timezone.now() - timedelta(minutes=1)
    other.save()
    out = io.StringIO()
    call_command("purge_display_names", stdout=out)
    assert "other: 4 names blanked" in out.getvalue()
    assert not Respondent.objects.exclude(display_name="").exists()


# ---------------------------------------------------------------- codes, lost roles, stored files

def test_a_drawn_code_that_is_someone_s_already_or_drawn_twice_is_drawn_again(survey, lincoln, adams):
    apply(COMMAND_LINE, check(COMMAND_LINE, survey, FIRST))
    taken = Respondent.objects.get(external_id="s1").access_code
    roster = check(COMMAND_LINE, survey, HEADER + "n1,LIN,7,student,en,\nn2,LIN,7,student,en,\nn3,LIN,7,student,en,\n")
    RosterRow.objects.filter(roster=roster, external_id="n1").update(access_code=taken)
    RosterRow.objects.filter(roster=roster, external_id__in=["n2", "n3"]).update(access_code="ABCDEFGHJK")
    apply(COMMAND_LINE, roster)
    codes = list(Respondent.objects.values_list("access_code", flat=True))
    assert len(codes) == 7 and len(set(codes)) == 7
    assert Respondent.objects.get(external_id="s1").access_code == taken  # an existing code never changes


def test_a_roster_whose_uploader_lost_the_staff_role_fails_with_a_message_and_writes_nothing(
        survey, lincoln, coordinator):
    roster = upload(scope_of(coordinator), survey, HEADER + "s1,LIN,7,student,en,\n")
    StaffMember.objects.filter(user=coordinator).delete()
    roster = roster_check(roster_id=roster.pk)
    assert roster.status == Roster.Status.FAILED and "no longer has a staff role" in roster.error
    assert not Respondent.objects.exists() and not RosterRow.objects.exists()


def test_a_roster_kept_where_the_storage_has_no_path_is_read_through_a_temporary_copy(survey, lincoln):
    from django.core.files.base import ContentFile
    from django.core.files.storage import Storage
    from django.db.models.fields.files import FieldFile

    from fileformats.tables import local_path

    class PathlessStorage(Storage):
        """Like django-storages' S3Storage: files kept elsewhere, so Storage.path raises NotImplementedError."""

        files = {}

        def _save(self, name, content):
            self.files[name] = content.read()
            return name

        def _open(self, name, mode="rb"):
            return ContentFile(self.files[name], name=name)

        def exists(self, name):
            return name in self.files

    storage = PathlessStorage()
    stored = FieldFile(None, Roster._meta.get_field("file"), storage.save("rosters/r.csv", ContentFile(FIRST.encode())))
    stored.storage = storage
    with pytest.raises(NotImplementedError):
        assert stored.path
    with local_path(stored) as path:
        assert open(path, encoding="utf-8").read() == FIRST


def test_a_roster_may_give_the_language_of_a_survey_the_interface_does_not_speak(lincoln):
    from surveys.services import survey_create

    survey = survey_create(document={
        "slug": "ustawi", "title": {"en": "Wellbeing", "sw": "Ustawi"}, "languages": ["en", "sw"],
        "pages": [{"questions": [{"code": "ok", "kind": "short_text", "prompt": {"en": "Well?", "sw": "Hujambo?"}}]}]})
    roster = check(COMMAND_LINE, survey, HEADER + "s1,LIN,7,student,sw,Amani\ns2,LIN,7,student,fr,Zoé\n")
    assert problems(roster) == [(3, "language", "fr", "unknown language: use en, es, sw")]
