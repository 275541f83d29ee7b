"""The staff import bench (bench/staff_import_bench.py): its file imports whole over its directory, and a small run
end to end in child processes (a new SQLite database) prints both runs."""
import json

import pytest

from accounts.models import StaffMember
from accounts.scopes import COMMAND_LINE
from accounts.staff_import import staff_import
from bench import staff_import_bench
from rosters.directory import schools_ensure


@pytest.mark.django_db
def test_the_bench_file_imports_whole_over_its_directory_then_changes_nothing(tmp_path):
    schools_ensure([(f"SBD{n % 5:02d}", f"District {n % 5}", f"SB{n:05d}", f"School {n}") for n in range(30)])
    path = tmp_path / "staff.csv"
    staff_import_bench.write_staff_file(path, accounts=120, schools=30, districts=5)
    first = staff_import(scope=COMMAND_LINE, path=path)
    assert first.problems == [] and str(first.counts) == "120 new, 0 changed, 0 unchanged"
    assert set(StaffMember.objects.values_list("role", flat=True)) == set(StaffMember.Role.values)
    assert str(staff_import(scope=COMMAND_LINE, path=path).counts) == "0 new, 0 changed, 120 unchanged"


def test_a_small_run_prints_both_imports_and_writes_its_figures(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    output = tmp_path / "figures.json"
    assert staff_import_bench.main(["--accounts", "40", "--schools", "20", "--districts", "4",
                                    "--output", str(output)]) == 0
    printed = capsys.readouterr().out
    assert "first import" in printed and "40 new, 0 changed, 0 unchanged" in printed
    assert "0 new, 0 changed, 40 unchanged" in printed
    figures = json.loads(output.read_text())
    assert figures["database"] == "sqlite"
    assert figures["runs"]["same file again"]["queries"] < figures["runs"]["first import"]["queries"]
