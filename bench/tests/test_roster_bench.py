"""The roster bench's figures (bench/roster_bench.py): the roster it writes, the import's phases it reads from the
child's log, and the page saves' figures during an import."""
import logging
from collections import Counter

from django.conf import settings

from bench import roster_bench
from fileformats.tables import open_table
from rosters import importing


def test_the_roster_written_is_one_the_staff_area_s_reader_takes_spread_over_the_schools(tmp_path):
    path = tmp_path / "roster.csv"
    roster_bench.write_roster(path, rows=50, schools=7)
    table = open_table(path, required=importing.REQUIRED, optional=importing.OPTIONAL, max_bytes=10**6)
    rows = [row for _, row in table.rows]
    assert len(rows) == 50 and len({row["external_id"] for row in rows}) == 50
    assert Counter(row["school_code"] for row in rows) == {f"B{n:05d}": 8 if n == 0 else 7 for n in range(7)}
    assert sum(row["language"] == "es" for row in rows) == 10  # every fifth person
    assert {row["role"] for row in rows} <= {"student", "teacher", "parent", "staff"}
    again = tmp_path / "again.csv"
    roster_bench.write_roster(again, rows=50, schools=7)
    assert again.read_bytes() == path.read_bytes()  # the same file each run: the second import finds it unchanged


def test_the_import_s_phases_are_its_own_log_lines_as_the_settings_format_them():
    formatter = logging.Formatter(settings.LOGGING["formatters"]["plain"]["format"])

    def logged(message, name=importing.log.name):
        return formatter.format(logging.LogRecord(name, logging.INFO, __file__, 1, message, (), None))

    errors = "\n".join([logged("roster 5 checked: 1000 rows read and staged in 0.4 s"),
                        logged("a query took long", name="django.db.backends"),
                        logged("roster 5 applied in 1.2 s")])
    assert roster_bench.import_phases(errors) == ["roster 5 checked: 1000 rows read and staged in 0.4 s",
                                                  "roster 5 applied in 1.2 s"]


def test_page_saves_give_their_count_median_99th_percentile_and_slowest_in_ms():
    seconds = [n / 1000 for n in range(100, 0, -1)]  # 1 ms to 100 ms, in any order
    assert roster_bench.save_figures(seconds) == {"saves": 100, "median_ms": 51.0, "p99_ms": 100.0, "max_ms": 100.0}
    assert roster_bench.save_figures([]) == {"saves": 0, "median_ms": 0.0, "p99_ms": 0.0, "max_ms": 0.0}
