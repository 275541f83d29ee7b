"""The capacity plan: a survey's peak turned into machines and settings, from costs measured on the target hardware
(`make bench`: jmeter/results/bench.json). The seed talk's spreadsheet, as code; deploy/plan is its command line,
and docs/operations.md ("The capacity model") writes the model down.

It needs neither Django nor a database: only the measurement file. Three laws carry it:
- **request rates**: a respondent of a P-page survey makes 2P + 4 requests (the login form, the login, the survey
  page, a page's content and its save for each page, the completion page), so the peak's takers an hour give
  requests a second by kind;
- **Little's law** (L = λ W): what is held at once is the rate times how long each is held: sessions in Redis,
  respondents taking the survey, requests in flight (and, for the load generator's closed loop in
  ``predict_run``, throughput = threads / (response time + think time));
- **utilisation** (U = X D): the CPU a request costs on each tier (measured per request by the bench) times the
  rate is the cores that tier needs; the database's commits are held against pgbench's page-save ceiling.
"""
import copy
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from statistics import median
from typing import Any, Self

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MEASUREMENTS = Path(__file__).resolve().parent / "plan.bench.json"

# The requests one respondent of a P-page survey makes, by kind (jmeter/plans/survey_taking.jmx and survey.js:
# the survey page shows the first page's form; every page is fetched (content) and saved (change_page)).
def requests_by_kind(pages: int) -> dict[str, int]:
    return {"login_form": 1, "login": 1, "display": 1, "content": pages, "change_page": pages, "complete": 1}


# The bench's CPU lines (bench.stack.cpu_seconds) by the tier that runs them in the deployment (roles): nginx,
# gunicorn and pgbouncer on each web host; PostgreSQL's leader and replicas; Redis and memcached on the cache hosts.
TIERS = {"web": ("gunicorn", "nginx", "pgbouncer"), "leader": ("postgresql_master",),
         "replica": ("postgresql_replica",)}
# pgbouncer's reserve pool (deploy/templates/pgbouncer.ini: reserve_pool_size) above its pool, per pool.
PGBOUNCER_RESERVE = 5
# Server connections that are not the app's: PostgreSQL's superuser reserve (3), Patroni (2), pgBackRest's backup
# (2), monitoring and a person's psql (8).
OTHER_CONNECTIONS = 15
# Redis forks to write its snapshot: copy-on-write can double its memory for that moment.
REDIS_FORK_FACTOR = 2
# The roles' defaults the plan compares with (deploy/ansible/roles/*/defaults/main.yml).
PGBOUNCER_MAX_CLIENTS = 1000
MEMCACHED_DEFAULT_MB = 256


class MeasurementError(Exception):
    """The measurement file lacks what the plan needs (an older bench's, or not a bench's at all)."""


@dataclass(frozen=True)
class Inputs:
    """What ops know about their survey and their machines."""
    pages: int = 55
    questions: float = 5
    conditional_share: float = 0.0  # share of pages carrying skip logic or constraints
    takers_per_hour: int = 50_000
    peak_hours: float = 1.0
    think_s: float = 20.0  # seconds a person spends on a page
    respondents: int = 2_000_000  # everyone on the rosters: the database's size after the survey
    synchronous: bool = True  # Patroni's synchronous mode (the roles' default)
    headroom: float = 0.3  # share of each resource left free at the peak
    web_cores: int = 4
    worker_cores: int = 2
    spare_web_hosts: int = 1  # losing any one web host must leave enough
    web_hosts: int | None = None  # the web hosts there are (None: as many as the peak needs)
    surveys: int = 1  # surveys open at once: their definitions share memcached
    languages: int = 2
    idle_timeout_s: float = 3600  # SESSION_IDLE_TIMEOUT_SECONDS: a session left open is kept this long


class Measurements:
    """What one `make bench` measured, read from its report (bench/survey_bench.py's bench_report)."""

    def __init__(self, report: dict[str, Any], source: object = "?") -> None:
        self.source = str(source)
        try:
            self.machine = report["machine"]
            self.cores = report["settings"]["cores"]
            self.workers = report["settings"]["gunicorn_workers"]
            self.pages = report["pages"]
            self.questions = report["answers_per_page"]
            self.think_s = report["think_s"]
            self.threads = report["threads"]
            self.survey_rps = report["survey_rps"]
            samples = report["samples"]
            # The cores the run kept busy: every process's CPU seconds (the load generator's too) over its length.
            self.busy_cores = sum(report["cpu_s"].values()) / report["duration_s"]
            self.cpu_ms: dict[str, float] = {name: 1000 * seconds / samples for name, seconds in report["cpu_s"].items()}
            self.cpu_ms["gunicorn"] = report["gunicorn_cpu_ms_per_request"]["survey"]
            self.cpu_ms["jmeter"] = report["jmeter_cpu_ms_per_request"]["survey"]
            # gunicorn's CPU a request at a human pace (think time: a worker sleeps between requests, and pays
            # for it in cold caches); None in a bench before it measured one.
            self.paced_gunicorn_ms: float | None = report["gunicorn_cpu_ms_per_request"].get("paced")
            self.conditional_cpu_ratio: float = report.get("conditional_cpu_ratio") or 1.0
            self.mean_ms = report["mean_ms"]
            self.p50_ms = report["p50_ms"]
            self.master_per_request = report["master_transactions_per_request"]
            self.replica_per_request = report["replica_transactions_per_request"]
            self.wal_per_save = report["wal_bytes_per_save"]
            self.row_bytes = report["bytes_per_row"]
            self.session_bytes = report["bytes_per_session"]
            self.cached_bytes_per_page = report["cached_bytes_per_page"]
            self.worker_rss_mb = report["gunicorn_rss_mb_per_worker"]
            self.write_ceiling = report["pgbench_page_saves_per_s"]
            self.backup_compression: float | None = report.get("backup_compression")
            self.jmeter_fixed_s, self.jmeter_ms = jmeter_costs(report.get("jmeter_runs") or [],
                                                               self.cpu_ms["jmeter"])
            self.references = 0
        except (KeyError, TypeError) as missing:
            raise MeasurementError(f"{source}: not a bench report with what the planner needs ({missing} is "
                                   "missing): run `make bench` on this version") from None

    @classmethod
    def load(cls, path: str | Path) -> Self:
        path = Path(path).resolve()
        source = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        try:
            return cls(json.loads(path.read_text()), source=source)
        except (OSError, ValueError) as error:
            raise MeasurementError(f"{path}: {error}") from None

    def with_references(self, references: list[dict[str, Any]] | None) -> Self:
        """Return these measurements with the CPU a request of each process and the busy cores taken from
        ``references`` instead (the medians of `make sizing --reference`'s runs: the bench's main run, repeated in
        the rounds of the runs the check predicts)."""
        if not references:
            return self
        adjusted = copy.copy(self)
        names = {name for run in references for name in run["cpu_s"]}
        adjusted.cpu_ms = {name: median([1000 * run["cpu_s"].get(name, 0.0) / run["samples"] for run in references])
                       for name in names}
        adjusted.cpu_ms["jmeter"] = median([1000 * run["jmeter_cpu_s"] / run["samples"] for run in references])
        adjusted.busy_cores = median([(sum(run["cpu_s"].values()) + run["jmeter_cpu_s"]) / run["duration_s"]
                                  for run in references])
        adjusted.references = len(references)
        return adjusted

    def tier_ms(self, tier: str) -> float:
        """CPU ms a survey request costs ``tier`` (TIERS), as measured."""
        return sum(self.cpu_ms.get(name, 0.0) for name in TIERS[tier])


def jmeter_costs(runs: list[dict[str, Any]], per_request_ms: float) -> tuple[float, float]:
    """Return JMeter's CPU (a fixed cost a run in seconds, a cost a sample in ms) from runs of the same plan and
    different lengths (least squares over their samples and CPU seconds); without two lengths, (0, the measured
    cost a request)."""
    points = [(run["samples"], run["jmeter_cpu_s"]) for run in runs if run["samples"]]
    if len({samples for samples, _ in points}) < 2:
        return 0.0, per_request_ms
    mean_n = sum(n for n, _ in points) / len(points)
    mean_c = sum(c for _, c in points) / len(points)
    slope = (sum((n - mean_n) * (c - mean_c) for n, c in points) / sum((n - mean_n) ** 2 for n, _ in points))
    fixed = mean_c - slope * mean_n
    if slope <= 0 or fixed < 0:
        return 0.0, per_request_ms
    return fixed, slope * 1000


def plan(inputs: Inputs, measured: Measurements) -> dict[str, Any]:
    """Return the plan for ``inputs`` from ``measured``: a dict of sections (``table`` prints it; ``group_vars``
    turns it into the inventory's settings) with the warnings."""
    warnings: list[str] = []
    pages, per_respondent = inputs.pages, 2 * inputs.pages + 4
    arrivals = inputs.takers_per_hour / 3600  # respondents starting a second
    rates = {kind: arrivals * count for kind, count in requests_by_kind(pages).items()}
    rps = sum(rates.values())
    saves = rates["change_page"]
    usable = 1 - inputs.headroom

    # The web tier: CPU per request at a human pace where measured (more than saturated; skip logic scales it by
    # the measured ratio), cores, hosts.
    paced_ms = max(measured.cpu_ms["gunicorn"], measured.paced_gunicorn_ms or 0.0)
    gunicorn_ms = paced_ms * (1 + inputs.conditional_share * (measured.conditional_cpu_ratio - 1))
    web_ms = gunicorn_ms + measured.tier_ms("web") - measured.cpu_ms["gunicorn"]
    web_cores = rps * web_ms / 1000 / usable
    needed_hosts = max(1, math.ceil(web_cores / inputs.web_cores)) + inputs.spare_web_hosts
    web_hosts = inputs.web_hosts or needed_hosts
    workers = 2 * inputs.web_cores + 1
    # A request's time without queueing: every process's CPU on its path (the bench's mean response time is a
    # saturated closed loop's, queueing mostly).
    service_s = sum(measured.cpu_ms.get(name, 0.0) for name in (*WORKER_PATH, "nginx")) / 1000
    taking_s = pages * inputs.think_s + per_respondent * service_s
    in_flight = rps * service_s  # Little's law: requests being served at once
    worker_hosts = 1
    celery = inputs.worker_cores

    # PostgreSQL: commits against pgbench's ceiling in the chosen mode, CPU on the leader and a replica.
    mode = "sync" if inputs.synchronous else "async"
    ceiling = measured.write_ceiling[mode]
    master_tps = rps * measured.master_per_request
    replica_tps = rps * measured.replica_per_request
    write_use = saves / ceiling
    leader_cores = rps * measured.tier_ms("leader") / 1000 / usable
    replica_cores = rps * measured.tier_ms("replica") / 1000 / usable

    # Connections: a sync worker holds at most one server connection of each pgbouncer; a few more for manage.py
    # and the reserve. Every app host's pool may reach one server (the leader; or the last replica standing).
    pool = max(workers, celery) + 5
    app_hosts = web_hosts + worker_hosts
    per_host = pool + PGBOUNCER_RESERVE
    server_connections = app_hosts * per_host + OTHER_CONNECTIONS
    max_connections = max(100, math.ceil(server_connections * 1.1 / 10) * 10)
    clients_per_pgbouncer = workers

    # Memory and disk.
    session_life = taking_s + inputs.idle_timeout_s  # a session left open idles out; a finished one is ended
    sessions = arrivals * session_life
    redis_mb = sessions * measured.session_bytes * REDIS_FORK_FACTOR / 2**20
    cached_mb = inputs.surveys * pages * inputs.languages * measured.cached_bytes_per_page / 2**20
    memcached_mb = max(MEMCACHED_DEFAULT_MB, math.ceil(cached_mb * 4 / 64) * 64)
    worker_ram_mb = workers * measured.worker_rss_mb
    wal_per_hour = saves * 3600 * measured.wal_per_save
    rows = measured.row_bytes
    answers = inputs.respondents * pages * inputs.questions
    database_bytes = (inputs.respondents * (rows["respondent"] + pages * rows["page_save"])
                      + answers * rows["answer"])
    survey_wal = inputs.respondents * pages * measured.wal_per_save
    compression = measured.backup_compression or 1.0
    full_backup = database_bytes / compression
    repository = 2 * full_backup + survey_wal / compression  # two full backups kept, the WAL since the older

    # The most takers an hour the machines carry within the headroom: the web hosts (the spare lost), the leader's
    # commits.
    carried_web = ((web_hosts - inputs.spare_web_hosts) * inputs.web_cores * usable * 1000 / web_ms
                   / per_respondent * 3600)
    carried_database = ceiling * usable / pages * 3600

    # Where the inputs leave what was measured.
    if web_hosts < needed_hosts:
        warnings.append(f"{web_hosts} web hosts carry {carried_web:,.0f} takers an hour with one lost, not "
                        f"{inputs.takers_per_hour:,}: {needed_hosts} are needed")
    if in_flight > (web_hosts - inputs.spare_web_hosts) * workers * usable:
        warnings.append(f"{in_flight:.0f} requests in flight at once for {web_hosts - inputs.spare_web_hosts} x "
                        f"{workers} workers: more workers, or where the services are far, a longer wait")
    if measured.backup_compression is None:
        warnings.append("the bench found no full backup to measure compression by: backup sizes assume none")
    if abs(inputs.questions - measured.questions) > 0.5 * measured.questions:
        warnings.append(f"{inputs.questions:g} questions a page, measured with {measured.questions:g}: a page's "
                        "content and save cost more or less than measured")
    if inputs.conditional_share and measured.conditional_cpu_ratio == 1.0:
        warnings.append("the measurement has no run with skip logic (make bench runs one): its cost is not counted")
    if measured.paced_gunicorn_ms is None:
        warnings.append("the measurement has no run at a human pace (make bench runs one): gunicorn's CPU a "
                        "request is the saturated run's, and at a human pace it is up to a third more")
    if inputs.web_cores != measured.cores:
        warnings.append(f"web hosts of {inputs.web_cores} cores, measured on {measured.cores}: CPU per request is "
                        "taken as the same on each core")
    scale = rps / measured.survey_rps
    if scale > 10:
        warnings.append(f"the peak is {scale:.0f} times the measured throughput: one host's figures scaled out; "
                        "load-test the plan's machines (jmeter/README.md: several load generators)")
    if write_use > usable:
        warnings.append(f"page saves at the peak are {write_use:.0%} of pgbench's {mode} ceiling ({ceiling}/s on the "
                        f"measured machine): over the {usable:.0%} usable; the leader needs faster disks or cores")
    if clients_per_pgbouncer > PGBOUNCER_MAX_CLIENTS:
        warnings.append(f"{clients_per_pgbouncer} clients per pgbouncer exceed max_client_conn "
                        f"{PGBOUNCER_MAX_CLIENTS}")
    if max_connections > 500:
        warnings.append(f"max_connections {max_connections}: each costs the leader memory; fewer workers per host "
                        "or fewer, larger web hosts")
    if inputs.peak_hours * 3600 < taking_s:
        warnings.append(f"the peak ({inputs.peak_hours:g} h) is shorter than a survey takes "
                        f"({taking_s / 60:.0f} min): the rates are an upper bound")

    return {
        "inputs": inputs,
        "measured": measured,
        "rates": {"respondents_per_s": arrivals, "requests_per_s": rps, "by_kind": rates, "saves_per_s": saves,
                  "per_respondent": per_respondent, "taking_min": taking_s / 60,
                  "taking_at_once": arrivals * taking_s, "requests_in_flight": in_flight},
        "carries": {"web": carried_web, "database": carried_database},
        "web": {"cpu_ms_per_request": web_ms, "gunicorn_ms": gunicorn_ms, "cores": web_cores, "hosts": web_hosts,
                "needed_hosts": needed_hosts, "service_ms": service_s * 1000,
                "cores_per_host": inputs.web_cores, "workers_per_host": workers,
                "ram_mb_per_host": worker_ram_mb},
        "worker": {"hosts": worker_hosts, "concurrency": celery},
        "database": {"mode": mode, "master_tps": master_tps, "replica_tps": replica_tps, "write_ceiling": ceiling,
                     "write_use": write_use, "leader_cores": leader_cores, "replica_cores": replica_cores},
        "connections": {"pool": pool, "per_app_host": per_host, "app_hosts": app_hosts,
                        "server_connections": server_connections, "max_connections": max_connections,
                        "clients_per_pgbouncer": clients_per_pgbouncer},
        "memory": {"sessions": sessions, "redis_mb": redis_mb, "cached_mb": cached_mb, "memcached_mb": memcached_mb},
        "disk": {"wal_per_hour": wal_per_hour, "wal_in_peak": wal_per_hour * inputs.peak_hours,
                 "database": database_bytes, "answers": answers, "full_backup": full_backup,
                 "repository": repository, "compression": measured.backup_compression},
        "warnings": warnings,
    }


def size(n: float) -> str:
    """Return ``n`` bytes in decimal units, B to TB."""
    for unit in ("B", "KB", "MB", "GB"):
        if abs(n) < 1000:
            return f"{n:.1f} {unit}" if unit != "B" else f"{n:.0f} B"
        n /= 1000
    return f"{n:.1f} TB"


def table(result: dict[str, Any]) -> str:
    """Return the plan as the table deploy/plan prints."""
    i, m = result["inputs"], result["measured"]
    r, w, d, c = result["rates"], result["web"], result["database"], result["connections"]
    mem, disk = result["memory"], result["disk"]
    lines = [
        f"Plan for {i.takers_per_hour:,} takers an hour ({i.peak_hours:g} h), {i.pages} pages of {i.questions:g} "
        f"questions ({i.conditional_share:.0%} with skip logic), {i.think_s:g} s a page, {d['mode']} replication, "
        f"headroom {i.headroom:.0%}",
        f"from {m.source} ({m.machine})",
        "",
        "At the peak",
        f"  respondents starting a second        {r['respondents_per_s']:.1f}",
        f"  requests a respondent                {r['per_respondent']} (2 x pages + 4)",
        f"  requests a second                    {r['requests_per_s']:,.0f}",
        *[f"    {kind:<34} {rate:,.1f}" for kind, rate in r["by_kind"].items()],
        f"  a survey takes                       {r['taking_min']:.0f} min; {r['taking_at_once']:,.0f} taking it "
        "at once (Little's law)",
        f"  requests in flight                   {r['requests_in_flight']:.1f} (Little's law, "
        f"{w['service_ms']:.1f} ms a request without queueing)",
        f"  transactions a second                leader {d['master_tps']:,.0f}, replicas {d['replica_tps']:,.0f}",
        f"  page saves a second                  {r['saves_per_s']:,.0f} = {d['write_use']:.0%} of pgbench's "
        f"{d['mode']} ceiling ({d['write_ceiling']:,}/s measured)",
        "",
        "Machines and processes",
        f"  web: CPU a request                   {w['cpu_ms_per_request']:.2f} ms (gunicorn {w['gunicorn_ms']:.2f})",
        f"  web: cores needed                    {w['cores']:.1f}",
        f"  web hosts                            {w['hosts']} of {w['cores_per_host']} cores "
        f"({i.spare_web_hosts} spare)",
        f"  gunicorn workers a web host          {w['workers_per_host']} (2 x cores + 1), "
        f"{w['ram_mb_per_host']:,.0f} MB resident",
        f"  Celery: worker hosts, concurrency    {result['worker']['hosts']}, {result['worker']['concurrency']}",
        f"  PostgreSQL cores: leader, a replica  {d['leader_cores']:.1f}, {d['replica_cores']:.1f}",
        "",
        "Connections",
        f"  pgbouncer pool (each of 2 a host)    {c['pool']} (+{PGBOUNCER_RESERVE} reserve); "
        f"{c['clients_per_pgbouncer']} clients of max_client_conn {PGBOUNCER_MAX_CLIENTS}",
        f"  server connections a server may get {c['server_connections']} ({c['app_hosts']} app hosts x "
        f"{c['per_app_host']} + {OTHER_CONNECTIONS})",
        f"  PostgreSQL max_connections          {c['max_connections']}",
        "",
        "Memory and disk",
        f"  sessions in Redis                    {mem['sessions']:,.0f}: {mem['redis_mb']:,.0f} MB with the fork's "
        "copy",
        f"  memcached                            {size(mem['cached_mb'] * 2**20)} of definitions: "
        f"{mem['memcached_mb']} MB",
        f"  WAL                                  {size(disk['wal_per_hour'])} an hour at the peak",
        f"  database after the survey            {size(disk['database'])} ({disk['answers']:,.0f} answers)",
        f"  backups                              {size(disk['full_backup'])} a full backup, "
        f"{size(disk['repository'])} the repository"
        + (f" (compression {disk['compression']:g}x measured)" if disk["compression"] else " (uncompressed)"),
    ]
    carries = result["carries"]
    lines += ["", "The most this plan carries, within the headroom",
              f"  web hosts ({w['hosts'] - i.spare_web_hosts} carrying, {i.spare_web_hosts} spare)"
              f"{carries['web']:>11,.0f} takers an hour",
              f"  the leader's page saves              {carries['database']:,.0f} takers an hour"]
    if result["warnings"]:
        lines += ["", "Warnings"] + [f"  - {warning}" for warning in result["warnings"]]
    return "\n".join(lines)


def group_vars(result: dict[str, Any], *, command: str) -> str:
    """Return the plan's settings as Ansible group variables (group_vars/all/plan.yml of an inventory)."""
    w, c, mem = result["web"], result["connections"], result["memory"]
    return "\n".join([
        f"# Written by deploy/plan: {command}",
        f"# from {result['measured'].source} ({result['measured'].machine}). Run it again rather than edit.",
        "# The playbook checks the inventory against plan_web_hosts and plan_redis_memory_mb (roles/common).",
        "# postgresql_max_connections takes effect when the cluster is made; on a running one:",
        "#   patronictl edit-config -p max_connections=N, then patronictl restart (docs/operations.md).",
        f"plan_web_hosts: {w['hosts']}",
        f"web_gunicorn_workers: {w['workers_per_host']}",
        f"worker_concurrency: {result['worker']['concurrency']}",
        f"pgbouncer_pool_size: {c['pool']}",
        f"postgresql_max_connections: {c['max_connections']}",
        f"patroni_synchronous_mode: {'true' if result['database']['mode'] == 'sync' else 'false'}",
        f"memcached_memory_mb: {mem['memcached_mb']}",
        f"plan_redis_memory_mb: {math.ceil(mem['redis_mb'])}",
        "",
    ])


def as_json(result: dict[str, Any]) -> dict[str, Any]:
    """Return the plan as plain data (deploy/plan --json)."""
    measured = result["measured"]
    return {**{key: value for key, value in result.items() if key not in ("inputs", "measured")},
            "inputs": asdict(result["inputs"]),
            "measurements": {"source": str(measured.source), "machine": measured.machine}}


# ---------------------------------------------------------------- the model against this machine's runs

def mean_value_analysis(threads: int, demand_s: float, servers: float, think_s: float) -> tuple[float, float]:
    """Return (throughput a second, response time s) of ``threads`` closed-loop clients, each thinking ``think_s``
    between requests that need ``demand_s`` of CPU on ``servers`` cores: exact mean value analysis, the multi-core
    station by Seidmann's approximation (a queue of demand D/c followed by a delay of D(c-1)/c)."""
    queued, throughput, response = 0.0, 0.0, demand_s
    for n in range(1, threads + 1):
        waiting = demand_s / servers * (1 + queued)
        response = waiting + demand_s * (servers - 1) / servers
        throughput = n / (response + think_s)
        queued = throughput * waiting
    return throughput, response


def plan_sequence(pages: int) -> list[tuple[str, bool]]:
    """The requests of one pass of survey_taking.jmx, in order, each with whether the think time comes before it."""
    return ([("login_form", False), ("login", False), ("display", False)]
            + [step for _ in range(pages) for step in (("content", False), ("change_page", True))]
            + [("complete", False)])


def samples_in_window(*, threads: int, duration_s: float, rampup_s: float, pages: int, think_s: float,
                      response_s: dict[str, float]) -> int:
    """Return the samples JMeter's closed loop takes in its run: each thread starts at its share of the ramp-up and
    walks the plan's requests (a fresh respondent after each completion), the think time before each save, each
    request taking its kind's response time, until the run's end (JMeter starts no sample after it)."""
    sequence = plan_sequence(pages)
    total = 0
    for thread in range(threads):
        clock, count = rampup_s * thread / threads, 0
        while clock < duration_s:
            for kind, thinks in sequence:
                if thinks:
                    clock += think_s
                if clock >= duration_s:
                    break
                clock += response_s[kind]
                count += 1
        total += count
    return total


def predict_run(measured: Measurements, *, workers: int, pool: int, think_s: float, threads: int, duration_s: float,
                rampup_s: float, pages: int) -> tuple[float, float]:
    """Predict a `make sizing` run on the measured machine (everything, the load generator included, on its
    cores): (requests a second, the save's p50 ms).

    - CPU a request: every process's, as the bench measured it (JMeter's too: it shares the cores); the cores the
      bench kept busy (its CPU seconds over its duration) are the cores a run has, less JMeter's fixed cost a run
      spread over the run (a 30-s run loses a third of a core to it here, a 60-s one a sixth).
    - The closed loop: mean value analysis of ``threads`` clients thinking ``think_s`` a page (spread over a
      respondent's requests) gives the response time; with think time, the samples a run of ``duration_s`` takes
      (its ramp-up and each respondent's first requests without think time) give the throughput.
    - Sync workers: a worker holds a request from gunicorn's first instruction to its last reply from PostgreSQL,
      Redis and memcached, so ``workers`` serve at most workers / that time a second.
    - pgbouncer's pool: a server connection is held for a transaction, so the pool and its reserve serve at most
      (pool + reserve) / the database's time a request.
    - The save's p50: the response time, times the save's share of it in the bench (its p50 over the mix's mean).
    """
    server_ms = sum(ms for name, ms in measured.cpu_ms.items() if name != "jmeter")
    demand_s = (server_ms + measured.jmeter_ms) / 1000
    # JMeter's fixed cost (its start, its plan's compiling) falls inside a run and takes its cores from the load.
    cores = measured.busy_cores - measured.jmeter_fixed_s / duration_s
    per_respondent = 2 * pages + 4
    throughput, response = mean_value_analysis(threads, demand_s, cores, think_s * pages / per_respondent)
    in_worker_s = sum(measured.cpu_ms.get(name, 0.0) for name in WORKER_PATH) / 1000
    in_database_s = sum(measured.cpu_ms.get(name, 0.0) for name in DATABASE_PATH) / 1000
    bound = min(workers / in_worker_s, (pool + PGBOUNCER_RESERVE) / in_database_s)
    if think_s:
        weights = {kind: (measured.mean_ms.get(kind) or measured.mean_ms["Total"]) / measured.mean_ms["Total"]
                   for kind, _ in plan_sequence(1)}
        samples = samples_in_window(threads=threads, duration_s=duration_s, rampup_s=rampup_s, pages=pages,
                                    think_s=think_s, response_s={kind: response * w for kind, w in weights.items()})
        throughput = samples / duration_s
    if throughput > bound:
        throughput, response = bound, threads / bound - think_s * pages / per_respondent
    save_share = measured.p50_ms["change_page"] / measured.mean_ms["Total"]
    return throughput, response * 1000 * save_share


# What a sync worker waits for while it holds a request, and what holds a server connection of pgbouncer's.
WORKER_PATH = ("gunicorn", "pgbouncer", "postgresql_master", "postgresql_replica", "redis", "memcached")
DATABASE_PATH = ("pgbouncer", "postgresql_master")


def by_setting(runs: list[dict[str, Any]]) -> dict[tuple[int, int, float], list[dict[str, Any]]]:
    """Return `make sizing`'s runs grouped by their setting, (workers, pool, think), in their first order."""
    groups: dict[tuple[int, int, float], list[dict[str, Any]]] = {}
    for run in runs:
        groups.setdefault((run["workers"], run["pool"], run["think_s"]), []).append(run)
    return groups


def check(measured: Measurements, sizing: dict[str, Any]) -> list[dict[str, Any]]:
    """Return, for each setting of a `make sizing` run (its repeats' medians), the prediction and the error."""
    rows = []
    for (workers, pool, think), runs in by_setting(sizing["runs"]).items():
        predicted_rps, predicted_p50 = predict_run(
            measured, workers=workers, pool=pool, think_s=think, threads=sizing["threads"],
            duration_s=sizing["duration_s"], rampup_s=sizing.get("rampup_s", min(5, max(1, sizing["threads"] // 10))),
            pages=sizing.get("pages", 20))
        rps = median([run["rps"] for run in runs])
        p50s = [run["change_page_p50_ms"] for run in runs if run["change_page_p50_ms"] is not None]
        p50 = median(p50s) if p50s else None
        rows.append({"workers": workers, "pool": pool, "think_s": think, "runs": [run["rps"] for run in runs],
                     "rps": rps, "predicted_rps": predicted_rps, "rps_error": (predicted_rps - rps) / rps,
                     "p50_ms": p50, "predicted_p50_ms": predicted_p50,
                     "p50_error": (predicted_p50 - p50) / p50 if p50 else None})
    return rows


def check_table(rows: list[dict[str, Any]], *, measured: Measurements, sizing: dict[str, Any],
                tolerance: float) -> str:
    """Return the check's table: per setting, predicted against measured throughput and save p50, and the errors."""
    lines = [f"The model against make sizing on {sizing['machine']}: {sizing['threads']} JMeter threads, "
             f"{sizing['duration_s']} s a run, medians of each setting's runs",
             f"predicted from {measured.source}"
             + (f", CPU a request by process from the median of {measured.references} reference runs"
                if measured.references else ", CPU a request by process from it")
             + f" ({measured.busy_cores:.2f} busy cores; JMeter {measured.jmeter_fixed_s:.1f} CPU s a run + "
             f"{measured.jmeter_ms:.2f} ms a sample)",
             f"{'workers':>7} {'pool':>5} {'think s':>7} {'runs req/s':>22} {'median':>7} {'predicted':>9} "
             f"{'error':>7} {'save p50':>8} {'predicted':>9} {'error':>7}"]
    for row in rows:
        mark = "" if abs(row["rps_error"]) <= tolerance else "  <- off"
        p50_error = f"{row['p50_error']:+.0%}" if row["p50_error"] is not None else "–"
        lines.append(f"{row['workers']:>7} {row['pool']:>5} {row['think_s']:>7g} "
                     f"{' '.join(f'{r:.0f}' for r in row['runs']):>22} {row['rps']:>7.1f} "
                     f"{row['predicted_rps']:>9.1f} {row['rps_error']:>+7.0%} {row['p50_ms'] or '–':>8} "
                     f"{row['predicted_p50_ms']:>9.1f} {p50_error:>7}{mark}")
    return "\n".join(lines)
