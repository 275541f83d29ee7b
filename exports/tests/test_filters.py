"""Filtered exports: the filter's checks, its query (status, place, completion days in the deployment's time
zone), the codebook's Filter sheet, the audit entry, the export job, and the command's options and exit codes."""
import csv
import io
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
from django.core.management import CommandError, call_command

from accounts.models import AuditEntry, StaffMember
from accounts.scopes import COMMAND_LINE
from exports.filters import (
    ExportFilter,
    ExportFilterError,
    completion_bounds,
    export_filter_apply,
    export_filter_make,
)
from exports.jobs import export_job_run, export_job_start
from exports.management.commands.export_responses import Command
from exports.models import ExportJob
from exports.options import ExportOptions
from exports.tests.helpers import xlsx_rows
from exports.writers import export_write
from infra.sql import table
from respondents.models import District, Respondent, School
from respondents.tests.factories import make_respondents, make_school, make_staff, scope_of
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db
CHICAGO = ZoneInfo("America/Chicago")


@pytest.fixture(autouse=True)
def chicago(settings):
    settings.TIME_ZONE = "America/Chicago"


@pytest.fixture
def people():
    """One survey; in District One Lincoln (LIN) and Hayes (HAY), in District Two Adams (ADA); one person with no
    school. By external id: done-lin completed, busy-lin in progress, new-hay not started, gone-ada withdrawn after
    completing, done-ada completed, nowhere not started."""
    survey = make_survey()
    lincoln, hayes = make_school("LIN", "Lincoln"), make_school("HAY", "Hayes")
    adams = make_school("ADA", "Adams", ("D2", "District Two"))
    for external_id, school in (("done-lin", lincoln), ("busy-lin", lincoln), ("new-hay", hayes),
                                ("gone-ada", adams), ("done-ada", adams), ("nowhere", None)):
        make_respondents(survey, 1, school=school, external_id=external_id)
    at = datetime(2026, 11, 10, 12, tzinfo=CHICAGO)
    Respondent.objects.filter(external_id__in=["done-lin", "done-ada", "gone-ada"]).update(
        status=Respondent.Status.COMPLETED, started_at=at, completed_at=at)
    Respondent.objects.filter(external_id="busy-lin").update(status=Respondent.Status.IN_PROGRESS, started_at=at)
    Respondent.objects.filter(external_id="gone-ada").update(withdrawn_at=at)
    return survey


def kept(survey, **parts):
    export_filter = export_filter_make(scope=COMMAND_LINE, **parts)
    return sorted(export_filter_apply(Respondent.objects.filter(survey=survey), export_filter)
                  .values_list("external_id", flat=True))


def problems(scope, **parts):
    with pytest.raises(ExportFilterError) as caught:
        export_filter_make(scope=scope, **parts)
    return [(p.part, p.message) for p in caught.value.problems]


def district_analyst(code="D1"):
    return scope_of(make_staff(StaffMember.Role.ANALYST, districts=[District.objects.get(code=code)]))


# ---------------------------------------------------------------- checks


def test_an_unknown_status_is_refused_naming_the_statuses(people):
    assert problems(COMMAND_LINE, statuses=["finished"]) == [
        ("statuses", "Unknown status 'finished': choose from completed, in_progress, not_started, withdrawn.")]


def test_a_completion_range_that_ends_before_it_starts_is_refused(people):
    assert problems(COMMAND_LINE, completed_from="2026-11-30", completed_to="2026-11-01") == [
        ("completed_to", "The completion range ends (2026-11-01) before it starts (2026-11-30).")]


def test_a_day_not_written_as_one_is_refused(people):
    assert problems(COMMAND_LINE, completed_from="30/11/2026") == [
        ("completed_from", "'30/11/2026' is not a day: write it as YYYY-MM-DD (2026-11-30).")]


def test_an_unknown_district_or_school_code_is_refused(people):
    assert problems(COMMAND_LINE, districts="D9", schools="XYZ") == [
        ("districts", "No district has the code 'D9'."), ("schools", "No school has the code 'XYZ'.")]


def test_a_completion_range_with_a_status_that_has_no_completion_date_is_refused(people):
    [(part, message)] = problems(COMMAND_LINE, statuses=["completed", "in_progress", "not_started"],
                                 completed_from="2026-11-01")
    assert part == "statuses" and "'in progress' and 'not started' cannot have a completion date" in message


def test_withdrawn_people_are_refused_to_a_deidentified_export_which_leaves_them_out(people):
    assert problems(COMMAND_LINE, statuses=["withdrawn"], deidentified=True) == [
        ("statuses", "A de-identified export leaves withdrawn respondents out: ask for them without "
                     "de-identifying.")]


def test_a_school_inside_a_chosen_district_is_refused_so_the_filter_reads_one_way(people):
    assert problems(COMMAND_LINE, districts="D1", schools="LIN") == [
        ("schools", "School LIN is in district D1, which is chosen whole: choose the district or the school.")]


def test_an_analyst_of_one_district_is_refused_another_districts_school_or_the_district_itself(people):
    analyst = district_analyst("D1")
    assert problems(analyst, districts="D2", schools="ADA") == [
        ("districts", "District D2 is outside your scope: you may export only the schools you are named to."),
        ("schools", "School ADA is outside your scope: you may export only the schools you are named to.")]


def test_every_problem_is_told_at_once_in_the_order_of_the_form(people):
    found = problems(district_analyst("D1"), statuses=["in_progress", "bogus"], schools="ADA NOPE",
                     completed_from="2026-12-01", completed_to="2026-11-01")
    assert [part for part, _ in found] == ["statuses", "statuses", "schools", "schools", "completed_to"]


def test_codes_may_come_separated_by_spaces_or_commas_and_a_filter_is_the_same_whatever_their_order(people):
    one = export_filter_make(scope=COMMAND_LINE, statuses=["withdrawn", "Completed"], schools=["LIN,ADA", "HAY"])
    two = export_filter_make(scope=COMMAND_LINE, statuses="completed withdrawn", schools="HAY ADA LIN")
    assert one == two == ExportFilter(statuses=("completed", "withdrawn"), schools=("ADA", "HAY", "LIN"))
    assert ExportFilter.from_dict(one.as_dict()) == one


# ---------------------------------------------------------------- the query


@pytest.mark.parametrize("statuses, expected", [
    (["completed"], ["done-ada", "done-lin"]),
    (["in_progress"], ["busy-lin"]),
    (["not_started"], ["new-hay", "nowhere"]),
    (["withdrawn"], ["gone-ada"]),
    (["completed", "withdrawn"], ["done-ada", "done-lin", "gone-ada"]),
    ([], ["busy-lin", "done-ada", "done-lin", "gone-ada", "new-hay", "nowhere"]),
])
def test_each_status_keeps_its_respondents_and_a_withdrawn_one_is_only_withdrawn(people, statuses, expected):
    assert kept(people, statuses=statuses) == expected


def test_a_district_keeps_its_schools_a_school_itself_and_both_are_joined_by_or(people):
    assert kept(people, districts="D1") == ["busy-lin", "done-lin", "new-hay"]
    assert kept(people, schools="ADA") == ["done-ada", "gone-ada"]
    assert kept(people, districts="D2", schools="HAY") == ["done-ada", "gone-ada", "new-hay"]
    assert kept(people, statuses=["completed"], districts="D1 D2") == ["done-ada", "done-lin"]


def test_a_district_analysts_district_filter_stays_within_their_schools(people):
    hayes_only = scope_of(make_staff(StaffMember.Role.ANALYST, schools=[School.objects.get(code="HAY")]))
    export_filter = export_filter_make(scope=hayes_only, districts="D1")
    respondents = export_filter_apply(hayes_only.respondents(people), export_filter)
    assert list(respondents.values_list("external_id", flat=True)) == ["new-hay"]


def completed_at(survey, **moments):
    for external_id, moment in moments.items():
        Respondent.objects.filter(survey=survey, external_id=external_id.replace("_", "-")).update(
            status=Respondent.Status.COMPLETED, completed_at=moment, withdrawn_at=None)


@pytest.mark.parametrize("day, last_in, first_out, first_in, last_out", [
    # An ordinary day.
    (date(2026, 11, 10), datetime(2026, 11, 10, 23, 30), datetime(2026, 11, 11, 0, 0),
     datetime(2026, 11, 10, 0, 0), datetime(2026, 11, 9, 23, 59, 59)),
    # The clocks go back at 02:00 (CDT to CST): a day of 25 hours.
    (date(2026, 11, 1), datetime(2026, 11, 1, 23, 30), datetime(2026, 11, 2, 0, 0),
     datetime(2026, 11, 1, 0, 0), datetime(2026, 10, 31, 23, 59, 59)),
    # The clocks go forward at 02:00 (CST to CDT): a day of 23 hours.
    (date(2026, 3, 8), datetime(2026, 3, 8, 23, 30), datetime(2026, 3, 9, 0, 0),
     datetime(2026, 3, 8, 0, 0), datetime(2026, 3, 7, 23, 59, 59)),
])
def test_a_completion_day_runs_from_its_local_midnight_to_the_next_daylight_saving_or_not(
        people, day, last_in, first_out, first_in, last_out):
    local = {name: moment.replace(tzinfo=CHICAGO) for name, moment in (
        ("done_lin", last_in), ("done_ada", first_out), ("busy_lin", first_in), ("new_hay", last_out))}
    completed_at(people, **local)
    day = day.isoformat()
    assert kept(people, statuses=["completed"], completed_from=day, completed_to=day) == ["busy-lin", "done-lin"]
    assert kept(people, statuses=["completed"], completed_to=day) == ["busy-lin", "done-lin", "new-hay"]
    assert kept(people, statuses=["completed"], completed_from=day) == ["busy-lin", "done-ada", "done-lin"]


def test_the_day_the_clocks_go_back_holds_both_half_past_ones_and_is_25_hours_long(people):
    first = datetime(2026, 11, 1, 1, 30, tzinfo=CHICAGO)  # CDT
    second = datetime(2026, 11, 1, 1, 30, fold=1, tzinfo=CHICAGO)  # an hour later, CST
    completed_at(people, done_lin=first, done_ada=second)
    assert kept(people, statuses=["completed"], completed_from="2026-11-01", completed_to="2026-11-01") == [
        "done-ada", "done-lin"]
    start, end = completion_bounds(ExportFilter(completed_from=date(2026, 11, 1), completed_to=date(2026, 11, 1)))
    assert (end - start).total_seconds() == 25 * 3600


def test_a_day_whose_midnight_the_clocks_skip_starts_when_they_jump(settings):
    settings.TIME_ZONE = "America/Santiago"  # 2026-09-06 00:00 -04 becomes 01:00 -03
    start, end = completion_bounds(ExportFilter(completed_from=date(2026, 9, 6), completed_to=date(2026, 9, 6)))
    assert start == datetime(2026, 9, 6, 4, tzinfo=ZoneInfo("UTC"))
    assert (end - start).total_seconds() == 23 * 3600


def test_a_completion_range_leaves_out_those_who_never_completed_and_keeps_a_withdrawn_one_who_had(people):
    assert kept(people, completed_from="2026-11-10", completed_to="2026-11-10") == [
        "done-ada", "done-lin", "gone-ada"]
    assert kept(people, statuses=["completed"], completed_from="2026-11-10") == ["done-ada", "done-lin"]


def test_the_filter_is_in_the_query_so_only_the_kept_respondents_are_read(people, django_assert_num_queries):
    from exports.writers import _respondent_answers, _selection

    make_respondents(people, 12, school=School.objects.get(code="HAY"))  # not started: not read at all
    export_filter = export_filter_make(scope=COMMAND_LINE, statuses=["completed"], districts="D1 D2")
    selection = _selection(survey=people, using=None, school_ids=None, deidentified=False,
                           export_filter=export_filter)
    assert selection.total == 2
    list(_respondent_answers(selection=selection, batch_size=2))  # the definition, read once a process
    # Batches of two: one full batch of the two kept (respondents + answers), then one empty read; the twelve not
    # started of Hayes would take six more batches if they were read and dropped here.
    with django_assert_num_queries(3) as captured:
        rows = list(_respondent_answers(selection=selection, batch_size=2))
    assert sorted(r.external_id for r, _ in rows) == ["done-ada", "done-lin"]
    first = captured.captured_queries[0]["sql"]
    assert '"withdrawn_at" IS NULL' in first and f'{table(District)}."code" IN' in first


# ---------------------------------------------------------------- the files


def test_a_filtered_export_holds_only_its_people_and_the_roster_fields_asked_for(people, tmp_path):
    export_filter = export_filter_make(scope=COMMAND_LINE, statuses=["completed"], districts="D1")
    options = ExportOptions(roster_fields=("external_id", "district_code", "completed_at"))
    result = export_write(survey=people, format="csv", options=options, directory=tmp_path,
                          export_filter=export_filter)
    rows = list(csv.DictReader((tmp_path / "small.csv").open()))
    assert result.respondent_count == 1 and [r["roster_external_id"] for r in rows] == ["done-lin"]
    roster_columns = [name for name in rows[0] if name.startswith("roster_")]
    assert roster_columns == ["roster_external_id", "roster_district_code", "roster_completed_at"]
    assert rows[0]["roster_completed_at"] == "2026-11-10T12:00:00-06:00"

    export_write(survey=people, format="csv", options=ExportOptions(roster_fields=()), directory=tmp_path,
                 export_filter=export_filter)
    header = (tmp_path / "small.csv").read_text().splitlines()[0].split(",")
    assert not [name for name in header if name.startswith("roster_")]


def test_the_codebook_says_which_filter_made_the_file_in_words_and_codes(people, tmp_path):
    export_filter = export_filter_make(scope=COMMAND_LINE, statuses=["completed", "withdrawn"], schools="ADA LIN",
                                       completed_from="2026-11-01", completed_to="2026-11-30")
    result = export_write(survey=people, format="spss", options=ExportOptions(roster_fields=("school_code",)),
                          directory=tmp_path, export_filter=export_filter)
    names, rows = xlsx_rows(result.codebook, "Filter")
    assert names == ["Variables", "About", "Filter"] and rows[0] == ["part", "in words", "codes"]
    sheet = {row[0]: row[1:] for row in rows[1:]}
    assert sheet["Status"] == ["completed or withdrawn", "completed, withdrawn"]
    assert sheet["Districts"] == ["every district", ""]
    assert sheet["Schools"] == ["Adams (ADA); Lincoln (LIN)", "ADA, LIN"]  # codes listed as everywhere
    assert sheet["Completed from"] == [
        "2026-11-01, from its first instant in America/Chicago (2026-11-01T00:00:00-05:00)", "2026-11-01"]
    assert sheet["Completed to"] == [
        "2026-11-30 included, to its last instant in America/Chicago (before 2026-12-01T00:00:00-06:00)",
        "2026-11-30"]
    assert sheet["Within"][0] == "every school, and respondents with no school"
    assert sheet["Roster fields"] == ["School code", "school_code"]
    assert sheet["Respondents"][0] == 3 == result.respondent_count
    assert sheet["Command line"][1] == (
        "manage.py export_responses small --format spss --status completed --status withdrawn --school ADA "
        "--school LIN --completed-from 2026-11-01 --completed-to 2026-11-30 --roster-fields school_code")
    _, about = xlsx_rows(result.codebook, "About")
    assert dict((row[0], row[1]) for row in about)["Filter"].startswith(
        "status completed or withdrawn; schools ADA, LIN; completed from 2026-11-01 to 2026-11-30")


def test_an_unfiltered_export_says_so_in_its_codebook(people, tmp_path):
    result = export_write(survey=people, format="csv", options=ExportOptions(), directory=tmp_path)
    _, rows = xlsx_rows(result.codebook, "Filter")
    sheet = {row[0]: row[1:] for row in rows[1:]}
    assert sheet["Filter"][0] == "every respondent"
    assert sheet["Status"][0].startswith("every status")
    assert sheet["Respondents"][0] == 6


# ---------------------------------------------------------------- the export job and its audit entry


def test_a_district_analysts_filtered_export_is_kept_on_its_job_audited_and_holds_only_those_people(people):
    analyst = district_analyst("D1")
    export_filter = export_filter_make(scope=analyst, statuses=["completed", "in_progress"], schools="LIN")
    job = export_job_start(scope=analyst, survey=people, format="csv", options=ExportOptions(),
                           export_filter=export_filter)
    assert job.export_filter == export_filter and job.rows_total == 2
    entry = AuditEntry.objects.get(action="export_requested")
    assert "filter: status completed or in progress; school LIN [--status completed --status in_progress " \
           "--school LIN]" in entry.detail and "2 respondents" in entry.detail
    job = export_job_run(job_id=job.pk)
    assert job.status == ExportJob.Status.DONE, job.error
    assert job.rows_done == 2


def test_an_analyst_cannot_ask_for_another_districts_school_and_nothing_is_queued(people):
    analyst = district_analyst("D1")
    with pytest.raises(ExportFilterError, match="School ADA is outside your scope"):
        export_job_start(scope=analyst, survey=people, format="csv", options=ExportOptions(),
                         export_filter=ExportFilter(schools=("ADA",)))
    assert not ExportJob.objects.exists() and not AuditEntry.objects.filter(action="export_requested").exists()


def test_an_export_whose_school_left_the_scope_before_it_ran_fails_saying_so(people):
    user = make_staff(StaffMember.Role.ANALYST, schools=[School.objects.get(code="LIN")])
    job = export_job_start(scope=scope_of(user), survey=people, format="csv", options=ExportOptions(),
                           export_filter=ExportFilter(schools=("LIN",)))
    StaffMember.objects.get(user=user).schools.set([School.objects.get(code="HAY")])
    job = export_job_run(job_id=job.pk)
    assert job.status == ExportJob.Status.FAILED and not job.file
    assert "School LIN is outside your scope" in job.error


# ---------------------------------------------------------------- the command


def test_the_command_takes_the_same_filter_and_audits_it(people, tmp_path):
    target = tmp_path / "out.csv"
    err = io.StringIO()
    call_command("export_responses", "small", "--output", str(target), "--status", "completed", "--district", "D1",
                 "--district", "D2", "--completed-from", "2026-11-10", "--completed-to", "2026-11-10",
                 "--roster-fields", "external_id,school_code", stderr=err)
    rows = list(csv.DictReader(target.open()))
    assert sorted(r["roster_external_id"] for r in rows) == ["done-ada", "done-lin"]
    assert "Exported 2 respondents of 'small' (status completed; districts D1, D2; completed on 2026-11-10 " \
           "(America/Chicago);" in err.getvalue()
    entry = AuditEntry.objects.get(action="export_downloaded")
    assert "[--status completed --district D1 --district D2 --completed-from 2026-11-10 --completed-to " \
           "2026-11-10]; 2 respondents to" in entry.detail


def test_the_command_writes_a_filtered_csv_to_standard_output(people, capsys):
    call_command("export_responses", "small", "--status", "withdrawn", "--roster-fields", "external_id",
                 stderr=io.StringIO())
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["roster_external_id"] for r in rows] == ["gone-ada"]


def test_the_command_tells_every_problem_of_the_filter_and_writes_nothing(people, tmp_path):
    with pytest.raises(CommandError) as caught:
        call_command("export_responses", "small", "--output", str(tmp_path / "out.csv"), "--status", "in_progress",
                     "--district", "D9", "--completed-from", "2026-11-30", "--completed-to", "2026-11-01")
    assert str(caught.value).splitlines() == [
        "The filter will not do:",
        "  --status: A completion date range keeps only respondents who completed: 'in progress' cannot have a "
        "completion date. Choose 'completed' (or 'withdrawn'), or leave the dates empty.",
        "  --district: No district has the code 'D9'.",
        "  --completed-to: The completion range ends (2026-11-01) before it starts (2026-11-30)."]
    assert list(tmp_path.iterdir()) == [] and not AuditEntry.objects.exists()


@pytest.mark.parametrize("arguments, code", [
    (["--status", "completed", "--district", "D1"], 0),
    (["--status", "finished"], 1),
    (["--school", "NOPE"], 1),
    (["--completed-from", "yesterday"], 1),
    (["--completed-from", "2026-11-02", "--completed-to", "2026-11-01"], 1),
])
def test_the_command_exits_non_zero_on_a_bad_filter(people, tmp_path, capsys, monkeypatch, arguments, code):
    from django.db import connections

    # run_from_argv closes every connection when the command ends, as a process would: here that would close the
    # test's own, inside its transaction.
    monkeypatch.setattr(connections, "close_all", lambda: None)
    argv = ["manage.py", "export_responses", "small", "--output", str(tmp_path / "out.csv"), *arguments]
    try:
        Command().run_from_argv(argv)
        exit_code = 0
    except SystemExit as exit:
        exit_code = exit.code
    assert exit_code == code, capsys.readouterr().err
    assert (tmp_path / "out.csv").exists() == (code == 0)
