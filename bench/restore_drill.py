"""Lose a day's data and get every answer back: a backup under load, a moment T, the answers destroyed, the
database restored to T, and a recount (`make restore-drill` on the one-box stack, `make lab-restore-drill` on the lab).

    manage.py bench restore_drill [--lab] [--threads 8] [--pages 8] [--think 0] [--before 15] [--after 15]
                                  [--destroy drop-answers|delete-answers]
    manage.py bench restore_drill --short        (CI: fewer threads, shorter windows)

Under the JMeter survey-taking load (through the stack's nginx, or the lab's load balancer) it takes a full backup
(deploy/stack backup, deploy/lab backup), lets the load save for --before seconds, notes the moment T, lets it save
--after seconds more, stops the load and destroys the answers the way people do (--destroy: `DROP TABLE
respondents_answer`, or a `DELETE` without a `WHERE`). Then it restores to T (deploy/stack restore --to T,
deploy/lab restore --to T) and recounts, in PostgreSQL, every save JMeter saw acknowledged:

- every save acknowledged before T has all its answers back (missing: a failure);
- no save that started after T has any answer there (present: a failure);
- a save in flight at T may be either.

Last, a respondent takes the survey through the same front door: the app serves again. It prints those counts and
how long the restore took, writes jmeter/results/restore_drill[-lab].json, and exits 1 on any missing answer, any
answer from after T, or an app that does not serve.
"""
import argparse
import csv
import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict, TypeVar

from bench import stack
from bench.drill import (
    PGBENCH_CLIENTS,
    bench_conf,
    free_udp_port,
    pgbench_page_saves,
    read_jtl,
    stop_jmeter,
    wait_for_first_sample,
)
from bench.stack import Figures
from deploy import lab_hosts
from infra.sql import table
from respondents.models import Answer, Respondent
from surveys.models import Page, Question, Survey

ROOT = stack.ROOT
T = TypeVar("T")
DESTROY = {
    "drop-answers": f"DROP TABLE {table(Answer)} CASCADE",
    "delete-answers": f"DELETE FROM {table(Answer)}",
}
# Answers a survey's questions can have per page (grids store one answer per row, not per question: left out, as
# the one-box drill does).
EXPECTED_SQL = f"""
SELECT p.position, count(*) FROM {table(Question)} q JOIN {table(Page)} p ON p.id = q.page_id
JOIN {table(Survey)} s ON s.id = q.survey_id WHERE s.slug = '{{slug}}' AND q.kind <> 'grid' GROUP BY p.position
"""
STORED_SQL = f"""
SELECT r.access_code, p.position, count(*) FROM {table(Answer)} a
JOIN {table(Respondent)} r ON r.id = a.respondent_id JOIN {table(Question)} q ON q.id = a.question_id
JOIN {table(Page)} p ON p.id = q.page_id JOIN {table(Survey)} s ON s.id = r.survey_id
WHERE s.slug = '{{slug}}' GROUP BY r.access_code, p.position
"""


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    target: Stack | Lab = Lab() if args.lab else Stack()
    stack.RESULTS.mkdir(parents=True, exist_ok=True)
    report = run(target, args)
    path = stack.RESULTS / f"restore_drill{'-lab' if args.lab else ''}.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    print_report(report)
    print(f"\nwritten to {path}")
    if report["problems"]:
        sys.exit("restore drill: " + "; ".join(report["problems"]))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lab", action="store_true", help="the lab (deploy/lab up first), not the one-box stack")
    stack.load_arguments(parser, threads=8, think=0, pages=8)
    parser.add_argument("--before", type=int, default=15, help="seconds of saves between the backup and T (15)")
    parser.add_argument("--after", type=int, default=15, help="seconds of saves after T, to be undone (15)")
    parser.add_argument("--destroy", choices=sorted(DESTROY), default="drop-answers",
                        help="how the answers are lost (default drop-answers)")
    parser.add_argument("--cost-seconds", type=int, default=10,
                        help="seconds of each pgbench run measuring WAL archiving's cost (default 10; 0: none)")
    parser.add_argument("--short", action="store_true", help="CI: 4 threads, 5 pages, 6 s before and after T, 5 s runs")
    args = parser.parse_args(argv)
    if args.short:
        args.threads, args.pages, args.before, args.after = min(args.threads, 4), min(args.pages, 5), 6, 6
        args.cost_seconds = min(args.cost_seconds, 5)
    return args


# ---------------------------------------------------------------- where it runs

class Stack:
    """The one-box stack: deploy/stack, its nginx, its master (the tool runs in its environment)."""

    name = "the one-box stack"

    def up(self) -> None:
        stack.stack_env()

    def command(self, *args: str) -> str:
        return run_command([ROOT / "deploy" / "stack", *args])

    def manage(self, *args: str) -> str:
        return stack.manage(*args)

    def front_door(self) -> tuple[str, str]:
        return "127.0.0.1", stack.nginx_port()

    def pgbench_env(self) -> dict[str, str]:
        conf = bench_conf()
        node = self.command("node", "master").strip()
        return {"PATH": "/usr/bin:/bin", "PGHOST": "127.0.0.1", "PGUSER": "postgres",
                "PGPORT": conf["STACK_PG1_PORT"] if node == "pg1" else conf["STACK_PG2_PORT"],
                "PGPASSFILE": str(Path(conf["STACK_DIR"]) / "pgpass")}

    def sql(self, query: str) -> list[list[str]]:
        return psql(query, env=self.pgbench_env())


class Lab:
    """The lab: deploy/lab, its load balancer, the Patroni leader (reached from this machine, the controller)."""

    name = "the lab"

    def up(self) -> None:
        if not lab_hosts.cluster():
            sys.exit("restore drill: the lab does not answer: deploy/lab up first")

    def command(self, *args: str) -> str:
        return run_command([ROOT / "deploy" / "lab", *args])

    def manage(self, *args: str) -> str:
        return self.command("manage", *args)

    def front_door(self) -> tuple[str, str]:
        address = lab_hosts.load_balancer_url().removeprefix("http://")
        host, _, port = address.partition(":")
        return host, port or "80"

    def pgbench_env(self) -> dict[str, str]:
        leader = lab_hosts.leader(seconds=120)
        if not leader:
            raise RuntimeError("the lab's cluster has no leader")
        return {"PATH": "/usr/bin:/bin", "PGHOST": lab_hosts.hosts()[leader], "PGPORT": "5432", "PGUSER": "postgres",
                "PGPASSWORD": (lab_hosts.SECRETS / "postgres-superuser").read_text().strip()}

    def sql(self, query: str) -> list[list[str]]:
        return psql(query, env=self.pgbench_env())


def run_command(command: Sequence[object]) -> str:
    run = subprocess.run([str(part) for part in command], capture_output=True, text=True)
    if run.returncode:
        sys.exit(f"restore drill: {' '.join(str(part) for part in command)} failed:\n{run.stdout}{run.stderr}")
    return run.stdout


def psql(query: str, *, env: Mapping[str, str], database: str = "survey") -> list[list[str]]:
    """Rows of ``query`` as the postgres superuser, in the app's database (on the server ``env`` names: PGHOST,
    PGPORT, PGUSER and a password); columns split."""
    run = subprocess.run(["psql", "-X", "-d", database, "-v", "ON_ERROR_STOP=1", "-AtF", "\t", "-c", query],
                         env=env, capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"psql: {run.stderr.strip()}")
    return [line.split("\t") for line in run.stdout.splitlines() if line]


def with_retries(read: Callable[[], T], seconds: float = 120) -> T:
    """``read()``, asked again while the database is away (a restore's last seconds)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return read()
        except RuntimeError as error:
            if time.monotonic() > deadline:
                raise
            print(f"restore drill: {str(error)[:100]}; trying again...", file=sys.stderr)
            time.sleep(2)


# ---------------------------------------------------------------- the drill

def run(target: Stack | Lab, args: argparse.Namespace) -> Figures:
    print(f"Restore drill on {target.name}: {args.threads} threads, {args.pages} pages, "
          f"{args.before} s before T and {args.after} s after; then {DESTROY[args.destroy]!r}")
    target.up()
    cost = archiving_cost(target, args.cost_seconds, rounds=2) if args.cost_seconds else None
    slug = target.manage("seed_bench_survey", "--pages", str(args.pages)).strip().splitlines()[-1]
    expected = {int(page): int(n) for page, n in with_retries(lambda: target.sql(EXPECTED_SQL.format(slug=slug)))}
    host, port = target.front_door()
    count = 2 * args.threads * (args.before + args.after + 90)
    codes_csv = stack.JMETER / "data" / f"{slug}.csv"
    target.manage("loadtest_respondents", "--survey", slug, "--count", str(count), "--output", str(codes_csv))
    after_csv = stack.JMETER / "data" / f"{slug}-after.csv"
    target.manage("loadtest_respondents", "--survey", slug, "--count", "1", "--output", str(after_csv))
    door = [f"-Jhost={host}", f"-Jport={port}"]

    control_port = free_udp_port()
    jmeter, out = stack.jmeter_start("survey_taking", f"{slug}-restore-drill", threads=args.threads, iterations=-1,
                                     duration=3600, think=args.think, respondents=codes_csv,
                                     extra=[*door, f"-Jjmeterengine.nongui.port={control_port}",
                                            f"-Jjmeterengine.nongui.maxport={control_port}"])
    try:
        wait_for_first_sample(out / "results.jtl", jmeter)
        time.sleep(3)
        started = time.monotonic()
        target.command("backup", "full")
        backup_s = time.monotonic() - started
        print(f"Full backup under load in {backup_s:.1f} s; saving for {args.before} s more")
        time.sleep(args.before)
        moment = time.time()
        print(f"T = {moment_text(moment)}; saving for {args.after} s more (to be undone)")
        time.sleep(args.after)
    finally:
        stop_jmeter(jmeter, control_port)
    rows = read_jtl(out / "results.jtl")
    saves = [r for r in rows if r["label"] == "change_page" and r["success"] and not r["retried"]]
    before = {(r["code"], r["page"]) for r in saves if r["end"] < moment}
    after = {(r["code"], r["page"]) for r in saves if r["start"] > moment}
    in_flight = {(r["code"], r["page"]) for r in saves} - before - after
    print(f"Acknowledged: {len(before)} saves before T, {len(in_flight)} in flight at T, {len(after)} after T")

    target.sql(DESTROY[args.destroy])
    print(f"Destroyed: {DESTROY[args.destroy]}")
    started = time.monotonic()
    restore_output = target.command("restore", "--to", moment_text(moment))
    restore_s = time.monotonic() - started
    print("\n".join(f"  | {line}" for line in restore_output.splitlines()))

    stored = {(code, int(page)): int(n) for code, page, n in
              with_retries(lambda: target.sql(STORED_SQL.format(slug=slug)))}
    missing = sum(max(0, expected[page] - stored.get((code, page), 0)) for code, page in before)
    saves_missing = sum(1 for code, page in before if stored.get((code, page), 0) < expected[page])
    present_after = sum(stored.get(key, 0) for key in after)
    flight_kept = sum(1 for key in in_flight if stored.get(key, 0))

    serves = serves_again(after_csv, door, f"{slug}-after-restore")
    report: Figures = {
        "target": target.name, "survey": slug, "destroy": DESTROY[args.destroy], "moment": moment_text(moment),
        "backup_s": round(backup_s, 1), "restore_s": round(restore_s, 1),
        "saves_before": len(before), "answers_expected_before": sum(expected[p] for _, p in before),
        "answers_missing": missing, "saves_missing": saves_missing,
        "saves_after": len(after), "answers_present_after": present_after,
        "saves_in_flight": len(in_flight), "in_flight_kept": flight_kept,
        "statuses": dict(sorted(Counter(r["status"] for r in rows).items())),
        "serves_again": serves, "page_save_tps": cost, "problems": [],
    }
    if missing:
        report["problems"].append(f"{missing} answers acknowledged before T are MISSING ({saves_missing} saves)")
    if present_after:
        report["problems"].append(f"{present_after} answers saved after T are there")
    if not before:
        report["problems"].append("no save was acknowledged before T")
    if not after:
        report["problems"].append("no save started after T: nothing showed the restore stopping at T")
    if not serves["ok"]:
        report["problems"].append(f"the app does not serve after the restore: {serves['text']}")
    return report


def archiving_cost(target: Stack | Lab, seconds: int, rounds: int) -> dict[str, list[int]]:
    """Page-save transactions a second on the master (pgbench) with WAL archiving on, and paused (archive_command
    '': PostgreSQL keeps the WAL until it is on again, then archives it), alternating so drift falls on both."""
    tps: dict[str, list[int]] = {"archiving": [], "paused": []}
    try:
        for _ in range(rounds):
            for state in tps:
                target.sql("ALTER SYSTEM SET archive_command = ''" if state == "paused"
                           else "ALTER SYSTEM RESET archive_command")
                target.sql("SELECT pg_reload_conf()")
                tps[state].append(pgbench_page_saves(target.pgbench_env(), seconds))
    finally:
        target.sql("ALTER SYSTEM RESET archive_command")
        target.sql("SELECT pg_reload_conf()")
    print(f"Page-save transactions per second on the master (pgbench, {PGBENCH_CLIENTS} clients, {seconds} s each): "
          + "; ".join(f"{state} {values}" for state, values in tps.items()))
    return tps


def moment_text(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + "+00"


class Served(TypedDict):
    """Whether the app served a respondent the whole survey after the restore (``serves_again``), and the counts."""

    ok: bool
    text: str


def serves_again(respondents: Path, door: list[str], name: str) -> Served:
    """One respondent takes the whole survey through the front door: every request answered, saves acknowledged."""
    figures = stack.jmeter_run("survey_taking", name, threads=1, iterations=1, duration=180, think=0,
                               respondents=respondents, extra=door)
    with open(figures["jtl"], newline="") as stream:
        samples = list(csv.DictReader(stream))
    saves = sum(1 for s in samples if s["label"] == "change_page" and s["success"] == "true")
    ok = bool(samples) and not figures["failed"] and saves > 0
    return {"ok": ok, "text": f"{len(samples)} requests, {figures['failed']} failed, {saves} saves acknowledged"}


def print_report(report: Figures) -> None:
    print(f"\nRestore drill on {report['target']}: restored to T = {report['moment']} after {report['destroy']!r}")
    print(f"  full backup under load             {report['backup_s']:>8} s")
    print(f"  restore (to a serving cluster)     {report['restore_s']:>8} s")
    print(f"  saves acknowledged before T        {report['saves_before']:>8}   answers missing: "
          f"{report['answers_missing']} (of {report['answers_expected_before']})")
    print(f"  saves started after T              {report['saves_after']:>8}   answers there: "
          f"{report['answers_present_after']}")
    print(f"  saves in flight at T               {report['saves_in_flight']:>8}   kept: {report['in_flight_kept']}")
    print(f"  statuses under load                {' '.join(f'{s}×{n}' for s, n in report['statuses'].items())}")
    print(f"  the app serves again               {'yes' if report['serves_again']['ok'] else 'NO'}: "
          f"{report['serves_again']['text']}")
    cost = report.get("page_save_tps")
    if cost:
        on, off = (round(sum(cost[k]) / len(cost[k])) for k in ("archiving", "paused"))
        print(f"  WAL archiving's cost (pgbench page saves/s, mean): paused {off} -> archiving {on}"
              f"{f' ({on / off - 1:+.0%})' if off else ''}")
