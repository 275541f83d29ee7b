"""Finding people at state scale on the running stack (`make bench-search RESPONDENTS=2000000`).

Seeds RESPONDENTS respondents over SCHOOLS schools in 60 districts straight into the stack's PostgreSQL (one
INSERT ... SELECT from generate_series: external ids ``Q<n>``, a name on each slip from about 7,400 surnames and
40 given names, some with accents, valid access codes, ten grades, the monitoring bench's mix of statuses, 5%
withdrawn), builds the search indexes (``respondents/migrations/0016_search_indexes.py`` and
``0019_search_folded_names.py``, CONCURRENTLY, timed), then times the staff pages in this process with Django's
test client under the stack's settings (the stack's gunicorn serves another checkout's code): the search by each
field and by the one box as a state administrator, a district coordinator and a school coordinator, page 1 and a
deep page; a survey's schools, a school's people, the confirm page of "everyone found". Prints each page's median
and 95th percentile in ms and its query count, the plan (EXPLAIN ANALYZE) of each page's slowest query, and
COUNT(*) against the capped count.

Not a timed test: figures on shared machines vary. The seeded survey is kept for the next run (--drop deletes
it, with the bench's staff accounts).
"""
import argparse
import json
import re
import time
from collections.abc import Iterable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import connection, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import StaffMember
from bench.monitoring_bench import latency
from bench.stack import ROOT, survey_forget
from bench.survey_document import bench_document
from infra.db_router import master_wal_position, read_from_master, replicas_caught_up
from infra.sql import table
from respondents import access_codes
from respondents.models import District, Respondent, School
from rosters.directory import schools_ensure
from surveys.models import Survey
from surveys.services import survey_create

PREFIX = "search-bench-"
DISTRICTS = 60
WARM_UP = 3
# Some with their accents, which the search sets aside ("maria" finds "María").
GIVEN = ["Ana", "Ben", "Carla", "David", "Elena", "Farid", "Grace", "Hugo", "Inés", "Jamal", "Kim", "Lucía",
         "Mateo", "Nora", "Omar", "Paula", "Quinn", "Rosa", "Samir", "Tara", "Uma", "Víctor", "Wen", "Ximena",
         "Yusuf", "Zoë", "María", "José", "Aiden", "Sofía", "Liam", "Emma", "Noah", "Olivia", "Ethan", "Mia",
         "Lucas", "Amara", "Diego", "Leila"]
SYLLABLES = [["Ro", "Ma", "Ka", "Be", "Sa", "Lo", "Ta", "Ne", "Vi", "Da", "Pe", "Gu", "Fe", "Ha", "Mo", "Ri", "Zu"],
             ["dri", "ren", "tal", "mon", "ber", "lin", "cas", "vel", "nor", "san", "gar", "pol", "dez", "mar",
              "ter", "lo", "ve", "qui", "sti"],
             ["guez", "son", "ez", "ski", "ini", "ova", "berg", "ton", "ley", "ard", "ner", "iz", "ello", "ani",
              "eau", "ing", "o", "a", "es", "ov", "um", "ay", "ic"]]


def sql_array(words: Iterable[str]) -> str:
    return "ARRAY[" + ",".join(f"'{word}'" for word in words) + "]"


def code_prefix(survey: Survey) -> str:
    """Three code characters of the survey's own ('Z' and its id in base 31), so two seeded surveys never share
    a code."""
    alphabet = access_codes.ALPHABET
    return "Z" + alphabet[(survey.pk // 31) % 31] + alphabet[survey.pk % 31]


def sql_code(survey: Survey) -> str:
    """A valid access code from n: the survey's prefix, then n in base 31 in the code alphabet (7 characters)."""
    alphabet = access_codes.ALPHABET
    return f"'{code_prefix(survey)}' || " + " || ".join(
        f"substr('{alphabet}', 1 + ((n::bigint / {31 ** power}) % 31)::int, 1)" for power in range(6, -1, -1))


def code_of(survey: Survey, n: int) -> str:
    alphabet = access_codes.ALPHABET
    return code_prefix(survey) + "".join(alphabet[(n // 31 ** power) % 31] for power in range(6, -1, -1))


def surname_of(n: int) -> str:
    first, middle, last = SYLLABLES
    return first[n % len(first)] + middle[(n // len(first)) % len(middle)] + last[
        (n // (len(first) * len(middle))) % len(last)]


def seed(survey: Survey, *, respondents: int, schools: int) -> None:
    # The schools' ids by code (not a range: a directory loaded before may have numbered them otherwise).
    school_ids = list(School.objects.filter(code__startswith="Q").order_by("code").values_list("pk", flat=True)
                      [:schools])
    first, middle, last = SYLLABLES
    surname = (f"({sql_array(first)})[1 + n % {len(first)}] || ({sql_array(middle)})[1 + (n / {len(first)}) % "
               f"{len(middle)}] || ({sql_array(last)})[1 + (n / {len(first) * len(middle)}) % {len(last)}]")
    given = f"({sql_array(GIVEN)})[1 + (n / 7) % {len(GIVEN)}]"
    with connection.cursor() as cursor:
        cursor.execute(f"""
            INSERT INTO {table(Respondent)} (survey_id, external_id, access_code, school_id, grade, role,
                language, display_name, status, current_page, started_at, last_saved_at, completed_at, withdrawn_at)
            SELECT %(survey)s, 'Q' || n, {sql_code(survey).replace('%', '%%')}, (%(school_ids)s::bigint[])[1 + n %% %(schools)s],
                   (3 + n %% 10)::text, (ARRAY['student','student','student','teacher','parent','staff'])[1 + n %% 6],
                   'en', {given.replace('%', '%%')} || ' ' || {surname.replace('%', '%%')}, s.status, s.page, s.at, s.at,
                   CASE WHEN s.status = 'completed' THEN s.at END, CASE WHEN n %% 20 = 0 THEN s.at END
            FROM generate_series(1, %(count)s) AS n,
                 LATERAL (SELECT CASE WHEN n %% 10 < 4 THEN 'completed' WHEN n %% 10 < 7 THEN 'in_progress'
                                      ELSE 'not_started' END AS status,
                                 CASE WHEN n %% 10 BETWEEN 4 AND 6 THEN 1 + (n / 10) %% 60 ELSE 1 END AS page,
                                 CASE WHEN n %% 10 < 7 THEN now() - make_interval(mins => ((n::bigint * 7919) %% 14400)::int) END
                                     AS at) AS s
        """, {"survey": survey.pk, "school_ids": school_ids, "schools": schools, "count": respondents})
        cursor.execute(f"ANALYZE {table(Respondent)}")


def build_indexes() -> tuple[dict[str, float], dict[str, int]]:
    """Build the search indexes the migrations build (a database migrated by another checkout may lack them, and
    0019's function over unaccent), less the one 0019 replaced; return {name: seconds} (0 for one there already)
    and their sizes."""
    from importlib import import_module

    indexes = import_module("respondents.migrations.0016_search_indexes")
    folded = import_module("respondents.migrations.0019_search_folded_names")
    built: dict[str, float] = {}
    sizes: dict[str, int] = {}
    with connection.cursor() as cursor:
        cursor.execute(indexes.EXTENSION)
        folded.function_create(cursor)
        specs = {**indexes.INDEXES, **folded.INDEXES}
        for name in folded.REPLACED:
            specs.pop(name)
            cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
        for name, spec in specs.items():
            cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [name])
            there = cursor.fetchone()[0]
            started = time.monotonic()
            cursor.execute(f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} {spec}")
            built[name] = 0.0 if there else round(time.monotonic() - started, 1)
            cursor.execute("SELECT pg_relation_size(%s)", [name])
            sizes[name] = round(cursor.fetchone()[0] / 2 ** 20)
        cursor.execute(indexes.STATISTICS)
        cursor.execute(f"ANALYZE {table(Respondent)}")
    return built, sizes


def staff(username: str, role: str, *, districts: Sequence[District] = (), schools: Sequence[School] = ()) -> User:
    users = get_user_model().objects
    users.filter(username=username).delete()
    user = users.create_user(username, password=None)
    member = StaffMember.objects.create(user=user, role=role)
    member.districts.set(districts)
    member.schools.set(schools)
    return user


def time_page(client: Client, method: str, url: str, data: dict[str, str] | None, runs: int,
              ) -> tuple[float, float, list[tuple[str, dict[str, str]]], str]:
    """Request ``url`` WARM_UP + ``runs`` times; return the median and p95 ms, the last request's queries (on
    every database: the staff pages read the replica) as [(alias, query)], and its body."""
    times: list[float] = []
    queries: list[tuple[str, dict[str, str]]] = []
    for _ in range(WARM_UP + runs):
        with ExitStack() as stack:
            captured = {alias: stack.enter_context(CaptureQueriesContext(connections[alias])) for alias in connections}
            started = time.perf_counter()
            response = client.post(url, data) if method == "POST" else client.get(url)
            times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
        queries = [(alias, query) for alias, context in captured.items() for query in context.captured_queries]
    median, p95 = latency(times, WARM_UP)
    return median, p95, queries, response.content.decode()


def explain(alias: str, sql: str) -> tuple[list[str], list[str]]:
    """The plan of ``sql`` as run on the database ``alias`` (EXPLAIN ANALYZE): its lines, and the indexes it
    used."""
    if not sql.lstrip().upper().startswith("SELECT"):
        return [], []
    with connections[alias].cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql)
        lines = [row[0] for row in cursor.fetchall()]
    return lines, sorted(set(re.findall(r"(?:Index (?:Only )?Scan (?:Backward )?using|Bitmap Index Scan on) (\w+)",
                                        "\n".join(lines))))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--respondents", type=int, default=2_000_000)
    parser.add_argument("--schools", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--drop", action="store_true", help="Delete the seeded survey and the bench's accounts.")
    parser.add_argument("--output", default=str(ROOT / "jmeter" / "results" / "search-bench.json"))
    args = parser.parse_args(argv)

    slug = f"{PREFIX}{args.respondents}-{args.schools}"
    figures: dict[str, Any] = {"respondents": args.respondents, "schools": args.schools}
    with read_from_master():
        survey = Survey.objects.filter(slug=slug).first()
        if survey is not None and Respondent.objects.filter(survey=survey).count() != args.respondents:
            survey_forget(survey)  # a run stopped half-way
            survey = None
        schools = schools_ensure([(f"QD{n % DISTRICTS:02d}", f"Search district {n % DISTRICTS}", f"Q{n:05d}",
                                   f"Search school {n} {['Lincoln', 'Adams', 'Roosevelt', 'Jefferson'][n % 4]}")
                                  for n in range(args.schools)])
        if survey is None:
            survey = survey_create(document=bench_document(slug=slug, pages=2))
            Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)  # out of the minute's refresh
            started = time.monotonic()
            seed(survey, respondents=args.respondents, schools=args.schools)
            figures["seed_seconds"] = round(time.monotonic() - started, 1)
            print(f"seeded {args.respondents} respondents in {args.schools} schools in {figures['seed_seconds']} s")
        else:
            print(f"reusing {slug}: {args.respondents} respondents already seeded")
        built, sizes = build_indexes()
        figures["index_build_seconds"], figures["index_mb"] = built, sizes
        for name in built:
            print(f"index {name}: {sizes[name]} MB" + (f", built in {built[name]} s" if built[name] else
                                                       " (there already)"))
        state = staff("bench-search-state", StaffMember.Role.STATE_ADMIN)
        district = staff("bench-search-district", StaffMember.Role.DISTRICT_COORDINATOR,
                         districts=[schools["Q00001"].district])
        school = staff("bench-search-school", StaffMember.Role.SCHOOL_COORDINATOR, schools=[schools["Q00001"]])
        connection.close()
        replicas_caught_up(master_wal_position(), timeout=300)  # the staff pages read the replica

    n = 1 + args.schools * 7  # a person of school Q00001 (n % schools == 1)
    name_hit = surname_of(n)
    base = f"/staff/surveys/{slug}"
    pages: dict[str, tuple[str, str, dict[str, str] | None]] = {
        "survey's schools, page 1": ("GET", f"{base}/", None),
        "survey's schools, page 30": ("GET", f"{base}/?page=30", None),
        "survey's schools, search 'district 7'": ("GET", f"{base}/?q=district+7", None),
        "a school's people": ("GET", f"{base}/schools/Q00001/", None),
        "everyone, page 1": ("GET", f"{base}/people/", None),
        "everyone, page 100 (the deepest)": ("GET", f"{base}/people/?page=100", None),
        "completed, page 1": ("GET", f"{base}/people/?status=completed", None),
        "completed, page 100": ("GET", f"{base}/people/?status=completed&page=100", None),
        "external id starts with Q1234": ("GET", f"{base}/people/?q=Q1234&by=external_id", None),
        f"external id Q{n} exactly": ("GET", f"{base}/people/?q=Q{n}&by=external_id", None),
        f"name contains a surname ({name_hit})": ("GET", f"{base}/people/?q={name_hit}&by=name", None),
        "name contains a given name (maria: María)": ("GET", f"{base}/people/?q=maria&by=name", None),
        "name: 'ro' (two letters: a word's start)": ("GET", f"{base}/people/?q=ro&by=name", None),
        "access code": ("GET", f"{base}/people/?q={access_codes.format_code(code_of(survey, n)).lower()}&by=code", None),
        # The bench's codes share their first characters (a survey's prefix, then n in base 31): the first 8 are
        # 961 people's, as a 3-character start of random codes would be.
        "access code, its first 8 characters": (
            "GET", f"{base}/people/?q={access_codes.format_code(code_of(survey, n))[:9].lower()}&by=code", None),
        f"one box: a surname ({name_hit})": ("GET", f"{base}/people/?q={name_hit}", None),
        "one box: maria (María)": ("GET", f"{base}/people/?q=maria", None),
        "one box: Q1234 (ids starting so)": ("GET", f"{base}/people/?q=Q1234", None),
        "one box: a code's first 8 characters": (
            "GET", f"{base}/people/?q={access_codes.format_code(code_of(survey, n))[:9].lower()}", None),
        "one box: 'ro' (two letters)": ("GET", f"{base}/people/?q=ro", None),
        "school Q00001, grade 4": ("GET", f"{base}/people/?q=Q00001&by=school&grade=4", None),
        "school name 'school 12'": ("GET", f"{base}/people/?q=school+12&by=school", None),
        "confirm: withdraw everyone of a school's grade": (
            "POST", f"{base}/people/act/", {"action": "withdraw", "everyone": "on", "q": "Q00001", "by": "school",
                                            "grade": "4", "status": ""}),
    }
    who = {"state administrator": state, "district coordinator": district, "school coordinator": school}
    results: dict[str, dict[str, Any]] = {}
    explains: list[str] = []
    print(f"{'page':<52}{'as':<22}{'median ms':>10}{'p95 ms':>9}{'queries':>9}  found")
    for role, user in who.items():
        client = Client()
        client.force_login(user)
        for name, (method, url, data) in pages.items():
            median, p95, queries, body = time_page(client, method, url, data, args.runs)
            found = re.search(r'<p id="people-found">([^<]*)</p>', body)
            alias, slowest = max(queries, key=lambda q: float(q[1]["time"]))
            plan, used = explain(alias, slowest["sql"])
            results[f"{name} / {role}"] = {"median_ms": round(median, 1), "p95_ms": round(p95, 1),
                                           "queries": len(queries), "slowest_query_ms": float(slowest["time"]) * 1000,
                                           "indexes": used}
            explains.append(f"## {name} / {role} ({alias}, {len(queries)} queries)\n{slowest['sql']}\n" + "\n".join(plan) + "\n")
            print(f"{name:<52}{role:<22}{median:>10.1f}{p95:>9.1f}{len(queries):>9}  "
                  f"{found.group(1) if found else ''} {','.join(used)}")
    figures["pages"] = results

    with connection.cursor() as cursor:  # COUNT(*) over the survey against the capped count the pages use
        for label, sql in [("count(*) everyone", f"SELECT count(*) FROM {table(Respondent)} WHERE survey_id = %s"),
                           ("count(*) completed", f"SELECT count(*) FROM {table(Respondent)} WHERE survey_id = %s "
                                                  "AND status = 'completed' AND withdrawn_at IS NULL"),
                           ("capped count (10,001) everyone", "SELECT count(*) FROM (SELECT 1 FROM "
                            f"{table(Respondent)} WHERE survey_id = %s LIMIT 10001) AS capped")]:
            times = []
            for _ in range(WARM_UP + 5):
                started = time.perf_counter()
                cursor.execute(sql, [survey.pk])
                cursor.fetchone()
                times.append((time.perf_counter() - started) * 1000)
            median, p95 = latency(times, WARM_UP)
            figures[label] = {"median_ms": round(median, 1), "p95_ms": round(p95, 1)}
            print(f"{label:<52}{'':<22}{median:>10.1f}{p95:>9.1f}")

    if args.drop:
        with read_from_master():
            survey_forget(survey)
            get_user_model().objects.filter(username__startswith="bench-search-").delete()
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(figures, indent=2))
    output.with_suffix(".explain.txt").write_text("\n".join(explains))
    print(f"written to {output} and {output.with_suffix('.explain.txt')}")
