"""Completion monitoring at state scale on the running stack (`make bench-monitoring RESPONDENTS=2000000`).

Seeds RESPONDENTS respondents over SCHOOLS schools in 40 districts straight
into the stack's PostgreSQL (one INSERT ... SELECT from generate_series: 40%
completed over ten days, 30% in progress on pages 1-60, 5% withdrawn, the
rest not started; ten grades, four roles), rebuilds the completion summary
once (what the periodic task does every minute, from the replica), then
signs a state administrator in through nginx and times each monitoring page
over HTTP: the state by district, a district by school (sorted by rate), a
school by grade and role, and a district coordinator's view. Prints the
summary rebuild's seconds and each page's median and 95th percentile in ms.

Target (docs/performance.md): a monitoring page under 200 ms at 2 million
respondents in 2,000 schools. Not a timed test: figures on shared machines
vary, so read them against each other. The bench survey and its people are
deleted at the end, with its two staff accounts (--keep leaves them).
"""
import argparse
import http.cookiejar
import json
import statistics
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection

from accounts.models import StaffMember
from bench.stack import ROOT, nginx_port, survey_forget
from bench.survey_document import bench_document
from infra.db_router import read_from_master
from infra.sql import table
from monitoring.refresh import completion_summary_refresh
from respondents.models import Respondent, School
from rosters.directory import schools_ensure
from surveys.models import Survey
from surveys.services import survey_create

PASSWORD = "monitoring bench passphrase"
PREFIX = "monitoring-bench-"


def seed(survey: Survey, *, respondents: int, schools: int) -> None:
    """Insert the respondents in one statement; their codes start with 0, which real codes never contain."""
    first_school = School.objects.get(code="M00000").pk
    with connection.cursor() as cursor:
        cursor.execute(f"""
            INSERT INTO {table(Respondent)} (survey_id, external_id, access_code, school_id, grade, role,
                language, display_name, status, current_page, started_at, last_saved_at, completed_at, withdrawn_at)
            SELECT %(survey)s, 'M' || n, '0' || lpad(n::text, 9, '0'), %(first)s + n %% %(schools)s,
                   (3 + n %% 10)::text, (ARRAY['student','student','student','teacher','parent','staff'])[1 + n %% 6],
                   'en', '', s.status, s.page, s.at, s.at, CASE WHEN s.status = 'completed' THEN s.at END,
                   CASE WHEN n %% 20 = 0 THEN s.at END
            FROM generate_series(1, %(count)s) AS n,
                 LATERAL (SELECT CASE WHEN n %% 10 < 4 THEN 'completed' WHEN n %% 10 < 7 THEN 'in_progress'
                                      ELSE 'not_started' END AS status,
                                 CASE WHEN n %% 10 BETWEEN 4 AND 6 THEN 1 + (n / 10) %% 60 ELSE 1 END AS page,
                                 CASE WHEN n %% 10 < 7 THEN now() - make_interval(mins => ((n::bigint * 7919) %% 14400)::int) END
                                     AS at) AS s
        """, {"survey": survey.pk, "first": first_school, "schools": schools, "count": respondents})
        cursor.execute(f"ANALYZE {table(Respondent)}")


def signed_in_opener(base: str, username: str) -> urllib.request.OpenerDirector:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(f"{base}/staff/login/").read()
    token = next(cookie.value for cookie in jar if cookie.name == "csrftoken")
    body = urllib.parse.urlencode({"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token})
    request = urllib.request.Request(f"{base}/staff/login/", data=body.encode(), headers={"Referer": f"{base}/"})
    with opener.open(request) as response:
        if "/staff/login/" in response.url:
            sys.exit(f"{username} could not sign in")
    return opener


# Requests not counted: the first of each gunicorn worker (nginx spreads them) compiles templates and opens
# connections.
WARM_UP = 10


def time_page(opener: urllib.request.OpenerDirector, url: str, *, runs: int) -> tuple[float, float, int]:
    times: list[float] = []
    for _ in range(WARM_UP + runs):
        started = time.perf_counter()
        with opener.open(url) as response:
            body = response.read()
            assert response.status == 200, response.status
        times.append((time.perf_counter() - started) * 1000)
    median, p95 = latency(times)
    return median, p95, len(body)


def latency(times: list[float], warm_up: int = WARM_UP) -> tuple[float, float]:
    """Return the median and the 95th percentile of request times, the first ``warm_up`` left out."""
    times = sorted(times[warm_up:])
    return statistics.median(times), times[max(0, int(len(times) * 0.95) - 1)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--respondents", type=int, default=2_000_000)
    parser.add_argument("--schools", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--keep", action="store_true", help="Leave the bench survey and its people in the stack.")
    parser.add_argument("--output", default=str(ROOT / "jmeter" / "results" / "monitoring-bench.json"))
    args = parser.parse_args(argv)

    base = f"http://127.0.0.1:{nginx_port()}"
    figures: dict[str, Any] = {"respondents": args.respondents, "schools": args.schools}
    with read_from_master():
        for old in Survey.objects.filter(slug__startswith=PREFIX):  # a run that was stopped half-way
            survey_forget(old)
        schools = schools_ensure([(f"MD{n % 40:02d}", f"Monitoring district {n % 40}", f"M{n:05d}",
                                   f"Monitoring school {n}") for n in range(args.schools)])
        survey = survey_create(document=bench_document(slug=f"{PREFIX}{time.time_ns()}", pages=2))
        Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)  # the minute's refresh skips it
        users = get_user_model().objects
        for username in ("bench-state", "bench-district"):
            users.filter(username=username).delete()
        users.create_superuser("bench-state", password=PASSWORD)
        district_user = users.create_user("bench-district", password=PASSWORD)
        member = StaffMember.objects.create(user=district_user, role=StaffMember.Role.DISTRICT_COORDINATOR)
        member.districts.set([schools["M00000"].district])

        started = time.monotonic()
        seed(survey, respondents=args.respondents, schools=args.schools)
        figures["seed_seconds"] = round(time.monotonic() - started, 1)
        print(f"seeded {args.respondents} respondents in {args.schools} schools in {figures['seed_seconds']} s")
    try:
        started = time.monotonic()
        rows = completion_summary_refresh(survey=survey)
        figures["refresh_seconds"] = round(time.monotonic() - started, 2)
        print(f"summary rebuilt: {rows} grade-and-role rows in {figures['refresh_seconds']} s "
              f"(the periodic task's work for this survey, once a minute)")
        pages = {
            "state by district": ("bench-state", ""),
            "district by school, sorted by rate": ("bench-state", "?district=MD00&sort=-rate"),
            "school by grade and role": ("bench-state", "?school=M00000"),
            "district coordinator: own district": ("bench-district", ""),
        }
        openers: dict[str, urllib.request.OpenerDirector] = {}
        print(f"{'page':<40}{'median ms':>11}{'p95 ms':>9}{'kB':>7}")
        for name, (username, query) in pages.items():
            opener = openers.get(username) or openers.setdefault(username, signed_in_opener(base, username))
            median, p95, size = time_page(opener, f"{base}/staff/surveys/{survey.slug}/monitoring/{query}",
                                          runs=args.runs)
            figures[name] = {"median_ms": round(median, 1), "p95_ms": round(p95, 1), "kb": round(size / 1024)}
            print(f"{name:<40}{median:>11.1f}{p95:>9.1f}{size / 1024:>7.0f}")
    finally:
        if not args.keep:
            with read_from_master():
                started = time.monotonic()
                survey_forget(survey)
                users.filter(username__in=["bench-state", "bench-district"]).delete()  # known passwords
                print(f"bench survey deleted in {time.monotonic() - started:.0f} s")
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(figures, indent=2))
    print(f"written to {args.output}")

