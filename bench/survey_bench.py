"""The survey-taking load through the one-box production stack, against its floor and ceiling (`make bench`,
`make smoke`).

    manage.py bench survey_bench [--duration 60] [--threads 50] [--think 0] [--pages 20] [--respondents N]
                                 [--conditions]
    manage.py bench survey_bench --smoke [--conditions]   (CI: a few threads, a few surveys, the data check, the
                                                           floor; no ceiling)

``make bench`` and ``make smoke`` run it through jmeter/bench, which installs JMeter first.

Brings the stack up (or uses the running one), creates a fresh benchmark survey
and respondents, warms the definition cache, runs jmeter/plans/survey_taking.jmx
and then, with the same JMeter and the same threads, jmeter/plans/floor.jmx
against /bench/floor/ (what a survey request cannot avoid: bench/floor) and
jmeter/plans/ceiling.jmx against /ping/, with each run's gunicorn CPU per
request. With --conditions it runs, before the floor, the same survey
carrying skip logic and constraints that hold for every answer the plan gives
(``seed_bench_survey --conditions``): the same requests meeting rules, in
--compare-rounds pairs of runs with and without them, alternating which goes
first; ``conditional_ratio`` is the median of the pairs' throughput ratios. Prints one table and writes it as JSON to
jmeter/results/bench.json (smoke: smoke.json). Exits 1 when a sample failed or
the data check finds an acknowledged save missing from PostgreSQL (LOST).
"""
import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, TypedDict

from bench import drill
from bench.stack import (
    JMETER,
    RESULTS,
    VIEWS,
    Figures,
    answerable_per_page,
    backup_compression,
    cpu_seconds,
    data_check,
    gunicorn_rss_per_worker,
    jmeter_run,
    load_arguments,
    machine,
    manage,
    master_transactions,
    master_wal_bytes,
    memcached_bytes,
    replica_lag,
    row_footprint,
    session_footprint,
    transactions,
)


class Taking(TypedDict):
    """A bench survey seeded for a run, and its respondents (``prepare``)."""

    slug: str
    expected_per_page: Counter[int]  # answerable questions by page position
    codes: Path  # the access codes' CSV, for JMeter
    count: int


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    RESULTS.mkdir(parents=True, exist_ok=True)
    # What the definitions of a page take in memcached (a smoke run measures none).
    cached_before = 0 if args.smoke else memcached_bytes()
    plain = prepare(args)
    definition_bytes = 0.0 if args.smoke else max(memcached_bytes() - cached_before, 0) / args.pages
    ruled = prepare(args, conditions=True) if args.conditions else None

    if args.smoke:
        report: Figures = {"mode": "smoke", "survey": plain["slug"], "threads": args.threads}
        for taking, prefix in ((plain, ""), (ruled, "conditional_")):
            if taking is None:
                continue
            run = jmeter_run("survey_taking", f"{taking['slug']}-smoke", threads=args.threads, iterations=2,
                             duration=300, think=args.think, respondents=taking["codes"])
            check = data_check(run["jtl"], taking["slug"], taking["expected_per_page"])
            report.update({f"{prefix}{key}": value for key, value in {
                "failed_samples": run["failed"], "retried_samples": run["retried"], "samples": run["samples"],
                **check}.items()})
        floor = jmeter_run("floor", f"{plain['slug']}-floor-smoke", threads=args.threads, iterations=2, duration=60,
                           think=0)
        report.update(floor_samples=floor["samples"], floor_failed_samples=floor["failed"])
        write_and_judge(report, RESULTS / "smoke.json", smoke=True)
        return

    print(f"Survey-taking load: {args.threads} threads, {args.duration} s, think {args.think} s...")
    cpu_before, tps_before, started = cpu_seconds(), master_transactions(), time.monotonic()
    replica_before, wal_before = transactions("replica"), master_wal_bytes()
    survey = jmeter_run("survey_taking", plain["slug"], threads=args.threads, iterations=-1, duration=args.duration,
                        think=args.think, respondents=plain["codes"])
    elapsed = time.monotonic() - started
    cpu_after, tps_after = cpu_seconds(), master_transactions()
    replica_after, wal_after = transactions("replica"), master_wal_bytes()
    lag = replica_lag()
    footprint = {"bytes_per_row": row_footprint(), **session_footprint(), "wal_bytes": wal_after - wal_before,
                 "cached_bytes_per_page": round(definition_bytes), "gunicorn_rss_mb_per_worker": gunicorn_rss_per_worker(),
                 "replica_tps": (replica_after - replica_before) / elapsed, "backup_compression": backup_compression()}
    conditional = compare_conditions(args, plain, ruled) if ruled else {}
    print(f"Floor: /bench/floor/ with the same {args.threads} threads for {args.duration} s...")
    floor = cpu_measured_run("floor", f"{plain['slug']}-floor", threads=args.threads, iterations=-1,
                             duration=args.duration, think=0)
    print(f"Ceiling: /ping/ with the same {args.threads} threads for {args.duration} s...")
    ceiling = cpu_measured_run("ceiling", f"{plain['slug']}-ceiling", threads=args.threads, iterations=-1,
                               duration=args.duration, think=0)
    print(f"At a human pace: the survey with the same {args.threads} threads, think {PACED_THINK_S} s, "
          f"{args.paced_duration} s...")
    paced = cpu_measured_run("survey_taking", f"{plain['slug']}-paced", threads=args.threads, iterations=-1,
                             duration=args.paced_duration, think=PACED_THINK_S,
                             respondents=respondents_csv(plain, 2 * args.threads, "paced"))
    paced["gunicorn_idle_cpu_per_s"] = idle_gunicorn_cpu(IDLE_SECONDS)
    check = data_check(survey["jtl"], plain["slug"], plain["expected_per_page"])
    print(f"The database's write ceiling: pgbench page saves on the master, {args.pgbench_seconds} s in each "
          "replication mode...")
    ceiling_tps = write_ceiling(args.pgbench_seconds)

    report = bench_report(args, plain, survey=survey, floor=floor, ceiling=ceiling, check=check,
                          cpu_spent={name: cpu_after[name] - cpu_before.get(name, 0.0) for name in cpu_after},
                          master_tps=(tps_after - tps_before) / elapsed, replica_lag=lag, conditional=conditional,
                          machine=machine(), footprint=footprint, pgbench_tps=ceiling_tps, paced=paced)
    write_and_judge(report, RESULTS / "bench.json", smoke=False)


PACED_THINK_S = 5  # seconds a page in the run at a human pace


def bench_report(args: argparse.Namespace, plain: Taking, *, survey: Figures, floor: Figures, ceiling: Figures,
                 check: Figures, cpu_spent: dict[str, float], master_tps: float, replica_lag: float | None,
                 conditional: Figures, machine: str, footprint: Figures, pgbench_tps: dict[str, float],
                 paced: Figures, settings: dict[str, Any] | None = None) -> Figures:
    """Return the bench's report: the survey's run against the floor's and the ceiling's (``cpu_measured_run``'s
    figures), the data check of the survey's run, the CPU seconds each component spent meanwhile, the master's
    transactions a second, the replica's lag, the comparison with skip logic (``compare_conditions``), and what
    deploy/plan sizes a survey from: what a session, a row and a save cost in memory, on disk and in WAL
    (``footprint``), pgbench's page saves a second in each replication mode, gunicorn's CPU a request at a human
    pace (``paced``: the survey with think time, where a worker sleeps between requests), and the stack's
    settings."""
    duration_s = survey["duration_s"]
    cpu = {name: round(seconds, 2) for name, seconds in cpu_spent.items()}
    cpu["jmeter"] = round(survey["jmeter_cpu_s"], 1)
    survey_cpu_ms = round(1000 * cpu["gunicorn"] / max(survey["samples"], 1), 3)
    survey_rps = survey["samples"] / duration_s
    settings = settings or stack_settings()
    return {
        "mode": "bench",
        "survey": plain["slug"],
        "pages": args.pages,
        "threads": args.threads,
        "duration_s": round(duration_s, 1),
        "think_s": args.think,
        "survey_rps": round(survey["rps"], 1),
        "ceiling_rps": round(ceiling["rps"], 1),
        "ratio": round(survey["rps"] / ceiling["rps"], 3) if ceiling["rps"] else None,
        "floor_rps": round(floor["rps"], 1),
        "floor_ratio": round(survey["rps"] / floor["rps"], 3) if floor["rps"] else None,
        "gunicorn_cpu_ms_per_request": {
            "survey": survey_cpu_ms,
            "floor": floor["gunicorn_cpu_ms_per_request"],
            "ping": ceiling["gunicorn_cpu_ms_per_request"],
            # At a human pace, less what gunicorn spends with no request at all (its arbiter, the workers'
            # heartbeats) over the run: what each request costs when workers sleep between requests.
            "paced": paced_cpu_ms(paced),
        },
        "gunicorn_idle_cpu_per_s": paced["gunicorn_idle_cpu_per_s"],
        # The hot path's cost against what a survey request cannot avoid, measured in one run: a regression in the
        # survey's code shows here whatever the machine's speed that day.
        "survey_cpu_over_floor": (round(survey_cpu_ms / floor["gunicorn_cpu_ms_per_request"], 3)
                                  if floor["gunicorn_cpu_ms_per_request"] else None),
        # JMeter's CPU, samples and length of each run of the plain survey (this one, then the shorter runs of the
        # comparison): a fixed cost a run (the JVM's start, compiling the plan's Groovy) and a cost a sample, which
        # deploy/capacity.py tells apart.
        "jmeter_runs": [jmeter_run_cost(survey), *conditional.get("unconditional_jmeter_runs", [])],
        # The load generator shares the machine: what each plan costs it per request weighs on every ratio.
        "jmeter_cpu_ms_per_request": {
            name: round(1000 * run["jmeter_cpu_s"] / max(run["samples"], 1), 3)
            for name, run in (("survey", survey), ("floor", floor), ("ping", ceiling))
        },
        "mean_ms": {v: survey["latency"].get(v, {}).get("mean") for v in [*VIEWS, "Total"]},
        "p50_ms": {v: survey["latency"].get(v, {}).get("p50") for v in VIEWS},
        "p95_ms": {v: survey["latency"].get(v, {}).get("p95") for v in VIEWS},
        "p99_ms": {v: survey["latency"].get(v, {}).get("p99") for v in VIEWS},
        "failed_samples": survey["failed"] + floor["failed"] + ceiling["failed"] + paced["failed"],
        "paced_think_s": PACED_THINK_S,
        "paced_rps": round(paced["rps"], 1),
        "retried_samples": survey["retried"],
        "samples": survey["samples"],
        "surveys_per_s": round(check["completed_acknowledged"] / duration_s, 2),
        "surveys_per_hour": round(check["completed_acknowledged"] / duration_s * 3600),
        "answers_per_s": round(check["acknowledged_answers"] / duration_s, 1),
        "master_tps": round(master_tps, 1),
        "replica_tps": round(footprint["replica_tps"], 1),
        "replica_lag_s": replica_lag,
        "cpu_s": cpu,
        "respondents_created": plain["count"],
        **check,
        **conditional,
        # What deploy/plan needs besides CPU: per request and per save, and what memory and disk a respondent takes.
        "requests_per_respondent": 2 * args.pages + 4,  # login form, login, display, a content and a save a page, complete
        "answers_per_page": round(sum(plain["expected_per_page"].values()) / max(len(plain["expected_per_page"]), 1), 2),
        "master_transactions_per_request": round(master_tps / survey_rps, 3) if survey_rps else None,
        "replica_transactions_per_request": round(footprint["replica_tps"] / survey_rps, 3) if survey_rps else None,
        "wal_bytes_per_save": (round(footprint["wal_bytes"] / check["acknowledged_saves"])
                               if check["acknowledged_saves"] else None),
        "bytes_per_row": footprint["bytes_per_row"],
        "bytes_per_session": footprint["bytes_per_session"],
        "sessions_in_redis": footprint["sessions"],
        "cached_bytes_per_page": footprint["cached_bytes_per_page"],
        "gunicorn_rss_mb_per_worker": footprint["gunicorn_rss_mb_per_worker"],
        "pgbench_page_saves_per_s": pgbench_tps,
        "backup_compression": footprint.get("backup_compression"),  # database bytes per repository byte
        "settings": settings,
        "machine": machine,
    }


def stack_settings() -> dict[str, Any]:
    """Return the stack's settings the run had (deploy/stack.conf with this process's overrides) and the cores."""
    conf = drill.bench_conf()
    return {"cores": os.cpu_count(), "gunicorn_workers": int(conf["STACK_GUNICORN_WORKERS"]),
            "pgbouncer_pool": int(conf["STACK_PGBOUNCER_POOL_SIZE"]),
            "celery_concurrency": int(conf["STACK_CELERY_CONCURRENCY"]),
            "synchronous": conf["STACK_PG_SYNCHRONOUS"] == "on"}


def write_ceiling(seconds: int) -> dict[str, float]:
    """Return pgbench's page saves a second on the master in each replication mode ({"async": n, "sync": n}: the
    database's write ceiling, bench.drill's), and put the stack's own mode back."""
    configured = os.environ.get("STACK_PG_SYNCHRONOUS")
    try:
        tps = drill.synchronous_cost(seconds, rounds=1)
    finally:
        drill.restore_env("STACK_PG_SYNCHRONOUS", configured)
        drill.deploy_stack("reload", "master")
    return {mode: values[0] for mode, values in tps.items()}


IDLE_SECONDS = 10


def idle_gunicorn_cpu(seconds: float) -> float:
    """Return gunicorn's CPU seconds a second with no load at all (measured over ``seconds``)."""
    before = cpu_seconds()["gunicorn"]
    time.sleep(seconds)
    return round((cpu_seconds()["gunicorn"] - before) / seconds, 4)


def paced_cpu_ms(run: Figures) -> float:
    """Return a paced run's gunicorn CPU a request, less its idle CPU over the run's length."""
    idle_ms = 1000 * run["gunicorn_idle_cpu_per_s"] * run["duration_s"] / max(run["samples"], 1)
    return round(max(run["gunicorn_cpu_ms_per_request"] - idle_ms, 0.0), 3)


def jmeter_run_cost(run: Figures) -> Figures:
    return {"samples": run["samples"], "jmeter_cpu_s": round(run["jmeter_cpu_s"], 2),
            "duration_s": round(run["duration_s"], 1)}


def cpu_measured_run(plan: str, name: str, **kwargs: Any) -> Figures:
    """``jmeter_run`` a plan; return its figures with the gunicorn CPU it cost per request
    (``gunicorn_cpu_ms_per_request``)."""
    before = cpu_seconds()["gunicorn"]
    figures = jmeter_run(plan, name, **kwargs)
    spent = cpu_seconds()["gunicorn"] - before
    return {**figures, "gunicorn_cpu_ms_per_request": round(1000 * spent / max(figures["samples"], 1), 3)}


def compare_conditions(args: argparse.Namespace, plain: Taking, ruled: Taking) -> Figures:
    """Run the survey with and without skip logic in alternating pairs (this machine's speed drifts within minutes,
    so one run of each says little); return the median ratio, every pair's, and the data check of the runs with it."""
    ratios: list[float | None] = []
    p99: list[float | None] = []
    jmeter_runs: list[Figures] = []
    failed, lost, completed_lost, saves = 0, 0, 0, 0
    # gunicorn CPU per request, each run: steadier than throughput here
    cpu_ms: dict[bool, list[float]] = {True: [], False: []}
    for round_ in range(1, args.compare_rounds + 1):
        order = [(ruled, True), (plain, False)] if round_ % 2 else [(plain, False), (ruled, True)]
        rps: dict[bool, float] = {}
        for taking, with_rules in order:
            label = "with" if with_rules else "without"
            print(f"Compare, round {round_}: {label} skip logic, {args.compare_duration} s...")
            codes = respondents_csv(taking, args.threads + args.compare_duration * 40, f"r{round_}")
            run = cpu_measured_run("survey_taking", f"{taking['slug']}-r{round_}", threads=args.threads,
                                   iterations=-1, duration=args.compare_duration, think=args.think, respondents=codes)
            rps[with_rules] = run["rps"]
            if not with_rules:
                jmeter_runs.append(jmeter_run_cost(run))
            cpu_ms[with_rules].append(run["gunicorn_cpu_ms_per_request"])
            failed += run["failed"]
            if with_rules:
                check = data_check(run["jtl"], taking["slug"], taking["expected_per_page"])
                lost += check["lost_answers"]
                completed_lost += check["completed_lost"]
                saves += check["acknowledged_saves"]
                p99.append(run["latency"].get("change_page", {}).get("p99"))
        ratios.append(round(rps[True] / rps[False], 3) if rps[False] else None)
    known = sorted(r for r in ratios if r is not None)
    with_cpu, without_cpu = sorted(cpu_ms[True]), sorted(cpu_ms[False])
    return {
        "conditional_survey": ruled["slug"],
        "conditional_ratio": known[len(known) // 2] if known else None,
        "conditional_ratios": ratios,
        "conditional_gunicorn_cpu_ms_per_request": cpu_ms[True],
        "unconditional_gunicorn_cpu_ms_per_request": cpu_ms[False],
        "conditional_cpu_ratio": round(with_cpu[len(with_cpu) // 2] / without_cpu[len(without_cpu) // 2], 3)
        if without_cpu and without_cpu[len(without_cpu) // 2] else None,
        "conditional_change_page_p99_ms": p99,
        "conditional_failed_samples": failed,
        "unconditional_jmeter_runs": jmeter_runs,
        "conditional_lost_answers": lost,
        "conditional_completed_lost": completed_lost,
        "conditional_acknowledged_saves": saves,
    }


def respondents_csv(taking: Taking, count: int, name: str) -> Path:
    """Write ``count`` fresh respondents of the survey ``taking`` to a codes file for one JMeter run; return it."""
    codes = JMETER / "data" / f"{taking['slug']}-{name}.csv"
    manage("loadtest_respondents", "--survey", taking["slug"], "--count", str(count), "--output", str(codes))
    return codes


def prepare(args: argparse.Namespace, *, conditions: bool = False) -> Taking:
    """Seed a benchmark survey (with skip logic if ``conditions``) and its respondents; warm the cache with one."""
    flags = ["--conditions", "--slug", time.strftime("bench-rules-%Y%m%d-%H%M%S", time.gmtime())] if conditions else []
    slug = manage("seed_bench_survey", "--pages", str(args.pages), *flags).strip()
    expected_per_page = answerable_per_page(slug)
    count = args.respondents or (2 * args.threads if args.smoke else args.threads + args.duration * 40)
    codes_csv = JMETER / "data" / f"{slug}.csv"
    manage("loadtest_respondents", "--survey", slug, "--count", str(count), "--output", str(codes_csv))
    warm_csv = JMETER / "data" / f"{slug}-warm.csv"
    manage("loadtest_respondents", "--survey", slug, "--count", "1", "--output", str(warm_csv))
    kind = "with skip logic" if conditions else "without skip logic"
    print(f"Survey {slug} ({kind}): {args.pages} pages, {sum(expected_per_page.values())} answers a response; "
          f"{count} respondents.")
    print("Warming the cache with one respondent...")
    jmeter_run("survey_taking", f"{slug}-warm", threads=1, iterations=1, duration=120, think=0, respondents=warm_csv)
    return {"slug": slug, "expected_per_page": expected_per_page, "codes": codes_csv, "count": count}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    load_arguments(parser, duration=60, threads=50, think=0, pages=20)
    parser.add_argument("--respondents", type=int, help="respondents to create (default: enough for the run)")
    parser.add_argument("--smoke", action="store_true", help="CI: a few threads, two surveys each, the data check")
    parser.add_argument("--conditions", action="store_true",
                        help="also run the same survey with skip logic and constraints, and compare (same run)")
    parser.add_argument("--compare-rounds", type=int, default=3,
                        help="with --conditions: pairs of runs with and without skip logic, order alternating (3)")
    parser.add_argument("--compare-duration", type=int, default=20, help="seconds of each of those runs (20)")
    parser.add_argument("--paced-duration", type=int, default=30,
                        help=f"seconds of the run at a human pace (think {PACED_THINK_S} s): its CPU a request (30)")
    parser.add_argument("--pgbench-seconds", type=int, default=10,
                        help="seconds of pgbench's page saves in each replication mode: the write ceiling (10)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.threads = min(args.threads, 3)
        args.pages = min(args.pages, 5)
    return args


def write_and_judge(report: Figures, path: Path, *, smoke: bool) -> None:
    path.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print()
    rows: list[tuple[str, object]]
    if smoke:
        rows = [("samples", report["samples"]), ("failed samples", report["failed_samples"]),
                ("retried (502/503/504/none)", report["retried_samples"]),
                ("acknowledged saves", report["acknowledged_saves"]), ("answers in PostgreSQL", report["answers_in_database"]),
                ("LOST answers", report["lost_answers"]), ("completions lost", report["completed_lost"]),
                ("floor: samples / failed", f"{report['floor_samples']} / {report['floor_failed_samples']}")]
        if "conditional_samples" in report:
            rows += [("with skip logic: samples", report["conditional_samples"]),
                     ("with skip logic: failed samples", report["conditional_failed_samples"]),
                     ("with skip logic: acknowledged saves", report["conditional_acknowledged_saves"]),
                     ("with skip logic: LOST answers", report["conditional_lost_answers"])]
    else:
        rows = [
            ("machine", report["machine"]),
            ("threads / duration / think", f"{report['threads']} / {report['duration_s']} s / {report['think_s']} s"),
            ("survey mix req/s", report["survey_rps"]),
            ("ceiling (/ping/) req/s", report["ceiling_rps"]),
            ("ratio", report["ratio"]),
            ("floor (/bench/floor/) req/s", report["floor_rps"]),
            ("floor ratio (survey / floor)", report["floor_ratio"]),
            ("gunicorn CPU ms/request: survey", report["gunicorn_cpu_ms_per_request"]["survey"]),
            ("gunicorn CPU ms/request: floor", report["gunicorn_cpu_ms_per_request"]["floor"]),
            ("gunicorn CPU ms/request: ping", report["gunicorn_cpu_ms_per_request"]["ping"]),
            (f"gunicorn CPU ms/request: survey at think {report['paced_think_s']} s ({report['paced_rps']} req/s), "
             "its idle CPU taken out", report["gunicorn_cpu_ms_per_request"]["paced"]),
            ("gunicorn CPU s a second with no load", report["gunicorn_idle_cpu_per_s"]),
            ("survey_cpu_over_floor (gunicorn CPU/request, survey / floor)", report["survey_cpu_over_floor"]),
            ("JMeter CPU ms/request: survey / floor / ping",
             " / ".join(str(report["jmeter_cpu_ms_per_request"][name]) for name in ("survey", "floor", "ping"))),
            *([("with skip logic / without (median)", report["conditional_ratio"]),
               ("  each pair", " ".join(str(r) for r in report["conditional_ratios"])),
               ("  gunicorn CPU ms/request with", " ".join(map(str, report["conditional_gunicorn_cpu_ms_per_request"]))),
               ("  gunicorn CPU ms/request without",
                " ".join(map(str, report["unconditional_gunicorn_cpu_ms_per_request"]))),
               ("  CPU with / without (medians)", report["conditional_cpu_ratio"]),
               ("  with skip logic change_page p99 ms", " ".join(str(p) for p in report["conditional_change_page_p99_ms"]))]
              if "conditional_ratio" in report else []),
            *[(f"{view} p50 / p95 / p99 ms", f"{report['p50_ms'][view]} / {report['p95_ms'][view]} / {report['p99_ms'][view]}")
              for view in VIEWS],
            ("completed surveys /s", report["surveys_per_s"]),
            ("survey takers /hour", report["surveys_per_hour"]),
            ("answers saved /s", report["answers_per_s"]),
            ("failed samples", report["failed_samples"]),
            ("retried (502/503/504/none)", report["retried_samples"]),
            ("acknowledged saves", report["acknowledged_saves"]),
            ("LOST answers", report["lost_answers"]),
            ("master transactions /s (per request)",
             f"{report['master_tps']} ({report['master_transactions_per_request']})"),
            ("replica transactions /s (per request)",
             f"{report['replica_tps']} ({report['replica_transactions_per_request']})"),
            ("replica lag at end (s)", report["replica_lag_s"]),
            ("WAL bytes a page save (the mix's WAL / saves)", report["wal_bytes_per_save"]),
            ("bytes on disk a row: respondent / page save / answer",
             " / ".join(str(report["bytes_per_row"][name]) for name in ("respondent", "page_save", "answer"))),
            ("Redis bytes a session (sessions held)", f"{report['bytes_per_session']} ({report['sessions_in_redis']})"),
            ("memcached bytes a definition page", report["cached_bytes_per_page"]),
            ("gunicorn worker RSS MiB", report["gunicorn_rss_mb_per_worker"]),
            ("full backup: database bytes per repository byte", report["backup_compression"]),
            ("pgbench page saves /s: async / sync",
             f"{report['pgbench_page_saves_per_s']['async']} / {report['pgbench_page_saves_per_s']['sync']}"),
            *[(f"CPU s: {name}", seconds) for name, seconds in sorted(report["cpu_s"].items(), key=lambda kv: -kv[1])],
        ]
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    print(f"\nwritten to {path}")
    found = problems(report, smoke=smoke)
    if found:
        sys.exit("bench: " + "; ".join(found))


def problems(report: Figures, *, smoke: bool) -> list[str]:
    """Return what fails the run: answers or completions LOST, failed samples, no save acknowledged, and (not in
    a smoke run, which takes every respondent it makes) respondents running out before the end."""
    found = []
    if report.get("conditional_lost_answers") or report.get("conditional_completed_lost"):
        found.append(f"LOST with skip logic: {report['conditional_lost_answers']} acknowledged answers and "
                        f"{report['conditional_completed_lost']} completions are not in PostgreSQL")
    if report.get("floor_failed_samples"):
        found.append(f"{report['floor_failed_samples']} samples of the floor plan failed")
    if report.get("conditional_failed_samples"):
        found.append(f"{report['conditional_failed_samples']} samples of the survey with skip logic failed")
    if report["lost_answers"] or report["completed_lost"]:
        found.append(f"LOST: {report['lost_answers']} acknowledged answers and {report['completed_lost']} "
                        "completions are not in PostgreSQL")
    if report["failed_samples"]:
        found.append(f"{report['failed_samples']} samples failed (see the JMeter dashboards in {RESULTS})")
    if not report["acknowledged_saves"]:
        found.append("no save was acknowledged")
    if not smoke and report["respondents_used"] >= report["respondents_created"]:
        found.append("the respondents ran out before the end: pass a larger --respondents")
    return found

