"""Response exports at state scale on the running stack (`make bench-export RESPONDENTS=1000000`).

Seeds RESPONDENTS completed respondents of a 12-page survey (60 answerable
questions, every kind) straight into the stack's PostgreSQL, each with an
answer to every question (INSERT ... SELECT in chunks: RESPONDENTS x 60 answer
rows), then runs ``manage.py export_responses`` in a child process for CSV and
for XLSX (``--formats`` adds spss and stata: their tab-separated ``.dat``;
``--deidentified`` measures the shuffled, de-identified export; ``--filter
"--district XD01 --status completed"`` a filtered one, with export_responses'
filter options: the seeded schools are in 40 districts, XD00 to XD39) (the same
code as the staff area's Celery task, reading the replica), and prints each
one's wall time, the child's peak resident memory and the file's size.

Targets (docs/performance.md): CSV of a million respondents under 5 minutes
and under 200 MB. The seeded survey is kept for the next run (seeding a
million respondents' answers takes minutes); --drop deletes it at the end.
"""
import argparse
import json
import re
import shlex
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.db import connection

from bench.stack import ROOT, manage_measured, survey_forget
from bench.survey_document import bench_document
from exports.writers import DATA_SUFFIXES
from infra.db_router import master_wal_position, read_from_master, replicas_caught_up
from infra.sql import table
from respondents.models import Answer, Respondent, School
from rosters.directory import schools_ensure
from surveys.models import Choice, Survey
from surveys.selectors import answerable_questions
from surveys.services import survey_create

PAGES = 12  # five answerable questions each
CHUNK = 50_000


def question_values(survey: Survey) -> dict[int, list[str]]:
    """Answerable question id -> the values an answer may take (every one valid for its question)."""
    values: dict[int, list[str]] = {}
    for question in answerable_questions(survey=survey):
        choices = list(Choice.objects.filter(question_id=question.grid_id or question.pk).order_by("position")
                       .values_list("value", flat=True))
        if question.kind == "multiple":
            values[question.pk] = [" ".join(choices[:n]) for n in range(1, len(choices) + 1)] or ["class"]
        elif choices:
            values[question.pk] = choices
        elif question.kind == "integer":
            values[question.pk] = [str(n) for n in range(10, 18)]
        elif question.kind == "decimal":
            values[question.pk] = ["7.5", "8", "6.25", "9.75"]
        elif question.kind == "date":
            values[question.pk] = ["2014-03-04", "2013-11-30", "2015-01-02"]
        elif question.kind == "time":
            values[question.pk] = ["21:30", "22:05", "07:45"]
        elif question.kind == "datetime":
            values[question.pk] = ["2026-11-02T08:15", "2026-10-30T14:00"]
        else:
            values[question.pk] = ["A few words, with a comma", "Más o menos", "=1+1 is not a formula here", ""]
    return values


def seed(survey: Survey, *, respondents: int, schools: int) -> int:
    """Insert the respondents and their answers, CHUNK respondents a statement; codes start with 0, which real
    codes never contain."""
    first_school = School.objects.get(code="X00000").pk
    values = question_values(survey)
    with connection.cursor() as cursor:
        for start in range(0, respondents, CHUNK):
            stop = min(respondents, start + CHUNK)
            cursor.execute(f"SELECT coalesce(max(id), 0) FROM {table(Respondent)}")
            before = cursor.fetchone()[0]
            cursor.execute(f"""
                INSERT INTO {table(Respondent)} (survey_id, external_id, access_code, school_id, grade, role,
                    language, display_name, status, current_page, started_at, last_saved_at, completed_at)
                SELECT %(survey)s, 'X' || n, 'X0' || lpad(n::text, 8, '0'), %(first)s + n %% %(schools)s,
                       (3 + n %% 10)::text, 'student', 'en', '', 'completed', %(pages)s,
                       now() - interval '1 hour', now(), now()
                FROM generate_series(%(start)s, %(stop)s - 1) AS n
            """, {"survey": survey.pk, "first": first_school, "schools": schools, "pages": PAGES,
                  "start": start, "stop": stop})
            cursor.execute(f"""
                WITH q(question_id, vals) AS (SELECT * FROM unnest(%(ids)s::bigint[], %(vals)s::text[]) )
                INSERT INTO {table(Answer)} (respondent_id, question_id, value, saved_at)
                SELECT r.id, v.question_id, v.vals[1 + (r.id + v.question_id) %% array_length(v.vals, 1)], now()
                FROM {table(Respondent)} r
                CROSS JOIN (SELECT question_id, string_to_array(vals, '|') AS vals FROM q) v
                WHERE r.survey_id = %(survey)s AND r.id > %(before)s
            """, {"ids": list(values), "vals": ["|".join(v) for v in values.values()], "survey": survey.pk,
                  "before": before})
            print(f"  seeded {stop} of {respondents}", flush=True)
        cursor.execute(f"ANALYZE {table(Respondent)}")
        cursor.execute(f"ANALYZE {table(Answer)}")
    return len(values)


def run_export(slug: str, fmt: str, path: Path, *, deidentified: bool = False, filter_options: Sequence[str] = (),
               ) -> tuple[float, float, list[str]]:
    """Run export_responses in a child; return (seconds, the child's own peak RSS in MB, its last log line)."""
    seconds, peak, _, errors = manage_measured("export_responses", slug, "--format", fmt, "--output", path,
                                               *(["--deidentified"] if deidentified else []), *filter_options)
    return seconds, peak, errors.strip().splitlines()[-1:]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--respondents", type=int, default=1_000_000)
    parser.add_argument("--schools", type=int, default=2000)
    parser.add_argument("--formats", default="csv,xlsx", help="Of csv, xlsx, spss, stata.")
    parser.add_argument("--deidentified", action="store_true",
                        help="De-identified exports (rows shuffled: the ids are read first).")
    parser.add_argument("--filter", default="", help="export_responses' filter options, as one string "
                                                     "('--district XD01 --status completed').")
    parser.add_argument("--drop", action="store_true", help="Delete the seeded survey at the end.")
    parser.add_argument("--output", default=str(ROOT / "jmeter" / "results" / "export-bench.json"))
    args = parser.parse_args(argv)

    slug = f"export-bench-{args.respondents}"
    filter_options = shlex.split(args.filter)
    figures: dict[str, Any] = {"respondents": args.respondents, "schools": args.schools,
                               "deidentified": args.deidentified, "filter": args.filter}
    with read_from_master():
        survey = Survey.objects.filter(slug=slug).first()
        if survey is not None and Respondent.objects.filter(survey=survey).count() != args.respondents:
            survey_forget(survey)  # a run stopped half-way
            survey = None
        if survey is None:
            schools_ensure([(f"XD{n % 40:02d}", f"Export district {n % 40}", f"X{n:05d}", f"Export school {n}")
                            for n in range(args.schools)])
            survey = survey_create(document=bench_document(slug=slug, pages=PAGES))
            Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)  # out of the minute's refresh
            started = time.monotonic()
            questions = seed(survey, respondents=args.respondents, schools=args.schools)
            figures["seed_seconds"] = round(time.monotonic() - started, 1)
            print(f"seeded {args.respondents} respondents x {questions} answers in {figures['seed_seconds']} s")
        else:
            print(f"reusing {slug}: {args.respondents} respondents already seeded")
        connection.close()
        replicas_caught_up(master_wal_position(), timeout=300)  # the export reads the replica
    try:
        with tempfile.TemporaryDirectory() as scratch:
            print(f"{'format':<8}{'respondents':>12}{'seconds':>9}{'respondents/s':>15}{'peak RSS MB':>13}"
                  f"{'file MB':>9}")
            for fmt in args.formats.split(","):
                path = Path(scratch) / f"export{DATA_SUFFIXES[fmt]}"
                seconds, peak, said = run_export(slug, fmt, path, deidentified=args.deidentified,
                                                 filter_options=filter_options)
                size = path.stat().st_size / 1e6
                # The respondents written (a filter keeps fewer than were seeded), as the command says.
                written = re.search(r"Exported (\d+) respondents", " ".join(said))
                rows = int(written.group(1)) if written else args.respondents
                figures[fmt] = {"seconds": round(seconds, 1), "respondents": rows,
                                "respondents_per_second": round(rows / seconds), "peak_rss_mb": round(peak),
                                "file_mb": round(size, 1), "output": said}
                print(f"{fmt:<8}{rows:>12}{seconds:>9.1f}{rows / seconds:>15.0f}{peak:>13.0f}{size:>9.1f}")
    finally:
        if args.drop:
            with read_from_master():
                survey_forget(survey)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(figures, indent=2))
    print(f"written to {args.output}")


