"""A state-wide roster import into the running stack (`make bench-roster ROWS=1000000`).

Generates a roster CSV of ROWS people over SCHOOLS schools, then runs
``manage.py import_roster`` on it in a child process (the same code as the
staff area: upload, check, apply) against the stack's PostgreSQL through
pgbouncer, three times: the first import (everyone new), the same file again
(everyone unchanged), and a dry run. Prints the wall time, rows per second and
the child's peak resident memory for each, and writes code slips for the
biggest school to time them (slips per second).

Targets (docs/performance.md): the first import of a million rows under 3
minutes and under 300 MB.
"""
import argparse
import csv
import functools
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from django.db import connections

from bench.stack import ROOT, StackError, manage_measured
from bench.survey_document import bench_document
from infra.db_router import read_from_master
from respondents.models import Nav, Respondent
from respondents.services import page_save
from rosters import importing
from rosters.directory import schools_ensure
from surveys.models import Survey
from surveys.selectors import page_definition
from surveys.services import survey_create

T = TypeVar("T")


def write_roster(path: Path, *, rows: int, schools: int) -> None:
    rng = random.Random(7)
    roles = ["student"] * 17 + ["teacher", "parent", "staff"]
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["external_id", "school_code", "grade", "role", "language", "display_name"])
        for n in range(rows):
            writer.writerow([f"P{n:08d}", f"B{n % schools:05d}", str(3 + n % 10), rng.choice(roles),
                             "es" if n % 5 == 0 else "en", f"Person {n}"])


def run_import(slug: str, path: Path, *extra: str) -> tuple[float, float, str, list[str]]:
    """Run import_roster in a child; return (seconds, the child's own peak RSS in MB, its output, its phases)."""
    seconds, peak, output, errors = manage_measured("import_roster", slug, path, *extra)
    return seconds, peak, output.strip(), import_phases(errors)


def import_phases(errors: str) -> list[str]:
    """Return what the import logged of its phases (rosters.importing's log lines, the logger's name dropped) from
    the child's standard error."""
    marker = f" {importing.log.name} "
    return [line.split(marker, 1)[-1] for line in errors.splitlines() if marker in line]


class Saver(threading.Thread):
    """Page saves of people in the roster, one after another, until stopped: each one's seconds.

    A roster's apply must never make them wait (rosters/importing.py: it locks the survey's row, not theirs):
    compared with saves while nothing else runs, the figure shows whether it does.
    """

    def __init__(self, survey: Survey, respondent_ids: list[int]) -> None:
        super().__init__(daemon=True)
        self.survey, self.respondent_ids = survey, respondent_ids
        self.stop = threading.Event()
        self.seconds: list[float] = []

    def run(self) -> None:
        definition = page_definition(survey=self.survey, number=1)
        if definition is None:
            raise StackError(f"{self.survey.slug} has no page 1")
        values = {question: "" for question in definition.answerable.values()}
        try:
            n = 0
            while not self.stop.is_set():
                started = time.monotonic()
                page_save(respondent_id=self.respondent_ids[n % len(self.respondent_ids)], definition=definition,
                          values=values, save_id=uuid.uuid4(), nav=Nav.NEXT)
                self.seconds.append(time.monotonic() - started)
                n += 1
        finally:
            connections.close_all()


def saves_while(survey: Survey, respondent_ids: list[int], work: Callable[[], T]) -> tuple[T, dict[str, Any]]:
    """Run ``work()`` while a Saver saves; return (what work returned, the save figures)."""
    saver = Saver(survey, respondent_ids)
    saver.start()
    try:
        result = work()
    finally:
        saver.stop.set()
        saver.join()
    return result, save_figures(saver.seconds)


def save_figures(seconds: list[float]) -> dict[str, Any]:
    """Return the count of the saves and their median, 99th percentile and slowest, in ms."""
    times = sorted(seconds) or [0.0]
    return {"saves": len(seconds), "median_ms": round(1000 * times[len(times) // 2], 1),
            "p99_ms": round(1000 * times[int(len(times) * 0.99)], 1), "max_ms": round(1000 * times[-1], 1)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--schools", type=int, default=2000)
    parser.add_argument("--output", default=str(ROOT / "jmeter" / "results" / "roster-bench.json"))
    args = parser.parse_args(argv)

    os.environ.setdefault("SURVEY_PUBLIC_URL", "https://survey.example.org/")

    slug = f"roster-bench-{time.time_ns()}"
    with read_from_master():
        schools_ensure([(f"BD{n % 40:02d}", f"Bench district {n % 40}", f"B{n:05d}", f"Bench school {n}")
                        for n in range(args.schools)])
        survey_create(document=bench_document(slug=slug, pages=2))
    figures: dict[str, Any] = {"rows": args.rows, "schools": args.schools}
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "roster.csv"
        started = time.monotonic()
        write_roster(path, rows=args.rows, schools=args.schools)
        print(f"roster: {args.rows} rows, {args.schools} schools, {path.stat().st_size / 1e6:.0f} MB "
              f"(written in {time.monotonic() - started:.1f} s)")
        print(f"{'run':<22}{'seconds':>9}{'rows/s':>10}{'peak RSS MB':>13}")
        saves: dict[str, dict[str, Any]] = {}
        for name, extra in [("first import", ()), ("same file again", ()), ("dry run", ("--dry-run",))]:
            if name == "first import":
                seconds, peak, output, phases = run_import(slug, path, *extra)
                with read_from_master():
                    survey = Survey.objects.get(slug=slug)
                    people = list(Respondent.objects.filter(survey=survey).order_by("?")
                                  .values_list("pk", flat=True)[:500])
                saves["nothing else running"] = saves_while(survey, people, lambda: time.sleep(5))[1]
            else:
                (seconds, peak, output, phases), saves[f"during: {name}"] = saves_while(
                    survey, people, functools.partial(run_import, slug, path, *extra))
            figures[name] = {"seconds": round(seconds, 1), "rows_per_second": round(args.rows / seconds),
                             "peak_rss_mb": round(peak), "output": output.splitlines()[-2:], "phases": phases}
            print(f"{name:<22}{seconds:>9.1f}{args.rows / seconds:>10.0f}{peak:>13.0f}    {output.splitlines()[-2].strip()}")
            for phase in phases:
                print(f"{'':<22}  {phase}")
        figures["page_saves"] = saves
        print("page saves of people in the file, one at a time (they must not wait for an apply):")
        print(f"  {'while':<28}{'saves':>7}{'median ms':>11}{'p99 ms':>9}{'max ms':>9}")
        for name, figure in saves.items():
            print(f"  {name:<28}{figure['saves']:>7}{figure['median_ms']:>11}{figure['p99_ms']:>9}{figure['max_ms']:>9}")
        pdf = Path(scratch) / "slips.pdf"
        started = time.monotonic()
        subprocess.run([sys.executable, str(ROOT / "manage.py"), "code_slips", slug, "--school", "B00000",
                        "--output", str(pdf)], check=True, capture_output=True)
        seconds = time.monotonic() - started
        slips = -(-args.rows // args.schools)
        figures["slips"] = {"count": slips, "seconds": round(seconds, 2), "per_second": round(slips / seconds),
                            "pdf_kb": round(pdf.stat().st_size / 1024)}
        print(f"slips: {slips} for one school in {seconds:.2f} s ({slips / seconds:.0f} slips/s, "
              f"{pdf.stat().st_size / 1024:.0f} kB, including the command's start)")
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(figures, indent=2))
    print(f"written to {args.output}")

