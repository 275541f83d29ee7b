"""Lose any one machine under load, in both replication modes: does anything acknowledged get lost? (`make lab-drill`)

    manage.py bench lab_drill [--modes sync,async] [--faults a,b] [--threads 8] [--think 0] [--pages 8]
                              [--steady 20] [--settle 8]

What it does, fault by fault, and what it prints: ``--help`` (HELP below) and docs/operations.md,
"Drills across hosts: `make lab-drill`".
"""
import argparse
import base64
import json
import subprocess
import sys
import time
import urllib.request
from typing import Any

from bench import stack
from bench.drill import (
    MODES,
    PGBENCH_CLIENTS,
    Counts,
    drill_arguments,
    faults_under_load,
    free_udp_port,
    judge,
    pgbench_page_saves,
    print_summary,
    stop_jmeter,
)
from bench.restore_drill import EXPECTED_SQL, STORED_SQL, Lab, with_retries
from bench.stack import Figures
from deploy import lab_hosts
from exports.models import ExportJob
from infra.sql import table
from respondents.models import Answer, PageSave, Respondent
from surveys.models import Survey

# The rest of --help: what the drill does, fault by fault, and what it reports.
HELP = """\
The lab's version of `make drill` (bench/drill.py, whose recount and report it shares): machines and networks
instead of processes. Run from this machine, the lab's controller, after `deploy/lab up`. For each replication mode
(Patroni's synchronous_mode on or off, set through its REST API and put back afterwards) it seeds a benchmark
survey, starts the JMeter survey-taking plan through the load balancer (lb1), measures the steady write rate, then
injects each fault in turn, waits until the lab is whole again and --settle seconds more:

    leader-kill        kill of the Patroni leader's host (every process, its link down); start: it rejoins as a replica
    leader-partition   the leader cut off, its processes alive: it must stop taking writes once it loses etcd; heal
    replica-kill       kill of a replica's host (the synchronous standby's, when there is one); start
    web1               kill of web1; start
    redis-primary      kill of the Redis primary's host (the Sentinels promote the replica); start
    memcached          kill of the other cache host (a memcached of the pool, the Redis replica); start
    worker1            kill of worker1 (Celery worker and beat, MinIO, a Sentinel) during an export; start: the
                       export finishes or fails cleanly (never a half file offered), WAL archiving catches up
    web2-from-lb1      web2 and lb1 cut off from each other only (a half-broken network); heal

Then it recounts, on the leader, every save JMeter saw acknowledged and prints per fault: saves acknowledged, lost
answers, duplicates, the statuses people met, the slowest save, how long until saves went through again. Writes
jmeter/results/lab_drill.json. Exits 1 on any duplicated save or answer, any 500, any request that failed for good,
and on any lost answer in synchronous mode; in asynchronous mode the losses of the leader's faults are the
replication-lag window, reported so ops can choose.
"""

FAULTS = ["leader-kill", "leader-partition", "replica-kill", "web1", "redis-primary", "memcached", "worker1",
          "web2-from-lb1"]
LEADER_FAULTS = ("leader-kill", "leader-partition")
DOWN_SECONDS = 5
COUNTS_SQL = {
    "stored": STORED_SQL,
    "logged": f"""SELECT r.access_code, ps.page, count(*) FROM {table(PageSave)} ps
        JOIN {table(Respondent)} r ON r.id = ps.respondent_id JOIN {table(Survey)} s ON s.id = r.survey_id
        WHERE s.slug = '{{slug}}' GROUP BY 1, 2""",
    "doubled": f"""SELECT r.access_code, sum(n - 1) FROM (SELECT respondent_id, question_id, count(*) AS n
        FROM {table(Answer)} GROUP BY 1, 2 HAVING count(*) > 1) d JOIN {table(Respondent)} r ON r.id = d.respondent_id
        JOIN {table(Survey)} s ON s.id = r.survey_id WHERE s.slug = '{{slug}}' GROUP BY 1""",
}


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    lab = LabDrill()
    stack.RESULTS.mkdir(parents=True, exist_ok=True)
    configured = lab.synchronous_mode()
    reports: list[Figures] = []
    cost = None
    try:
        if set(args.modes) >= set(MODES):
            cost = lab.synchronous_cost(seconds=10, rounds=2)
        for mode in args.modes:
            reports.append(run_mode(lab, mode, args))
    finally:
        lab.set_synchronous_mode(configured)
    path = stack.RESULTS / "lab_drill.json"
    path.write_text(json.dumps({"modes": reports, "page_save_tps": cost}, indent=2, default=str) + "\n")
    for report in reports:
        print(f"\n{report['mode']}:")
        print_notes(report)
    print_summary(reports, cost, master="the leader", through="lb1")
    print(f"\nwritten to {path}")
    problems = [problem for report in reports for problem in report["problems"]]
    if problems:
        sys.exit("lab drill: " + "; ".join(problems))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    return drill_arguments(argv, doc=f"{__doc__}\n{HELP}", faults=FAULTS, modes="sync,async", threads=8, whole="the lab")


# ---------------------------------------------------------------- the lab

class LabDrill(Lab):
    """The lab, with what the drill needs beyond the restore drill's: its hosts' state, faults, Patroni's mode."""

    def __init__(self) -> None:
        self.up()
        self.addresses = lab_hosts.hosts()
        self.slug = ""  # the mode's survey (run_mode)
        self.export_job = 0  # the export asked for last (start_export)

    def patroni(self, path: str, *, method: str = "GET", body: object = None, avoid: str | None = None,
                ) -> Any:  # noqa: ANN401 - Patroni's decoded JSON
        """Patroni's REST API on the first member that answers (changes with the password the role made); not on
        ``avoid`` (one cut off, whose every call would wait for the timeout)."""
        for name in [name for name in lab_hosts.group("postgresql") if name != avoid]:
            request = urllib.request.Request(f"http://{self.addresses[name]}:8008/{path}", method=method,
                                             data=json.dumps(body).encode() if body is not None else None)
            if method != "GET":
                password = (lab_hosts.SECRETS / "patroni-rest").read_text().strip()
                request.add_unredirected_header("Authorization", "Basic " + base64.b64encode(
                    f"patroni:{password}".encode()).decode())
                request.add_header("Content-Type", "application/json")
            try:
                with urllib.request.urlopen(request, timeout=3) as response:
                    return json.load(response)
            except OSError:
                continue
        raise RuntimeError("no Patroni member answers")

    def members(self, avoid: str | None = None) -> dict[str, tuple[str, str]]:
        """{name: (role, state)} as Patroni sees them."""
        try:
            return {m["name"]: (m["role"], m["state"]) for m in self.patroni("cluster", avoid=avoid)["members"]}
        except RuntimeError:
            return {}

    def synchronous_mode(self) -> bool:
        return bool(self.patroni("config").get("synchronous_mode"))

    def set_synchronous_mode(self, on: bool) -> None:
        self.patroni("config", method="PATCH", body={"synchronous_mode": bool(on)})
        # Patroni names (or stops naming) a synchronous standby within a loop or two.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            roles = {role for role, _ in self.members().values()}
            if ("sync_standby" in roles) == bool(on):
                return
            time.sleep(1)
        raise RuntimeError(f"Patroni did not turn synchronous_mode {'on' if on else 'off'} within 60 s")

    def whole(self) -> bool:
        """Every host up with every service RUNNING, three members running or streaming, one leader, the Redis
        primary with its replica."""
        members = self.members()
        if len(members) != len(lab_hosts.group("postgresql")):
            return False
        if sum(role == "leader" for role, _ in members.values()) != 1:
            return False
        if any(state not in ("running", "streaming") for _, state in members.values()):
            return False
        status = subprocess.run([str(stack.ROOT / "deploy" / "lab"), "status"], capture_output=True, text=True)
        lines = status.stdout.splitlines()[3:]
        if status.returncode or not lines or any("link up" not in line or "sshd up" not in line for line in lines):
            return False
        # "name address link up sshd up N MB program:STATE …": every program RUNNING.
        if any(not word.endswith(":RUNNING") for line in lines for word in line.split(" MB ", 1)[-1].split()):
            return False
        primary = lab_hosts.sentinel_primary()
        if not primary:
            return False
        by_address = {address: name for name, address in self.addresses.items()}
        return lab_hosts.redis_role(by_address[primary]).get("connected_slaves", "0") != "0"

    def until_whole(self, timeout: float = 240) -> None:
        deadline = time.monotonic() + timeout
        while not self.whole():
            if time.monotonic() > deadline:
                raise RuntimeError("the lab did not come back whole:\n" + self.command("status"))
            time.sleep(1)

    def leader_name(self, other_than: str | None = None, seconds: float = 90) -> str | None:
        return lab_hosts.leader(other_than=other_than, seconds=seconds)

    def current_leader(self) -> str:
        """The leader's name; raise when the cluster has none (a leader's fault has no one to fall on)."""
        name = self.leader_name()
        if name is None:
            raise RuntimeError("the lab's cluster has no leader")
        return name

    def counts(self, slug: str) -> Counts:
        def read(name: str) -> list[list[str]]:
            return with_retries(lambda: self.sql(COUNTS_SQL[name].format(slug=slug)))
        stored = {(code, int(page)): int(n) for code, page, n in read("stored")}
        logged = {(code, int(page)): int(n) for code, page, n in read("logged")}
        doubled = {code: int(n) for code, n in read("doubled")}
        return stored, logged, doubled

    def synchronous_cost(self, seconds: int, rounds: int) -> dict[str, list[int]]:
        """Page-save transactions a second on the leader in each mode, alternating: pgbench from this machine."""
        tps: dict[str, list[int]] = {mode: [] for mode in MODES}
        for _ in range(rounds):
            for mode, setting in MODES.items():
                self.set_synchronous_mode(setting == "on")
                tps[mode].append(pgbench_page_saves(self.pgbench_env(), seconds))
        print("Page-save transactions per second on the leader (pgbench, "
              f"{PGBENCH_CLIENTS} clients, {seconds} s each): " + "; ".join(f"{m} {v}" for m, v in tps.items()))
        return tps


# ---------------------------------------------------------------- the faults

def inject(lab: LabDrill, fault: str, notes: dict[str, Any]) -> str:
    """Do the fault and what the lab (or ops) does about it; return a note of what was done."""
    members = lab.members()
    if fault == "leader-kill":
        old = lab.current_leader()
        lab.command("kill", old)
        started = time.monotonic()
        new = lab.leader_name(other_than=old)
        promoted = time.monotonic() - started
        time.sleep(DOWN_SECONDS)
        lab.command("start", old)
        return f"kill of the leader {old}; {new} led after {promoted:.1f} s; {old} started again"
    if fault == "leader-partition":
        old = lab.current_leader()
        lab.command("partition", old)
        started = time.monotonic()
        # Both, watched together: a new leader among the others, and the old one, cut off from etcd, demoting
        # itself (read-only, or its PostgreSQL stopped) so that it takes no write nobody else will have.
        successor: str | None = None
        led_after: float | None = None
        read_only: float | None = None
        while (successor is None or read_only is None) and time.monotonic() - started < 90:
            if read_only is None:
                answer = lab_hosts.in_host(old, "runuser", "-u", "postgres", "--", "psql", "-X", "-qtA", "-h",
                                           str(stack.ROOT / ".lab" / old / "run" / "postgresql"), "-d", "postgres",
                                           "-c", "SELECT pg_is_in_recovery()")
                if answer.returncode or answer.stdout.strip() == "t":
                    read_only = time.monotonic() - started
            if successor is None:
                successor = next((name for name, (role, state) in lab.members(avoid=old).items()
                                  if role == "leader" and state == "running" and name != old), None)
                led_after = time.monotonic() - started if successor else None
            time.sleep(0.5)
        notes["old_leader_read_only_after_s"] = None if read_only is None else round(read_only, 1)
        notes["new_leader_after_s"] = None if led_after is None else round(led_after, 1)
        lab.command("heal", old)
        return (f"{old} (leader) cut off; {successor} led after {'-' if led_after is None else f'{led_after:.1f}'} s; "
                f"{old} stopped taking writes after {'-' if read_only is None else f'{read_only:.1f}'} s; healed")
    if fault == "replica-kill":
        replicas = [name for name, (role, _) in members.items() if role == "sync_standby"] or \
                   [name for name, (role, _) in members.items() if role == "replica"]
        victim = replicas[0]
        lab.command("kill", victim)
        time.sleep(DOWN_SECONDS)
        lab.command("start", victim)
        return f"kill of {victim} ({members[victim][0].replace('_', ' ')}); {DOWN_SECONDS} s; started"
    if fault == "web1":
        lab.command("kill", "web1")
        time.sleep(DOWN_SECONDS)
        lab.command("start", "web1")
        return f"kill of web1; {DOWN_SECONDS} s; started"
    if fault in ("redis-primary", "memcached"):
        by_address = {address: name for name, address in lab.addresses.items()}
        primary_address = lab_hosts.sentinel_primary()
        if primary_address is None:
            raise RuntimeError("the Sentinels name no Redis primary")
        primary = by_address[primary_address]
        victim = primary if fault == "redis-primary" else next(
            name for name in lab_hosts.group("memcached") if name != primary)
        lab.command("kill", victim)
        started = time.monotonic()
        if fault == "redis-primary":
            lab_hosts.wait_for(lambda: lab_hosts.sentinel_primary() not in (None, lab.addresses[victim]), 60)
        promoted = time.monotonic() - started
        time.sleep(max(0.0, DOWN_SECONDS - promoted))
        lab.command("start", victim)
        what = f"Redis primary; the Sentinels promoted after {promoted:.1f} s" if fault == "redis-primary" else \
            "a memcached of the pool and the Redis replica"
        return f"kill of {victim} ({what}); started"
    if fault == "worker1":
        job = start_export(lab)
        # Killed as soon as the worker has taken the job and is writing it (the database says so at once).
        deadline = time.monotonic() + 60
        state: str | None = "queued"
        while state == "queued" and time.monotonic() < deadline:
            state = export_status(lab, job)
        lab.command("kill", "worker1")
        notes["export_when_killed"] = export_status(lab, job)
        time.sleep(DOWN_SECONDS)
        lab.command("start", "worker1")
        return f"kill of worker1 (Celery, beat, MinIO) during export {job} ({state}); {DOWN_SECONDS} s; started"
    if fault == "web2-from-lb1":
        lab.command("partition", "web2", "--from", "lb1")
        time.sleep(3 * DOWN_SECONDS)
        lab.command("heal", "web2")
        return f"web2 and lb1 cut off from each other for {3 * DOWN_SECONDS} s; healed"
    raise ValueError(fault)


def start_export(lab: LabDrill) -> int:
    """Ask for an export of the drill's survey as a state administrator would (the staff area's own code)."""
    output = lab.manage("drill_export", "start", "--survey", lab.slug, "--format", "xlsx")
    lab.export_job = int(output.strip().splitlines()[-1])
    return lab.export_job


def export_status(lab: LabDrill, job: int) -> str | None:
    rows = lab.sql(f"SELECT status FROM {table(ExportJob)} WHERE id = {int(job)}")
    return rows[0][0] if rows else None


def export_outcome(lab: LabDrill, job: int, timeout: float = 300) -> dict[str, Any]:
    """Wait until the export is finished: done with its whole file, or failed cleanly (no file), in which case it
    is asked for again, as its person would, and that one must be done whole."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        state = json.loads(lab.manage("drill_export", "check", "--job", str(job)).strip().splitlines()[-1])
        if state["finished"]:
            state["finished_after_s"] = round(time.monotonic() - started, 1)
            if state["status"] == "failed" and not state["file"]:
                again = start_export(lab)
                while time.monotonic() - started < 2 * timeout:
                    retry = json.loads(lab.manage("drill_export", "check", "--job", str(again)).strip().splitlines()[-1])
                    if retry["finished"]:
                        state["asked_again"] = retry
                        break
                    time.sleep(2)
            return state
        time.sleep(2)
    return {"finished": False, "status": "still running", "waited_s": timeout}


# ---------------------------------------------------------------- one mode

def run_mode(lab: LabDrill, mode: str, args: argparse.Namespace) -> Figures:
    print(f"\n=== {mode}: Patroni synchronous_mode {MODES[mode]} ===", flush=True)
    lab.set_synchronous_mode(MODES[mode] == "on")
    lab.until_whole()
    slug = lab.manage("seed_bench_survey", "--pages", str(args.pages)).strip().splitlines()[-1]
    lab.slug = slug
    expected = {int(page): int(n) for page, n in with_retries(lambda: lab.sql(EXPECTED_SQL.format(slug=slug)))}
    planned = args.steady + len(args.faults) * (args.settle + 60) + 60
    # At least 20,000: the export killed with worker1 must take long enough (an XLSX of them, some seconds) to be
    # caught running.
    count = max(2 * args.threads * planned, 20000)
    codes_csv = stack.JMETER / "data" / f"{slug}.csv"
    lab.manage("loadtest_respondents", "--survey", slug, "--count", str(count), "--output", str(codes_csv))
    host, port = lab.front_door()
    door = [f"-Jhost={host}", f"-Jport={port}"]

    print(f"Load through lb1: {args.threads} threads, think {args.think} s, {args.pages} pages; "
          f"{args.steady} s steady first.", flush=True)
    control_port = free_udp_port()
    run, out = stack.jmeter_start("survey_taking", f"{slug}-lab-drill-{mode}", threads=args.threads, iterations=-1,
                                  duration=7200, think=args.think, respondents=codes_csv,
                                  extra=[*door, f"-Jjmeterengine.nongui.port={control_port}",
                                         f"-Jjmeterengine.nongui.maxport={control_port}"])
    notes: dict[str, dict[str, Any]] = {}

    def after_fault(fault: str) -> None:
        if fault == "worker1":  # the export asked for before the kill: finished, or failed and asked again
            notes[fault]["export"] = export_outcome(lab, lab.export_job)
            print(f"{'':10}the export: {notes[fault]['export']}", flush=True)

    try:
        steady, windows = faults_under_load(args, run, out / "results.jtl",
                                            lambda fault: inject(lab, fault, notes.setdefault(fault, {})),
                                            lab.until_whole, after_fault)
    finally:
        stop_jmeter(run, control_port)
    print("Recounting every acknowledged save on the leader...", flush=True)
    report = judge(mode, slug, out / "results.jtl", expected, steady, windows, count, counts=lab.counts,
                   lag_window_faults=LEADER_FAULTS)
    report["notes"] = notes
    report["synchronous"] = MODES[mode]
    for fault, fault_notes in notes.items():
        export = fault_notes.get("export")
        if not export:
            continue
        whole = export.get("status") == "done" and export.get("whole_file")
        asked_again = export.get("asked_again") or {}
        failed_cleanly = export.get("status") == "failed" and not export.get("file") and \
            asked_again.get("status") == "done" and asked_again.get("whole_file")
        if not (whole or failed_cleanly):
            report["problems"].append(f"{mode}: the export during {fault} ended {export}")
    return report


def print_notes(report: Figures) -> None:
    for fault, notes in report.get("notes", {}).items():
        for key, value in notes.items():
            print(f"  {fault}: {key} = {value}")

