"""Upload bombs' judging (bench/upload_bombs.py): the cases, the bound, and the verdict on a child's figures."""
import json
import subprocess
import zipfile

import pytest

from bench import upload_bombs
from bench.stack import ROOT
from bench.upload_bombs import ROSTER, Case

BOMB = Case("XLSX shared texts", ROSTER, ".xlsx", lambda path: None)
CONTROL = Case("roster CSV (control)", ROSTER, ".csv", lambda path: None, control=True)


def figures(*, memory=12.0, wall=1.0, outcome="refused: the file is too large"):
    return {"memory_mb": memory, "wall": wall, "cpu": 0.5, "outcome": outcome}


def test_a_refusal_within_the_memory_and_the_time_keeps_the_bound():
    assert upload_bombs.over_the_bound(BOMB, figures(), limit=5) == []
    assert upload_bombs.over_the_bound(CONTROL, figures(outcome="read 100,000 rows"), limit=5) == []


@pytest.mark.parametrize("result, why", [
    (figures(memory=257), ["memory over 256 MB"]),
    (figures(wall=5.5), ["time over 5 s"]),
    (figures(outcome="error: MemoryError: "), ["an error"]),
    (figures(memory=None, outcome="stopped after 30 s", wall=30.2), ["no figures (the child was stopped, or died)",
                                                                    "time over 5 s"]),
])
def test_a_read_over_the_memory_or_the_time_or_one_that_fails_breaks_the_bound(result, why):
    assert upload_bombs.over_the_bound(BOMB, result, limit=5) == why


def test_a_control_that_is_refused_breaks_the_bound_and_a_bomb_that_is_refused_does_not():
    refused = figures(outcome="refused: the file has no header row")
    assert upload_bombs.over_the_bound(CONTROL, refused, limit=5) == ["a control refused"]
    assert upload_bombs.over_the_bound(BOMB, refused, limit=5) == []


def test_the_time_bound_grows_with_what_the_file_unpacks_to():
    assert upload_bombs.time_bound(0) == 5
    assert upload_bombs.time_bound(100_000_000) == 105  # 5 s and a second a megabyte


def test_a_child_s_figures_are_the_last_line_it_printed():
    done = subprocess.CompletedProcess([], 0, stdout="a warning\n" + json.dumps(figures()) + "\n", stderr="")
    assert upload_bombs.child_figures(done, wall=9.0) == figures()


def test_a_child_that_printed_no_figures_died_with_what_it_said():
    done = subprocess.CompletedProcess([], -9, stdout="", stderr="Traceback ...\nMemoryError\n")
    result = upload_bombs.child_figures(done, wall=3.0)
    assert result == {"memory_mb": None, "wall": 3.0, "cpu": None,
                      "outcome": "error: the child died (-9): Traceback ...\nMemoryError"}
    assert upload_bombs.over_the_bound(BOMB, result, limit=5) == ["no figures (the child was stopped, or died)",
                                                                 "an error"]


def test_only_picks_the_cases_whose_names_hold_a_part_and_nothing_picks_them_all():
    assert upload_bombs.selected("") == upload_bombs.CASES
    names = [case.name for case in upload_bombs.selected("xlsform, A1:XFD8000")]
    assert names == ["XLSX A1:XFD8000, one row 8000", "XLSForm 60 pages (control)", "XLSForm shared texts, 170 KB",
                     "XLSForm A1:XFD1048576", "XLSForm styles, 8 MB of <xf/>", "XLSForm broken [Content_Types].xml"]
    assert len({case.name for case in upload_bombs.CASES}) == len(upload_bombs.CASES)
    assert {case.name for case in upload_bombs.CASES if case.control} == {
        "roster XLSX 100,000 rows (control)", "roster CSV 100,000 rows (control)", "XLSForm 60 pages (control)"}


def test_columns_are_named_as_spreadsheets_name_them():
    assert [upload_bombs.column_letters(n) for n in (1, 26, 27, 52, 703, 16_384)] == ["A", "Z", "AA", "AZ", "AAA",
                                                                                      "XFD"]


def test_a_small_workbook_unpacks_to_its_parts_and_a_csv_to_its_own_size(tmp_path):
    workbook = tmp_path / "bomb.xlsx"
    upload_bombs.dimension_bomb(workbook, 8000)
    with zipfile.ZipFile(workbook) as archive:
        assert 'dimension ref="A1:XFD8000"' in archive.read("xl/worksheets/sheet1.xml").decode()
        parts = sum(info.file_size for info in archive.infolist())
    assert upload_bombs.unpacked_bytes(workbook) == parts > workbook.stat().st_size
    roster = tmp_path / "roster.csv"
    upload_bombs.roster_csv(roster, 3)
    assert upload_bombs.unpacked_bytes(roster) == roster.stat().st_size
    assert roster.read_text().splitlines()[1] == "P00000000,B00000,3,student,es,Person 0"


def test_a_legitimate_roster_is_read_in_a_child_through_the_staff_area_s_reader(tmp_path):
    path = tmp_path / "upload.csv"
    upload_bombs.roster_csv(path, 10)
    result = upload_bombs.measure(CONTROL, path, str(ROOT), timeout=120)
    assert result["outcome"] == "read 10 rows", result
    assert upload_bombs.over_the_bound(CONTROL, result, limit=upload_bombs.time_bound(path.stat().st_size)) == []
