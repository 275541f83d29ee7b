"""Faults under load, in both replication modes: does anything acknowledged get lost? (`make drill`)

    manage.py bench drill [--modes async,sync] [--faults a,b] [--threads 12] [--think 0] [--pages 8] [--settle 8]
                          [--steady 20]
    manage.py bench drill --short        (CI: fewer threads, shorter windows, both modes)

``make drill`` runs it through deploy/drill, which installs JMeter first.

What it does, fault by fault, and what it prints: ``--help`` (HELP below) and docs/operations.md,
"Faults under load: `make drill`".
"""
import argparse
import csv
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TypedDict

from django.db.models import Count

from bench import stack
from bench.stack import Figures
from respondents.models import Answer, PageSave

# The rest of --help: what the drill does, fault by fault, and what it reports.
HELP = """\
For each replication mode (async: STACK_PG_SYNCHRONOUS=off; sync: on) the drill
brings the stack up in that mode, seeds a benchmark survey, and starts the
JMeter survey-taking plan, which retries 502, 503, 504 and dropped connections
the way survey.js does (the same request, the same save_id). It measures the
steady write throughput for --steady seconds, then injects each fault in turn,
waits until the stack is whole again and --settle seconds more:

    gunicorn-workers   kill -9 of every gunicorn worker, mid-save
    pgbouncer          restart of the master's pgbouncer
    master-immediate   PostgreSQL master: pg_ctl stop -m immediate, then start
    replica            replica stopped, then started
    redis              Redis restarted (sessions, Celery broker, login counters)
    memcached          memcached stopped, then started (the definition cache)
    minio              MinIO stopped, then started (S3: static files, uploads; saves never touch it)
    nginx-reload       nginx reloads its configuration
    celery             kill -9 of the Celery worker, then started
    failover           kill -9 of the master; deploy/stack failover; then rebuild-replica

When JMeter has stopped it recounts, in PostgreSQL, every save JMeter saw
acknowledged, and prints per fault: acknowledged saves, lost answers,
duplicated saves or answers, the status codes people met, the slowest save, and
how long after the fault saves went through again. Writes
jmeter/results/drill.json. Exits 1 on any lost or duplicated answer (but for
the asynchronous failover, whose loss is the replication-lag window it reports),
any 500, or any request that failed for good (retries used up, a logout).
"""

ROOT = stack.ROOT
STACK = ROOT / "deploy" / "stack"
MODES = {"async": "off", "sync": "on"}
FAULTS = ["gunicorn-workers", "pgbouncer", "master-immediate", "replica", "redis", "memcached", "minio", "nginx-reload",
          "celery", "failover"]
SLOW_SAVE_S = 2.0


class Sample(TypedDict):
    """A JMeter sample of a results file, as the drills read it (``read_jtl``): times in seconds."""

    label: str
    start: float
    elapsed: float
    end: float
    status: str  # the HTTP status, or "no answer"
    success: bool
    retried: bool
    code: str
    page: int


# A fault's window under load (``faults_under_load``): the fault, the note of what was done, when it started, when
# the stack was whole again and when the window ended (epoch seconds).
Window = TypedDict("Window", {"fault": str, "did": str, "from": float, "whole": float, "to": float})
# What a drill's recount reads (``database_counts``): answers stored and page saves logged by (access code, page),
# answers beyond one a question by access code.
Counts = tuple[Mapping[tuple[str, int], int], Mapping[tuple[str, int], int], Mapping[str, int]]


# The drill's six threads come from one address and, on a quiet machine, finish its five-page survey in about a
# tenth of a second: some sixty logins a second, past nginx's respondent login limit for one address (30 a second,
# a burst of 300), which then answers 429 and the judge counts a person who saw an error. The drill is about faults,
# not that limit (bench/login_flood.py measures the limits): it runs with the limit lifted.
DRILL_STACK_ENV = {"STACK_NGINX_RESPONDENT_LOGIN_RATE": "100000r/s", "STACK_NGINX_RESPONDENT_LOGIN_BURST": "100000"}


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    stack.RESULTS.mkdir(parents=True, exist_ok=True)
    configured = os.environ.get("STACK_PG_SYNCHRONOUS")
    limits = {name: os.environ.get(name) for name in DRILL_STACK_ENV}
    os.environ.update(DRILL_STACK_ENV)
    reports: list[Figures] = []
    cost = None
    try:
        if set(args.modes) >= set(MODES):
            cost = synchronous_cost(seconds=5 if args.short else 15, rounds=2)
        for mode in args.modes:
            reports.append(run_mode(mode, args))
    finally:
        # Leave the stack in the mode deploy/stack.conf asks for, whole.
        restore_env("STACK_PG_SYNCHRONOUS", configured)
        for name, value in limits.items():
            restore_env(name, value)
        deploy_stack("up")
    path = stack.RESULTS / "drill.json"
    path.write_text(json.dumps({"modes": reports, "page_save_tps": cost}, indent=2, default=str) + "\n")
    problems = [problem for report in reports for problem in report["problems"]]
    print_summary(reports, cost)
    print(f"\nwritten to {path}")
    if problems:
        sys.exit("drill: " + "; ".join(problems))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    return drill_arguments(argv, doc=f"{__doc__}\n{HELP}", faults=FAULTS, modes="async,sync", threads=12,
                           whole="the stack",
                           short="CI: 6 threads, 5 pages, 10 s steady, 5 s settle")


def drill_arguments(argv: list[str] | None, *, doc: str | None, faults: Sequence[str], modes: str, threads: int,
                    whole: str, short: str | None = None) -> argparse.Namespace:
    """The arguments `make drill` and `make lab-drill` share: modes, faults, the load, the windows (and --short)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modes", default=modes, help=f"replication modes to drill, in order ({modes})")
    parser.add_argument("--faults", default=",".join(faults), help=f"faults to inject, in order ({','.join(faults)})")
    stack.load_arguments(parser, threads=threads, think=0, pages=8)
    parser.add_argument("--steady", type=int, default=20, help="seconds of load before the first fault (default 20)")
    parser.add_argument("--settle", type=int, default=8, help=f"seconds watched after {whole} is whole again (default 8)")
    if short:
        parser.add_argument("--short", action="store_true", help=short)
    args = parser.parse_args(argv)
    if getattr(args, "short", False):
        args.threads, args.pages, args.steady, args.settle = min(args.threads, 6), min(args.pages, 5), 10, 5
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    args.faults = [f.strip() for f in args.faults.split(",") if f.strip()]
    for mode in args.modes:
        if mode not in MODES:
            parser.error(f"no mode {mode!r} (one of {', '.join(MODES)})")
    for fault in args.faults:
        if fault not in faults:
            parser.error(f"no fault {fault!r} (one of {', '.join(faults)})")
    return args


# ---------------------------------------------------------------- the stack

def deploy_stack(*args: str, check: bool = True) -> str:
    """Run deploy/stack; return its output. The drill's mode travels in STACK_PG_SYNCHRONOUS."""
    run = subprocess.run([str(STACK), *args], capture_output=True, text=True)
    if check and run.returncode:
        sys.exit(f"drill: deploy/stack {' '.join(args)} failed:\n{run.stdout}{run.stderr}")
    return run.stdout


def pid(component: str) -> int:
    """Return the process id of a running component of the stack; exit when it is not running (no fault can be
    done to it)."""
    output = deploy_stack("pid", component, check=False).strip()
    if not output.isdigit():
        sys.exit(f"drill: deploy/stack pid {component}: not running ({output or 'no process id'})")
    return int(output)


def children(parent: int) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                    found.append(int(proc.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def kill(pids: Iterable[int]) -> None:
    for number in pids:
        try:
            os.kill(number, signal.SIGKILL)
        except ProcessLookupError:
            pass


def until_whole(timeout: float = 90) -> None:
    """Wait until every component of the stack runs again (gunicorn's master respawns its workers itself)."""
    deadline = time.monotonic() + timeout
    while subprocess.run([str(STACK), "status"], capture_output=True).returncode:
        if time.monotonic() > deadline:
            sys.exit("drill: the stack did not come back whole:\n" + deploy_stack("status", check=False))
        time.sleep(0.5)


def restore_env(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


# ---------------------------------------------------------------- the faults

# Faults that are one deploy/stack command: its arguments, and the note of what was done.
ONE_COMMAND: dict[str, tuple[tuple[str, ...], str]] = {
    "pgbouncer": (("restart", "pgbouncer-master"), "deploy/stack restart pgbouncer-master"),
    "redis": (("restart", "redis"), "deploy/stack restart redis"),
    "nginx-reload": (("reload", "nginx"), "nginx -s reload"),
}
# Faults that stop a component for DOWN_SECONDS, then start it: deploy/stack stop's options and the component, and
# the note.
DOWN_SECONDS = 2
STOPPED: dict[str, tuple[tuple[str, ...], str]] = {
    "master-immediate": (("--immediate", "master"), "pg_ctl stop -m immediate; 2 s; start (crash recovery)"),
    "replica": (("replica",), "replica stopped; 2 s; started"),
    "memcached": (("memcached",), "memcached stopped; 2 s; started (empty)"),
    "minio": (("minio",), "MinIO stopped; 2 s; started"),
}


def inject(fault: str) -> str:
    """Do the fault and what ops (or the stack itself) does about it; return a note of what was done."""
    if fault in ONE_COMMAND:
        command, note = ONE_COMMAND[fault]
        deploy_stack(*command)
        return note
    if fault in STOPPED:
        stop_args, note = STOPPED[fault]
        deploy_stack("stop", *stop_args)
        time.sleep(DOWN_SECONDS)
        deploy_stack("start", stop_args[-1])
        return note
    if fault == "gunicorn-workers":
        workers = children(pid("gunicorn"))
        kill(workers)
        return f"kill -9 of {len(workers)} workers"
    if fault == "celery":
        main_pid = pid("celery")
        kill([main_pid, *children(main_pid)])
        time.sleep(1)
        deploy_stack("start", "celery")
        return "kill -9 of the worker and its pool; 1 s; started"
    if fault == "failover":
        master = deploy_stack("node", "master").strip()
        kill([pid("master")])
        time.sleep(1)  # the time it takes to notice
        started = time.monotonic()
        deploy_stack("failover")
        promoted = time.monotonic() - started
        deploy_stack("rebuild-replica")
        return (f"kill -9 of the master ({master}); 1 s; deploy/stack failover ({promoted:.1f} s); "
                f"rebuild-replica ({time.monotonic() - started - promoted:.1f} s)")
    raise ValueError(fault)


# ---------------------------------------------------------------- one mode

def run_mode(mode: str, args: argparse.Namespace) -> Figures:
    os.environ["STACK_PG_SYNCHRONOUS"] = MODES[mode]
    print(f"\n=== {mode}: STACK_PG_SYNCHRONOUS={MODES[mode]} ===")
    stack.stack_env()  # deploy/stack up in this mode, and the app's environment for the data check
    until_whole()
    slug = stack.manage("seed_bench_survey", "--pages", str(args.pages)).strip()
    expected_per_page = stack.answerable_per_page(slug)
    # Enough fresh respondents that the threads never run out: one a second per thread for the planned length,
    # twice over. A short survey on a quiet machine takes under a second, and faults stretch the run: on CI the
    # sync half once used all of the 1,620 it had (the async half 1,167), and its judge called the run failed.
    planned = args.steady + len(args.faults) * (args.settle + 15) + 60
    count = 2 * args.threads * planned
    codes_csv = stack.JMETER / "data" / f"{slug}.csv"
    stack.manage("loadtest_respondents", "--survey", slug, "--count", str(count), "--output", str(codes_csv))
    warm_csv = stack.JMETER / "data" / f"{slug}-warm.csv"
    stack.manage("loadtest_respondents", "--survey", slug, "--count", "1", "--output", str(warm_csv))
    stack.jmeter_run("survey_taking", f"{slug}-warm", threads=1, iterations=1, duration=120, think=0, respondents=warm_csv)

    print(f"Load: {args.threads} threads, think {args.think} s, {args.pages} pages; {args.steady} s steady first.")
    # JMeter listens for its Shutdown message on a port of our choosing (stop_jmeter).
    control_port = free_udp_port()
    run, out = stack.jmeter_start("survey_taking", f"{slug}-drill-{mode}", threads=args.threads, iterations=-1,
                                  duration=3600, think=args.think, respondents=codes_csv,
                                  extra=[f"-Jjmeterengine.nongui.port={control_port}",
                                         f"-Jjmeterengine.nongui.maxport={control_port}"])
    try:
        steady, windows = faults_under_load(args, run, out / "results.jtl", inject, until_whole)
    finally:
        stop_jmeter(run, control_port)
    print("Recounting every acknowledged save in PostgreSQL...")
    return judge(mode, slug, out / "results.jtl", expected_per_page, steady, windows, count)


def faults_under_load(args: argparse.Namespace, jmeter: subprocess.Popen[str], jtl: Path, inject: Callable[[str], str],
                      until_whole: Callable[[], None], after_fault: Callable[[str], None] | None = None,
                      ) -> tuple[tuple[float, float], list[Window]]:
    """The load's first --steady seconds, then each fault in turn: ``inject(fault)`` (it returns a note of what it
    did), ``until_whole()``, --settle seconds watched, ``after_fault(fault)``. Return (the steady window, the
    faults' windows)."""
    wait_for_first_sample(jtl, jmeter)
    steady_from = time.time()
    time.sleep(args.steady)
    steady = (steady_from, time.time())
    windows: list[Window] = []
    for fault in args.faults:
        started = time.time()
        print(f"[{started - steady_from:6.1f} s] {fault}...", flush=True)
        note = inject(fault)
        until_whole()
        whole = time.time()
        time.sleep(args.settle)
        windows.append({"fault": fault, "did": note, "from": started, "whole": whole, "to": time.time()})
        print(f"{'':10}{note}; whole again after {whole - started:.1f} s", flush=True)
        if after_fault:
            after_fault(fault)
    return steady, windows


PGBENCH_CLIENTS = 8
# A page save's statements, as respondents.services.page_save sends them, on tables of their own
# in a database of their own (drill): the commit path alone, without the app in front of it.
PAGE_SAVE_SQL = """\\set r random(1, 10000)
BEGIN;
UPDATE drill_progress SET page = page + 1, saved_at = now() WHERE id = :r;
INSERT INTO drill_answer (respondent, question, value) VALUES (:r, 1, 'a'), (:r, 2, 'b'), (:r, 3, 'c'), (:r, 4, 'd'), (:r, 5, 'e')
  ON CONFLICT (respondent, question) DO UPDATE SET value = excluded.value;
INSERT INTO drill_log (respondent, save_id) VALUES (:r, gen_random_uuid());
COMMIT;
"""
PAGE_SAVE_SCHEMA = """
DROP TABLE IF EXISTS drill_progress, drill_answer, drill_log;
CREATE TABLE drill_progress (id int PRIMARY KEY, page int NOT NULL DEFAULT 1, saved_at timestamptz);
INSERT INTO drill_progress (id) SELECT generate_series(1, 10000);
CREATE TABLE drill_answer (respondent int, question int, value text, PRIMARY KEY (respondent, question));
CREATE TABLE drill_log (respondent int, save_id uuid, PRIMARY KEY (respondent, save_id));
"""


def synchronous_cost(seconds: int, rounds: int) -> dict[str, list[int]]:
    """Page-save transactions per second on the master in each mode, alternating (async, sync, async, sync...)
    so that the machine's drift falls on both alike. Only the master's configuration changes between them."""
    stack.stack_env()
    tps: dict[str, list[int]] = {mode: [] for mode in MODES}
    for _ in range(rounds):
        for mode, setting in MODES.items():
            os.environ["STACK_PG_SYNCHRONOUS"] = setting
            deploy_stack("reload", "master")
            tps[mode].append(page_save_tps(seconds))
    print("Page-save transactions per second on the master (pgbench, "
          f"{PGBENCH_CLIENTS} clients, {seconds} s each): " + "; ".join(f"{m} {v}" for m, v in tps.items()))
    return tps


def page_save_tps(seconds: int) -> int:
    """Page-save transactions per second on the master with pgbench: the cost of synchronous commit, alone."""
    values = bench_conf()
    port = values["STACK_PG1_PORT"] if deploy_stack("node", "master").strip() == "pg1" else values["STACK_PG2_PORT"]
    env = {**os.environ, "PGPASSFILE": str(Path(values["STACK_DIR"]) / "pgpass"), "PGHOST": "127.0.0.1", "PGPORT": port,
           "PGUSER": "postgres"}
    return pgbench_page_saves(env, seconds, Path(values["STACK_PG_BIN"]))


def pgbench_page_saves(env: Mapping[str, str], seconds: int, binaries: Path = Path("/usr/lib/postgresql/15/bin"),
                       ) -> int:
    """Page-save transactions per second with pgbench (PAGE_SAVE_SQL, in a database `drill` it makes) on the server
    ``env`` names (PGHOST, PGPORT, PGUSER and a password): the one-box master, or the lab's leader."""
    exists = subprocess.run([binaries / "psql", "-X", "-qtA", "-d", "postgres", "-c",
                             "SELECT 1 FROM pg_database WHERE datname = 'drill'"], env=env, capture_output=True, text=True)
    if exists.stdout.strip() != "1":
        subprocess.run([binaries / "psql", "-X", "-q", "-d", "postgres", "-c", "CREATE DATABASE drill"], env=env, check=True)
    subprocess.run([binaries / "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", "drill", "-c", PAGE_SAVE_SCHEMA],
                   env=env, check=True, capture_output=True)
    script = stack.RESULTS / "page_save.pgbench"
    script.write_text(PAGE_SAVE_SQL)
    run = subprocess.run([binaries / "pgbench", "-n", "-c", str(PGBENCH_CLIENTS), "-j", "2", "-T", str(seconds),
                          "-f", str(script), "drill"], env=env, capture_output=True, text=True)
    found = re.search(r"tps = ([\d.]+) \(without initial connection time\)", run.stdout)
    if not found:
        raise stack.StackError(f"pgbench failed:\n{run.stdout}{run.stderr}")
    return round(float(found.group(1)))


def bench_conf() -> dict[str, str]:
    """deploy/stack.conf's values, as the script sees them (with this process's overrides)."""
    script = f'ROOT="{ROOT}"; set -a; . "{ROOT}/deploy/stack.conf"; env'
    output = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout
    return dict(line.split("=", 1) for line in output.splitlines() if line.startswith("STACK_"))


def wait_for_first_sample(jtl: Path, run: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not (jtl.exists() and jtl.stat().st_size > 200):
        if run.poll() is not None or time.monotonic() > deadline:
            sys.exit(f"drill: JMeter did not start: see {jtl.parent}")
        time.sleep(0.5)


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stop_jmeter(run: subprocess.Popen[str], port: int) -> None:
    """Ask JMeter to stop after the samples in flight (its Shutdown message), then let jmeter/run finish the report."""
    if run.poll() is None:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.sendto(b"Shutdown", ("127.0.0.1", port))
    try:
        run.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        run.kill()
        run.communicate()


# ---------------------------------------------------------------- the recount

def judge(mode: str, slug: str, jtl: Path, expected_per_page: Mapping[int, int], steady: tuple[float, float],
          windows: list[Window], created: int, *, counts: Callable[[str], Counts] | None = None,
          lag_window_faults: Collection[str] = ("failover",)) -> Figures:
    """The report of one mode: per window, saves acknowledged, answers lost, duplicates, statuses, the time until
    saves went through again. ``counts(slug)`` reads the database (the stack's, through Django, by default); in
    asynchronous mode the losses of ``lag_window_faults`` are the replication-lag window: reported, not failed."""
    rows = read_jtl(jtl)
    stored, saves_logged, answer_duplicates = counts(slug) if counts else stack.reconnecting(
        lambda: database_counts(slug))

    def acknowledged(sample: Sample) -> bool:
        return sample["label"] == "change_page" and sample["success"] and not sample["retried"]

    def figures(start: float, end: float) -> Figures:
        # A sample belongs to the window it ended in: a request killed by the fault started before it.
        inside = [r for r in rows if start <= r["end"] < end]
        saves = {(r["code"], r["page"]) for r in inside if acknowledged(r)}
        lost = sum(max(0, expected_per_page[page] - stored.get((code, page), 0)) for code, page in saves)
        duplicates = sum(max(0, saves_logged.get(key, 0) - 1) for key in saves)
        duplicates += sum(answer_duplicates.get(code, 0) for code in {code for code, _ in saves})
        statuses = Counter(r["status"] for r in inside)
        attempts = [r for r in inside if r["label"] == "change_page"]
        slowest = max((r["elapsed"] for r in attempts), default=0.0)
        return {
            "acknowledged_saves": len(saves),
            "lost_answers": lost,
            "duplicates": duplicates,
            "statuses": dict(sorted(statuses.items())),
            "failed_for_good": sum(1 for r in inside if not r["success"]),
            "server_errors": sum(n for status, n in statuses.items() if status.isdigit() and int(status) >= 500
                                 and status not in ("502", "503", "504")),
            "slowest_save_s": round(slowest, 2),
            "saves_back_after_s": recovery(attempts, rows, start, acknowledged) if start else None,
        }

    steady_figures = figures(*steady)
    steady_seconds = steady[1] - steady[0]
    report: Figures = {
        "mode": mode,
        "synchronous": MODES.get(mode, mode),
        "survey": slug,
        "steady_saves_per_s": round(steady_figures["acknowledged_saves"] / steady_seconds, 1),
        "steady_answers_per_s": round(sum(expected_per_page[p] for c, p in
                                          {(r["code"], r["page"]) for r in rows
                                           if steady[0] <= r["end"] < steady[1] and acknowledged(r)}) / steady_seconds, 1),
        "steady_p95_save_ms": percentile([r["elapsed"] * 1000 for r in rows if steady[0] <= r["end"] < steady[1]
                                          and r["label"] == "change_page"], 95),
        "faults": [],
        "whole_run": figures(0, float("inf")),
        "respondents_created": created,
        "respondents_used": len({r["code"] for r in rows}),
        "problems": [],
    }
    for window in windows:
        row = {"fault": window["fault"], "did": window["did"], "from": window["from"], "to": window["to"],
               "whole_after_s": round(window["whole"] - window["from"], 1),
               **figures(window["from"], window["to"])}
        report["faults"].append(row)
    whole = report["whole_run"]
    lag_window_loss = (sum(f["lost_answers"] for f in report["faults"] if f["fault"] in lag_window_faults)
                       if mode == "async" else 0)
    if whole["lost_answers"] - lag_window_loss:
        report["problems"].append(f"{mode}: {whole['lost_answers'] - lag_window_loss} acknowledged answers LOST")
    if whole["duplicates"]:
        report["problems"].append(f"{mode}: {whole['duplicates']} duplicated saves or answers")
    if whole["server_errors"]:
        report["problems"].append(f"{mode}: {whole['server_errors']} answers of 500 or another server error")
    failed = whole["failed_for_good"]
    if mode == "async":  # after losing the lag window, a respondent's next pages may be refused: reported, not judged
        failed -= sum(f["failed_for_good"] for f in report["faults"] if f["fault"] in lag_window_faults)
    if failed:
        report["problems"].append(f"{mode}: {failed} requests failed for good (a person saw an error)")
    if not whole["acknowledged_saves"]:
        report["problems"].append(f"{mode}: no save was acknowledged")
    if report["respondents_used"] >= created:
        report["problems"].append(f"{mode}: the respondents ran out before the end")
    print_mode(report)
    return report


def read_jtl(jtl: Path) -> list[Sample]:
    rows: list[Sample] = []
    with open(jtl, newline="") as stream:
        for row in csv.DictReader(stream):
            rows.append({
                "label": row["label"],
                "start": int(row["timeStamp"]) / 1000,
                "elapsed": int(row["elapsed"]) / 1000,
                "end": (int(row["timeStamp"]) + int(row["elapsed"])) / 1000,
                "status": row["responseCode"] if row["responseCode"][:1].isdigit() else "no answer",
                "success": row["success"] == "true",
                "retried": stack.is_retried(row),
                "code": row.get("code") or "",
                "page": int(row["page"]) if (row.get("page") or "").isdigit() else 0,
            })
    rows.sort(key=lambda r: r["start"])
    return rows


def database_counts(slug: str) -> Counts:
    """Per (code, page): answers stored and page saves logged; per code: answers beyond one per question."""
    stored = {(code, page): n for code, page, n in
              Answer.objects.using("default").filter(respondent__survey__slug=slug)
              .values_list("respondent__access_code", "question__page__position").annotate(n=Count("id"))}
    logged = {(code, page): n for code, page, n in
              PageSave.objects.using("default").filter(respondent__survey__slug=slug)
              .values_list("respondent__access_code", "page").annotate(n=Count("id"))}
    duplicates: defaultdict[str, int] = defaultdict(int)
    for code, n in (Answer.objects.using("default").filter(respondent__survey__slug=slug)
                    .values_list("respondent__access_code", "question").annotate(n=Count("id")).filter(n__gt=1)
                    .values_list("respondent__access_code", "n")):
        duplicates[code] += n - 1
    return stored, logged, duplicates


def recovery(attempts: list[Sample], rows: list[Sample], start: float, acknowledged: Callable[[Sample], bool],
             ) -> float | None:
    """Seconds from the fault until saves went through again: until the first acknowledged save (in the window or
    after it) that ended after the window's last save that was retried, failed, or took longer than SLOW_SAVE_S;
    0 when none was."""
    bad = [r["end"] for r in attempts if not acknowledged(r) or r["elapsed"] > SLOW_SAVE_S]
    if not bad:
        return 0.0
    last_bad = max(bad)
    after = [r["end"] for r in rows if r["label"] == "change_page" and acknowledged(r) and r["end"] > last_bad]
    return round(min(after) - start, 1) if after else None


def percentile(values: list[float], pct: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(len(values) * pct / 100))], 1)


# ---------------------------------------------------------------- printing

def statuses_text(statuses: Mapping[str, int]) -> str:
    return " ".join(f"{status}×{n}" for status, n in statuses.items())


def print_mode(report: Figures) -> None:
    print(f"\n{report['mode']} replication (STACK_PG_SYNCHRONOUS={report['synchronous']}): before the faults "
          f"{report['steady_saves_per_s']} saves/s, {report['steady_answers_per_s']} answers/s, "
          f"p95 save {report['steady_p95_save_ms']} ms")
    header = f"{'fault':<18}{'saves':>7}{'lost':>6}{'dup':>5}{'failed':>8}{'slowest s':>11}{'back after s':>14}  statuses"
    print(header)
    for row in [*report["faults"], {"fault": "whole run", **report["whole_run"]}]:
        back = "-" if row["saves_back_after_s"] is None else row["saves_back_after_s"]
        print(f"{row['fault']:<18}{row['acknowledged_saves']:>7}{row['lost_answers']:>6}{row['duplicates']:>5}"
              f"{row['failed_for_good']:>8}{row['slowest_save_s']:>11}{back:>14}  {statuses_text(row['statuses'])}")


def print_summary(reports: list[Figures], cost: Mapping[str, list[int]] | None, *, master: str = "the master",
                  through: str = "the whole stack") -> None:
    """Synchronous replication's cost, measured in the same run: pgbench on the master, and the steady load."""
    by_mode = {r["mode"]: r for r in reports}
    if not cost or not {"async", "sync"} <= set(by_mode):
        return
    print("\nsynchronous replication's write cost, same run (async -> sync):")
    rows = [(f"page-save transactions/s on {master} (pgbench, mean)",
             round(sum(cost["async"]) / len(cost["async"])), round(sum(cost["sync"]) / len(cost["sync"])))]
    for key, what in (("steady_saves_per_s", f"saves/s through {through}, before the faults"),
                      ("steady_p95_save_ms", f"p95 of a save through {through} (ms), before the faults")):
        rows.append((what, by_mode["async"][key], by_mode["sync"][key]))
    for what, before, after in rows:
        change = f" ({after / before - 1:+.0%})" if before else ""
        print(f"  {what}: {before} -> {after}{change}")

