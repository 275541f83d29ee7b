"""What every bench tool shares: the one-box stack brought up and its environment, JMeter runs and their
figures, the data check (every acknowledged save is in PostgreSQL), and the machine's CPU, transactions and lag.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from argparse import ArgumentParser
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from io import StringIO
from pathlib import Path
from typing import Any, TypeVar

from django.core.cache import caches
from django.core.management import call_command
from django.db import InterfaceError, OperationalError, connections
from django.db.models import Count
from pymemcache.client.base import Client as MemcacheClient
from redis import Redis

from infra.db_router import LAG_SQL
from infra.sql import table
from respondents.models import Answer, PageSave, Respondent
from results.models import AnswerCount
from surveys.models import Question, Survey

ROOT = Path(__file__).resolve().parent.parent
JMETER = ROOT / "jmeter"
RESULTS = JMETER / "results"
VIEWS = ["login", "display", "content", "change_page", "complete"]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

# A run's figures, a data check's counts: plain data the tools print and write as JSON.
Figures = dict[str, Any]
T = TypeVar("T")


class StackError(Exception):
    """The stack or JMeter did not give a tool what it needs; the bench command reports it and exits 1."""


# What the bench tools run the stack with: the floor views on (off by default: deploy/stack.conf), and gunicorn's
# workers never replaced (a new worker's start would land in whichever measured run it fell in).
BENCH_STACK_ENV = {"STACK_BENCH_FLOOR_VIEWS": "1", "STACK_GUNICORN_MAX_REQUESTS": "0"}


def stack_env() -> None:
    """Bring the stack up as the bench tools run it (BENCH_STACK_ENV), and take its env."""
    subprocess.run([ROOT / "deploy" / "stack", "up"], check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, **BENCH_STACK_ENV})
    output = subprocess.run([ROOT / "deploy" / "stack", "env"], check=True, capture_output=True, text=True).stdout
    os.environ.update(dict(line.split("=", 1) for line in output.splitlines() if "=" in line))


def manage_measured(*args: object, env: Mapping[str, str] | None = None) -> tuple[float, float, str, str]:
    """Run ``manage.py ARGS`` in a child process; return (wall seconds, the child's own peak RSS in MB, what it
    printed, what it logged). A failure ends the bench, with the end of both."""
    started = time.monotonic()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen([sys.executable, str(ROOT / "manage.py"), *map(str, args)], stdout=out, stderr=err,
                                 text=True, env=env)
        _, status, usage = os.wait4(child.pid, 0)  # this child's rusage alone
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        output, errors = out.read(), err.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"manage.py {' '.join(map(str, args))} failed:\n{output[-2000:]}\n{errors[-4000:]}")
    return seconds, usage.ru_maxrss / 1024, output, errors


def manage(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def forget_login_failures() -> None:
    """Clear the login limits' counters (staff/sign_in_limits.py, respondents/login_limits.py), which a tool's
    wrong codes or flood ran up."""
    caches["ratelimit"].clear()


def answerable_per_page(slug: str) -> Counter[int]:
    rows = Question.objects.using("default").filter(survey__slug=slug).exclude(kind=Question.Kind.GRID)
    return Counter(rows.values_list("page__position", flat=True))


def load_arguments(parser: ArgumentParser, *, duration: int | None = None, threads: int, think: float | None = None,
                   pages: int | None = None) -> None:
    """Add the arguments of a JMeter run the load tools share, each with the tool's default; one whose default is
    None is left out."""
    if duration is not None:
        parser.add_argument("--duration", type=int, default=duration, help=f"seconds of each run (default {duration})")
    parser.add_argument("--threads", type=int, default=threads,
                        help=f"JMeter threads, each a respondent taking the survey (default {threads})")
    if think is not None:
        parser.add_argument("--think", type=float, default=think,
                            help=f"seconds on a page before saving (default {think:g})")
    if pages is not None:
        parser.add_argument("--pages", type=int, default=pages, help=f"pages of the benchmark survey (default {pages})")


def jmeter_run(plan: str, name: str, *, threads: int, iterations: int, duration: int, think: float,
               respondents: Path | None = None, extra: Sequence[str] = ()) -> Figures:
    """Run a plan through jmeter/run; return its figures (a failed sample does not stop the bench)."""
    run, out = jmeter_start(plan, name, threads=threads, iterations=iterations, duration=duration, think=think,
                            respondents=respondents, extra=extra)
    stdout, stderr = run.communicate()
    return jmeter_figures(plan, out, stdout + stderr)


def nginx_port() -> str:
    """Return the stack's nginx port, as deploy/stack.conf (and the environment: STACK_NGINX_PORT) set it."""
    script = f'ROOT="{ROOT}"; . "{ROOT}/deploy/stack.conf"; echo "$STACK_NGINX_PORT"'
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout.strip()


def rampup(threads: int) -> int:
    """Seconds JMeter takes to start ``threads`` threads (a tenth of the threads, 1 to 5)."""
    return min(5, max(1, threads // 10))


def jmeter_start(plan: str, name: str, *, threads: int, iterations: int, duration: int, think: float,
                 respondents: Path | None = None, extra: Sequence[str] = ()) -> tuple[subprocess.Popen[str], Path]:
    """Start a plan through jmeter/run in the background; return (the process, its results folder). The plan
    reaches the stack's nginx unless ``extra`` names another front door (-Jhost=…, -Jport=…: the lab's)."""
    out = RESULTS / f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{name}"
    props = [f"-Jthreads={threads}", f"-Jiterations={iterations}", f"-Jduration={duration}", f"-Jthink={think}",
             f"-Jrampup={rampup(threads)}"]
    if not any(str(option).startswith("-Jport=") for option in extra):
        props.append(f"-Jport={nginx_port()}")
    if respondents:
        props.append(f"-Jrespondents={respondents}")
    props.extend(extra)
    run = subprocess.Popen([JMETER / "run", JMETER / "plans" / f"{plan}.jmx", *props],
                           env={**os.environ, "RESULTS": str(out)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return run, out


def jmeter_figures(plan: str, out: Path, output: str = "") -> Figures:
    """Return the figures of a finished run from its results folder."""
    stats_file = out / "report" / "statistics.json"
    if not stats_file.exists():
        raise StackError(f"{plan} produced no report:\n{output}")
    stats = json.loads(stats_file.read_text())
    total = stats["Total"]
    start, end = jtl_span(out / "results.jtl")
    return {
        "jtl": out / "results.jtl",
        "rps": total["throughput"],
        "samples": total["sampleCount"],
        "failed": total["errorCount"],
        "retried": retried_attempts(out / "results.jtl"),
        "duration_s": max(end - start, 0.001),
        "latency": {label: {"mean": round(s["meanResTime"], 1), "p50": round(s["medianResTime"], 1),
                            "p95": round(s["pct2ResTime"], 1), "p99": round(s["pct3ResTime"], 1)}
                    for label, s in stats.items()},
        # CPU of the load itself, not of building the dashboard afterwards (jmeter/run writes it).
        "jmeter_cpu_s": sum(float(x) for x in (out / "load_cpu").read_text().split()),
    }


def jtl_span(jtl: Path) -> tuple[float, float]:
    """Return (first sample start, last sample end) of a jtl, in seconds."""
    first, last = None, 0
    with open(jtl, newline="") as stream:
        for row in csv.DictReader(stream):
            start = int(row["timeStamp"])
            first = start if first is None else min(first, start)
            last = max(last, start + int(row["elapsed"]))
    return (first or 0) / 1000, last / 1000


def is_retried(row: Mapping[str, str]) -> bool:
    """A sample survey_taking.jmx retried (retry.groovy): kept as a success, with the status the person met."""
    return row["success"] == "true" and not row["responseCode"][:1] in ("2", "3")


def retried_attempts(jtl: Path) -> int:
    with open(jtl, newline="") as stream:
        return sum(is_retried(row) for row in csv.DictReader(stream))


def reconnecting(read: Callable[[], T], *, seconds: float = 60) -> T:
    """Return ``read()``, opening the database connections again while the database is away (a restart, a
    failover): the bench's own connection is cut then too, and the bench must not crash with it."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return read()
        except (OperationalError, InterfaceError) as error:
            if time.monotonic() > deadline:
                raise
            print(f"bench: the database is away ({str(error).strip()[:80]}); trying again...", file=sys.stderr)
            for connection in connections.all(initialized_only=True):
                connection.close()
            time.sleep(1)


def data_check(jtl: Path, slug: str, expected_per_page: Mapping[int, int]) -> Figures:
    """Count, for every save JMeter saw acknowledged, the answers PostgreSQL holds (on the master)."""
    return reconnecting(lambda: _data_check(jtl, slug, expected_per_page))


def _data_check(jtl: Path, slug: str, expected_per_page: Mapping[int, int]) -> Figures:
    acknowledged: set[tuple[str, int]] = set()
    finishes: set[str] = set()
    codes_used: set[str | None] = set()
    with open(jtl, newline="") as stream:
        for row in csv.DictReader(stream):
            codes_used.add(row.get("code"))
            if row["label"] == "change_page" and row["success"] == "true" and not is_retried(row):
                page = int(row["page"])
                acknowledged.add((row["code"], page))
                if page == max(expected_per_page):
                    finishes.add(row["code"])
    stored: defaultdict[tuple[str, int], int] = defaultdict(int)
    rows = (Answer.objects.using("default").filter(respondent__survey__slug=slug)
            .values_list("respondent__access_code", "question__page__position").annotate(n=Count("id")))
    for code, page, n in rows:
        stored[(code, page)] = n
    lost = sum(max(0, expected_per_page[page] - stored[(code, page)]) for code, page in acknowledged)
    completed = set(Respondent.objects.using("default").filter(survey__slug=slug, status="completed")
                    .values_list("access_code", flat=True))
    return {
        "acknowledged_saves": len(acknowledged),
        "acknowledged_answers": sum(expected_per_page[page] for _, page in acknowledged),
        "answers_in_database": sum(stored[key] for key in acknowledged),
        "lost_answers": lost,
        "completed_acknowledged": len(finishes),
        "completed_lost": len(finishes - completed),
        "respondents_used": len(codes_used - {None, ""}),
    }


def cpu_seconds() -> dict[str, float]:
    """Return CPU seconds (user + system, their exited children included) of each stack component's process tree."""
    stack_dir = Path(os.environ["STATIC_ROOT"]).parent  # deploy/stack puts static files in .stack/static
    primary_file = stack_dir / "pg" / "primary"
    primary = primary_file.read_text().strip() if primary_file.exists() else "pg1"  # the node that is the master
    pidfiles = {
        "nginx": [stack_dir / "nginx" / "nginx.pid"],
        "gunicorn": [stack_dir / "run" / "gunicorn.pid"],
        "pgbouncer": [stack_dir / "pgbouncer" / "master.pid", stack_dir / "pgbouncer" / "replica.pid"],
        "postgresql_master": [stack_dir / "pg" / primary / "postmaster.pid"],
        "postgresql_replica": [stack_dir / "pg" / ("pg2" if primary == "pg1" else "pg1") / "postmaster.pid"],
        "memcached": [stack_dir / "memcached" / "memcached.pid"],
        "redis": [stack_dir / "run" / "redis.pid"],
        "celery": [stack_dir / "run" / "celery.pid"],
    }
    stats: dict[int, float] = {}
    children: defaultdict[int, list[int]] = defaultdict(list)
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            pid = int(proc.name)
            stats[pid] = sum(int(fields[i]) for i in (11, 12, 13, 14)) / CLOCK_TICKS
            children[int(fields[1])].append(pid)

    def tree(pid: int) -> float:
        return stats.get(pid, 0.0) + sum(tree(child) for child in children.get(pid, []))

    totals: dict[str, float] = {}
    for name, files in pidfiles.items():
        total = 0.0
        for file in files:
            try:
                total += tree(int(file.read_text().split()[0]))
            except (OSError, ValueError, IndexError):
                pass
        totals[name] = total
    return totals


def master_transactions() -> int:
    return transactions("default")


def transactions(alias: str) -> int:
    """Return the transactions the database server behind ``alias`` has committed or rolled back so far."""
    def read() -> int:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()")
            return cursor.fetchone()[0]

    return reconnecting(read)


def master_wal_bytes() -> int:
    """Return the master's WAL position in bytes: two readings' difference is the WAL written between them."""
    def read() -> int:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint")
            return cursor.fetchone()[0]

    return reconnecting(read)


def survey_forget(survey: Survey) -> None:
    """Delete a bench survey with its results' counts, its people and their answers: plain DELETEs of what may be
    millions of rows, not Django's collector, which would load them all first."""
    with connections["default"].cursor() as cursor:
        cursor.execute(f"DELETE FROM {table(AnswerCount)} WHERE survey_id = %s", [survey.pk])
        cursor.execute(f"DELETE FROM {table(Answer)} WHERE respondent_id IN "
                       f"(SELECT id FROM {table(Respondent)} WHERE survey_id = %s)", [survey.pk])
        cursor.execute(f"DELETE FROM {table(Respondent)} WHERE survey_id = %s", [survey.pk])
    survey.delete()


# The tables a respondent fills: one row each, one a page save, one an answer.
FOOTPRINT_TABLES = {"respondent": Respondent, "page_save": PageSave, "answer": Answer}


def row_footprint() -> dict[str, float | None]:
    """Return the bytes on disk a row of each table a respondent fills (its indexes and TOAST included; the
    table's free space too, as a real survey's has), from the master: {"answer": 170.2, ...}."""
    def read() -> dict[str, float | None]:
        sizes: dict[str, float | None] = {}
        with connections["default"].cursor() as cursor:
            for name, model in FOOTPRINT_TABLES.items():
                cursor.execute(f"SELECT pg_total_relation_size(%s), (SELECT count(*) FROM {table(model)})",
                               [table(model)])
                size, rows = cursor.fetchone()
                sizes[name] = round(size / rows, 1) if rows else None
        return sizes

    return reconnecting(read)


SESSION_KEYS = "*django.contrib.sessions.cache*"


def session_footprint(sample: int = 300) -> dict[str, int | None]:
    """Return the bytes Redis spends on a respondent's session (MEMORY USAGE: key, value and Redis's own
    overhead), the mean of up to ``sample`` sessions, and how many sessions Redis holds now."""
    client = Redis.from_url(os.environ["REDIS_SESSIONS_URL"])
    sizes: list[int] = []
    count = 0
    for key in client.scan_iter(match=SESSION_KEYS, count=1000):
        count += 1
        if len(sizes) < sample:
            sizes.append(client.memory_usage(key, samples=0) or 0)
    return {"bytes_per_session": round(sum(sizes) / len(sizes)) if sizes else None, "sessions": count}


def memcached_bytes() -> int:
    """Return the bytes memcached holds now (its ``stats``), summed over MEMCACHED_LOCATION's servers."""
    total = 0
    for location in os.environ["MEMCACHED_LOCATION"].split(","):
        host, port = location.strip().rsplit(":", 1)
        client = MemcacheClient((host, int(port)), connect_timeout=2, timeout=2)
        try:
            total += int(client.stats()[b"bytes"])
        finally:
            client.close()
    return total


def backup_compression() -> float | None:
    """Return how many times smaller than the database the newest full backup is in the repository (pgBackRest's
    zstd and encryption: `deploy/stack backups --json`), or None when the stack has no full backup."""
    run = subprocess.run([ROOT / "deploy" / "stack", "backups", "--json"], capture_output=True, text=True)
    if run.returncode:
        return None
    fulls = [backup["info"] for stanza in json.loads(run.stdout) for backup in stanza.get("backup", [])
             if backup["type"] == "full"]
    if not fulls or not fulls[-1]["repository"]["delta"]:
        return None
    return round(fulls[-1]["delta"] / fulls[-1]["repository"]["delta"], 2)


def gunicorn_rss_per_worker() -> float | None:
    """Return the mean resident memory of the stack's gunicorn workers, in MiB (None when gunicorn is not up)."""
    stack_dir = Path(os.environ["STATIC_ROOT"]).parent
    try:
        master = int((stack_dir / "run" / "gunicorn.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    rss = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            status = (proc / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(fields.get("PPid", "0").strip() or 0) == master and "VmRSS" in fields:
            rss.append(int(fields["VmRSS"].split()[0]) / 1024)
    return round(sum(rss) / len(rss), 1) if rss else None


def replica_lag() -> float | None:
    try:
        with connections["replica"].cursor() as cursor:
            cursor.execute(LAG_SQL)
            return round(float(cursor.fetchone()[0]), 2)
    except Exception:
        return None


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    memory = next((line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal")), "0")
    return f"{os.cpu_count()} cores ({cpu}), {int(memory) // 1024 // 1024} GiB"
