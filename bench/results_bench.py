"""Results by question at state scale on the running stack (`make bench-results RESPONDENTS=2000000`).

Seeds RESPONDENTS respondents of a 10-question survey (two pages: a single
choice, a multiple choice, a grid of two rows and an integer; then the same
with a date) over SCHOOLS schools in 40 districts straight into the stack's
PostgreSQL (INSERT ... SELECT in chunks: half completed with both pages
answered, 30% in progress with the first, the rest not started; 2% withdrawn;
six grades; students, teachers and parents), rebuilds the answer counts once
from the replica (what the periodic task does; prints its seconds and rows),
then times the results page in this process (Django's test client under the
stack's settings: the stack's gunicorn serves the main checkout's code) for a
state administrator unfiltered, by district, by school and by grade, and for a
school coordinator: median and 95th percentile in ms, and each page's
queries.

Target (docs/performance.md): a results page under 200 ms at 2 million
respondents in 3,000 schools. The seeded survey is kept for the next run
(seeding takes minutes; one size at a time: another size's is deleted first);
--drop deletes it at the end. CI runs it small:
`make bench-results RESPONDENTS=20000 SCHOOLS=200 RESULTS_ARGS=--drop`.
"""
import argparse
import json
import time
from collections.abc import Iterable, Mapping
from contextlib import ExitStack
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.contrib.staticfiles.storage import staticfiles_storage
from django.db import connection, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import StaffMember
from bench.monitoring_bench import WARM_UP, latency
from bench.stack import ROOT, survey_forget
from bench.survey_document import LAST_QUESTION, bench_document
from infra.db_router import master_wal_position, read_from_master, replica_alias, replicas_caught_up
from infra.sql import table
from respondents.models import Answer, Respondent, School
from results.aggregates import answer_counts_refresh
from rosters.directory import schools_ensure
from surveys.documents import SurveyDocument
from surveys.models import Choice, Survey
from surveys.selectors import answerable_questions
from surveys.services import survey_create

PREFIX = "results-bench-"
CHUNK = 100_000
USERS = ("results-bench-state", "results-bench-school")
# Static files the results page adds, which the stack's collected files (another checkout's) may lack.
NEW_STATIC = ("staff/results.js", "staff/pickers.js")


def static_as_it_is(names: Iterable[str]) -> None:
    """Name ``names`` without a hash where the static files' manifest lacks them (the stack's was collected for
    the checkout it serves); every other file keeps its hashed name, so the compressed blocks still match the
    offline manifest."""
    hashed = getattr(staticfiles_storage, "hashed_files", None)
    if hashed is not None:
        for name in names:
            hashed.setdefault(name, name)


def results_document(slug: str) -> SurveyDocument:
    """The bench survey of two pages, five answerable questions each, a number on the first."""
    document = bench_document(slug=slug, pages=2)
    document["pages"][0]["questions"][3] = {"code": "p1_last", **LAST_QUESTION[0]}  # an integer, 0 to 60
    return document


def weighted(values: list[str]) -> list[str]:
    """``values`` repeated 1, 2, 3, 2, 1... times, so that counts differ from cell to cell as real answers do."""
    weights = [1 + min(n, len(values) - 1 - n) * 2 for n in range(len(values))]
    return [value for value, weight in zip(values, weights, strict=True) for _ in range(weight)]


def question_values(survey: Survey) -> dict[int, tuple[int, list[str]]]:
    """Answerable question id -> (its page, the values its answers take, weighted)."""
    values: dict[int, tuple[int, list[str]]] = {}
    for question in answerable_questions(survey=survey):
        page = question.page.position
        choices = list(Choice.objects.filter(question_id=question.grid_id or question.pk).order_by("position")
                       .values_list("value", flat=True))
        if question.kind == "multiple":
            values[question.pk] = (page, weighted([" ".join(choices[:n]) for n in range(1, len(choices) + 1)]
                                                  + [choices[-1]]))
        elif choices:
            values[question.pk] = (page, weighted(choices))
        elif question.kind == "integer":
            values[question.pk] = (page, weighted([str(n) for n in range(0, 31)]))
        else:
            values[question.pk] = (page, ["2026-11-02", "2026-10-30", "2026-09-14", ""])
    return values


def seed(survey: Survey, *, respondents: int, schools: int, schools_by_code: Mapping[str, School]) -> None:
    """Insert the respondents and their answers, CHUNK respondents a statement; codes start with R0, and real codes
    never hold a 0."""
    # The schools' ids in code order (not contiguous: a directory made in several runs interleaves them).
    school_ids = [schools_by_code[f"R{n:05d}"].pk for n in range(schools)]
    values = question_values(survey)
    by_page = {page: {pk: vals for pk, (p, vals) in values.items() if p == page} for page in (1, 2)}
    with connection.cursor() as cursor:
        for start in range(0, respondents, CHUNK):
            stop = min(respondents, start + CHUNK)
            cursor.execute(f"SELECT coalesce(max(id), 0) FROM {table(Respondent)}")
            before = cursor.fetchone()[0]
            cursor.execute(f"""
                INSERT INTO {table(Respondent)} (survey_id, external_id, access_code, school_id, grade, role,
                    language, display_name, status, current_page, started_at, last_saved_at, completed_at,
                    withdrawn_at)
                SELECT %(survey)s, 'R' || n, 'R0' || lpad(n::text, 8, '0'), (%(ids)s::bigint[])[1 + n %% %(schools)s],
                       (3 + (n / %(schools)s) %% 6)::text,
                       (ARRAY['student','student','student','student','student','student','student','student',
                              'teacher','parent'])[1 + (n / (%(schools)s * 6)) %% 10],
                       'en', '', s.status, CASE WHEN s.status = 'in_progress' THEN 2 ELSE 1 END,
                       s.at, s.at, CASE WHEN s.status = 'completed' THEN s.at END,
                       CASE WHEN (n + 13 * (n / %(schools)s)) %% 50 = 0 THEN s.at END
                FROM generate_series(%(start)s, %(stop)s - 1) AS n,
                     -- A school's people are n, n + SCHOOLS, ...: status and withdrawal mix in n / SCHOOLS, so that
                     -- every school has all of them (n alone would give a school one status).
                     LATERAL (SELECT (n + 7 * (n / %(schools)s)) %% 10 AS digit) AS d,
                     LATERAL (SELECT CASE WHEN d.digit < 5 THEN 'completed' WHEN d.digit < 8 THEN 'in_progress'
                                          ELSE 'not_started' END AS status,
                                     CASE WHEN d.digit < 8 THEN now() - interval '1 hour' END AS at) AS s
            """, {"survey": survey.pk, "ids": school_ids, "schools": schools, "start": start, "stop": stop})
            for page, statuses in ((1, ["completed", "in_progress"]), (2, ["completed"])):
                answers = by_page[page]
                cursor.execute(f"""
                    WITH q(question_id, vals) AS (SELECT * FROM unnest(%(ids)s::bigint[], %(vals)s::text[]))
                    INSERT INTO {table(Answer)} (respondent_id, question_id, value, saved_at)
                    SELECT r.id, v.question_id,
                           v.vals[1 + ((r.id * 7919 + v.question_id * 104729) %% array_length(v.vals, 1))], now()
                    FROM {table(Respondent)} r
                    CROSS JOIN (SELECT question_id, string_to_array(vals, '|') AS vals FROM q) v
                    WHERE r.survey_id = %(survey)s AND r.id > %(before)s AND r.status = ANY(%(statuses)s)
                """, {"ids": list(answers), "vals": ["|".join(v) for v in answers.values()], "survey": survey.pk,
                      "before": before, "statuses": statuses})
            print(f"  seeded {stop} of {respondents}", flush=True)
        cursor.execute(f"ANALYZE {table(Respondent)}")
        cursor.execute(f"ANALYZE {table(Answer)}")


def time_page(client: Client, url: str, *, runs: int) -> tuple[float, float, int, float]:
    """Return (median ms, p95 ms, queries, kB) of ``runs`` GETs of ``url`` after WARM_UP (the first compile
    templates and fill the definition memo); the queries of one more, counted on every database (the master and
    the replicas)."""
    times: list[float] = []
    for _ in range(WARM_UP + runs):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    with ExitStack() as stack:
        captured = [stack.enter_context(CaptureQueriesContext(connections[alias])) for alias in connections]
        client.get(url)
    median, p95 = latency(times)
    return median, p95, sum(len(c.captured_queries) for c in captured), len(response.content) / 1024


def staff(schools: Mapping[str, School]) -> tuple[User, User]:
    """The state administrator and the coordinator of school R00000 (no passwords: signed in by the client)."""
    users = get_user_model().objects
    users.filter(username__in=USERS).delete()
    state = users.create_user(USERS[0])
    StaffMember.objects.create(user=state, role=StaffMember.Role.STATE_ADMIN)
    school = users.create_user(USERS[1])
    StaffMember.objects.create(user=school, role=StaffMember.Role.SCHOOL_COORDINATOR).schools.set(
        [schools["R00000"]])
    return state, school


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--respondents", type=int, default=2_000_000)
    parser.add_argument("--schools", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--drop", action="store_true", help="Delete the seeded survey at the end.")
    parser.add_argument("--output", default=str(ROOT / "jmeter" / "results" / "results-bench.json"))
    args = parser.parse_args(argv)

    slug = f"{PREFIX}{args.respondents}-{args.schools}"
    figures: dict[str, object] = {"respondents": args.respondents, "schools": args.schools}
    with read_from_master():
        schools = schools_ensure([(f"RD{n % 40:02d}", f"Results district {n % 40}", f"R{n:05d}",
                                   f"Results school {n}") for n in range(args.schools)])
        for other in Survey.objects.filter(slug__startswith=PREFIX).exclude(slug=slug):
            survey_forget(other)  # another size's seed: their access codes would clash
        survey = Survey.objects.filter(slug=slug).first()
        if survey is not None and Respondent.objects.filter(survey=survey).count() != args.respondents:
            survey_forget(survey)  # a run stopped half-way
            survey = None
        if survey is None:
            survey = survey_create(document=results_document(slug))
            Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)  # out of the periodic refresh
            started = time.monotonic()
            seed(survey, respondents=args.respondents, schools=args.schools, schools_by_code=schools)
            figures["seed_seconds"] = round(time.monotonic() - started, 1)
            print(f"seeded {args.respondents} respondents of a 10-question survey in {figures['seed_seconds']} s")
        else:
            print(f"reusing {slug}: {args.respondents} respondents already seeded")
        state, school = staff(schools)
        connection.close()
        replicas_caught_up(master_wal_position(), timeout=600)  # the rebuild reads the replica
    try:
        using = replica_alias()
        started = time.monotonic()
        rows = answer_counts_refresh(survey=survey, using=using)
        figures["rebuild_seconds"] = round(time.monotonic() - started, 1)
        print(f"answer counts rebuilt from {using}: {rows} rows (every selection's figures, suppressed) in "
              f"{figures['rebuild_seconds']} s "
              f"(the periodic task's work for this survey)")
        replicas_caught_up(master_wal_position(), timeout=120)  # the page reads the counts from the replica
        pages = {
            "state administrator, unfiltered": (state, ""),
            "state administrator, by district": (state, "?district=RD07"),
            "state administrator, by school": (state, "?school=R00042"),
            "state administrator, by grade": (state, "?grade=5"),
            "school coordinator, own school": (school, ""),
        }
        static_as_it_is(NEW_STATIC)
        print(f"{'page':<36}{'median ms':>11}{'p95 ms':>9}{'queries':>9}{'kB':>6}")
        for name, (user, query) in pages.items():
            client = Client()
            client.force_login(user)
            median, p95, queries, size = time_page(client, f"/staff/surveys/{slug}/results/{query}", runs=args.runs)
            figures[name] = {"median_ms": round(median, 1), "p95_ms": round(p95, 1), "queries": queries,
                             "kb": round(size)}
            print(f"{name:<36}{median:>11.1f}{p95:>9.1f}{queries:>9}{size:>6.0f}")
    finally:
        with read_from_master():
            get_user_model().objects.filter(username__in=USERS).delete()
            if args.drop:
                started = time.monotonic()
                survey_forget(survey)
                print(f"bench survey deleted in {time.monotonic() - started:.0f} s")
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(figures, indent=2))
    print(f"written to {args.output}")
