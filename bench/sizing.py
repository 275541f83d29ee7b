"""How the survey mix moves with gunicorn workers, the pgbouncer pool and think time (`make sizing`).

    manage.py bench sizing [--duration 30] [--threads 50] [--workers 3,5,9] [--pools 5,20] [--thinks 0,1,5]
                           [--repeat 1] [--reference [--reference-duration 60]]

Against the one-box stack, on one fresh benchmark survey: the survey plan (``survey_taking.jmx``) once per
number of gunicorn sync workers (think time 0), once per pgbouncer pool size (the default workers, think 0), and
once per think time (the default workers and pool). Each run gives req/s, change_page p50/p99, gunicorn CPU ms per
request, completed surveys an hour and failed samples. gunicorn and pgbouncer are restarted with each setting
and left as deploy/stack.conf says at the end. Prints a table; writes jmeter/results/sizing.json.

With --repeat N every distinct setting runs N times, in N rounds that each try every setting once (the machine's
speed drifts within minutes: each round meets the drift alike), and the table ends with each setting's median:
what `deploy/plan check` (`make plan-check`) holds the capacity model's predictions against. With --reference
each round begins with the bench's main run (``reference``), whose CPU a request of each process the check
predicts from.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from django.db import connections

from bench import stack, survey_bench
from bench.stack import Figures
from bench.survey_bench import Taking
from deploy import capacity

# A run's setting: gunicorn workers, the pgbouncer pool, think seconds (whole numbers unless given with a point).
Setting = tuple[float, float, float]


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    taking = survey_bench.prepare(argparse.Namespace(pages=PAGES, respondents=1, smoke=False, threads=args.threads,
                                              duration=args.duration))
    defaults = stack_defaults()
    runs: list[Figures] = []
    references: list[Figures] = []
    try:
        for round_, (workers, pool, think) in rounds(settings_tried(args, defaults), args.repeat):
            if args.reference and (not references or references[-1]["round"] != round_):
                print(f"round {round_} of {args.repeat}: the reference, ", end="")
                references.append({**reference(args, taking, defaults), "round": round_})
            print(f"round {round_} of {args.repeat}: ", end="")
            runs.append({**measured(args, taking, workers=workers, pool=pool, think=think), "round": round_})
    finally:
        configure(workers=defaults["workers"], pool=defaults["pool"])
    machine = stack.machine()
    (stack.RESULTS / "sizing.json").write_text(json.dumps({
        "machine": machine, "cores": os.cpu_count(), "threads": args.threads, "duration_s": args.duration,
        "pages": PAGES, "rampup_s": stack.rampup(args.threads), "repeat": args.repeat, "runs": runs,
        "references": references}, indent=2) + "\n")
    print("\n" + table(runs, machine=machine, threads=args.threads, duration=args.duration))
    if args.repeat > 1:
        print("\n" + medians_table(runs))
    for ref in references:
        print(f"reference, round {ref['round']}: {ref['rps']} req/s in {ref['duration_s']} s, CPU s "
              + ", ".join(f"{name} {seconds}" for name, seconds in ref["cpu_s"].items()))
    print(f"\nwritten to {stack.RESULTS / 'sizing.json'}")
    if any(run["failed"] for run in runs + references):
        sys.exit("sizing: some samples failed")


PAGES = 20  # the benchmark survey's


def rounds(settings: Sequence[Setting], repeat: int) -> list[tuple[int, Setting]]:
    """Return (round, setting) for ``repeat`` rounds of the distinct ``settings`` (in their first order); with
    one round, every setting as given (the default worker count's run then comes once per list it is in)."""
    if repeat == 1:
        return [(1, setting) for setting in settings]
    distinct = list(dict.fromkeys(settings))
    return [(round_, setting) for round_ in range(1, repeat + 1) for setting in distinct]


def medians_table(runs: list[Figures]) -> str:
    """Return each setting's median req/s and save p50 over its runs, one line a setting."""
    lines = [f"{'workers':>7} {'pool':>5} {'think s':>7} {'median req/s':>12} {'median save p50':>15}   runs req/s"]
    for (workers, pool, think), group in capacity.by_setting(runs).items():
        rps = statistics.median(run["rps"] for run in group)
        p50 = [run["change_page_p50_ms"] for run in group if run["change_page_p50_ms"] is not None]
        lines.append(f"{workers:>7} {pool:>5} {think:>7} {rps:>12.1f} "
                     f"{statistics.median(p50) if p50 else '–':>15}   {' '.join(str(run['rps']) for run in group)}")
    return "\n".join(lines)


def settings_tried(args: argparse.Namespace, defaults: dict[str, int]) -> list[Setting]:
    """Return (workers, pool, think) of each run in order: each number of workers (the default pool, think 0), each
    pool size (the default workers, think 0), each think time (the default workers and pool)."""
    return ([(workers, defaults["pool"], 0) for workers in args.workers]
            + [(defaults["workers"], pool, 0) for pool in args.pools]
            + [(defaults["workers"], defaults["pool"], think) for think in args.thinks])


def table(runs: list[Figures], *, machine: str, threads: int, duration: int) -> str:
    """Return the runs as the table printed: one line a run, under a line saying where and how long."""
    lines = [f"{machine}, {threads} JMeter threads, {duration} s each",
             f"{'workers':>7} {'pool':>5} {'think s':>7} {'req/s':>7} {'save p50':>8} {'save p99':>8} "
             f"{'CPU ms/req':>10} {'takers/h':>9} {'failed':>6}"]
    for run in runs:
        lines.append(f"{run['workers']:>7} {run['pool']:>5} {run['think_s']:>7} {run['rps']:>7} "
                     f"{run['change_page_p50_ms']:>8} {run['change_page_p99_ms']:>8} "
                     f"{run['gunicorn_cpu_ms_per_request']:>10} {run['takers_per_hour'] or '–':>9} {run['failed']:>6}")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    def numbers(text: str) -> list[float]:
        return [float(n) if "." in n else int(n) for n in text.split(",") if n]

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    stack.load_arguments(parser, duration=30, threads=50)
    parser.add_argument("--workers", type=numbers, default=[3, 5, 9], help="gunicorn workers to try (3,5,9)")
    parser.add_argument("--pools", type=numbers, default=[5, 20], help="pgbouncer pool sizes to try (5,20)")
    parser.add_argument("--thinks", type=numbers, default=[0, 1, 5], help="think times to try, seconds (0,1,5)")
    parser.add_argument("--reference", action="store_true",
                        help="begin each round with the bench's main run (the stack's defaults, think 0): make plan-check")
    parser.add_argument("--reference-duration", type=int, default=60, help="seconds of that run (60, as make bench)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of every distinct setting (1: each as listed, the default's run once a list)")
    return parser.parse_args(argv)


def stack_defaults() -> dict[str, int]:
    conf = subprocess.run(["bash", "-c", f'ROOT="{stack.ROOT}"; . "{stack.ROOT}/deploy/stack.conf"; '
                          'echo "$STACK_GUNICORN_WORKERS $STACK_PGBOUNCER_POOL_SIZE"'],
                          capture_output=True, text=True, check=True, env={k: v for k, v in os.environ.items()
                                                                           if not k.startswith("STACK_")})
    workers, pool = conf.stdout.split()
    return {"workers": int(workers), "pool": int(pool)}


def configure(*, workers: float, pool: float) -> None:
    """Restart gunicorn with ``workers`` sync workers and the master's pgbouncer with ``pool`` server connections."""
    env = {**os.environ, **stack.BENCH_STACK_ENV, "STACK_GUNICORN_WORKERS": str(workers),
           "STACK_PGBOUNCER_POOL_SIZE": str(pool)}  # as the bench command brought the stack up (bench.stack.stack_env)
    subprocess.run([stack.ROOT / "deploy" / "stack", "restart", "gunicorn", "pgbouncer-master"], env=env, check=True,
                   stdout=subprocess.DEVNULL)

    connections.close_all()  # this process's own, cut by pgbouncer's restart


def configured_and_warm(args: argparse.Namespace, taking: Taking, *, workers: float, pool: float, duration: int,
                        ) -> Path:
    """Restart gunicorn and pgbouncer with the setting, warm every worker (one survey a thread: each worker's
    definition memo), and return fresh respondents enough for a run of ``duration``."""
    configure(workers=workers, pool=pool)
    warm = survey_bench.respondents_csv(taking, args.threads, f"sizing-warm-{time.time_ns()}")
    stack.jmeter_run("survey_taking", f"{taking['slug']}-sizing-warm", threads=args.threads, iterations=1,
                     duration=60, think=0, respondents=warm)
    return survey_bench.respondents_csv(taking, args.threads + duration * 40, f"sizing-{time.time_ns()}")


def measured(args: argparse.Namespace, taking: Taking, *, workers: float, pool: float, think: float) -> Figures:
    print(f"workers {workers}, pool {pool}, think {think} s: warming, then {args.duration} s...")
    codes = configured_and_warm(args, taking, workers=workers, pool=pool, duration=args.duration)
    run = survey_bench.cpu_measured_run("survey_taking", f"{taking['slug']}-w{workers}-p{pool}-t{think}",
                                 threads=args.threads, iterations=-1, duration=args.duration, think=think,
                                 respondents=codes)
    check = stack.data_check(run["jtl"], taking["slug"], taking["expected_per_page"])
    return run_figures(run, check, workers=workers, pool=pool, think=think)


def reference(args: argparse.Namespace, taking: Taking, defaults: dict[str, int]) -> Figures:
    """Run the bench's main measurement (the survey at the stack's defaults, think 0, for --reference-duration)
    with each process's CPU: `deploy/plan check` takes the capacity model's CPU inputs from these, measured in the
    same rounds as the runs it predicts, so that the shared machine's drift falls on both alike."""
    print(f"{args.reference_duration} s...")
    codes = configured_and_warm(args, taking, workers=defaults["workers"], pool=defaults["pool"],
                                duration=args.reference_duration)
    before = stack.cpu_seconds()
    run = stack.jmeter_run("survey_taking", f"{taking['slug']}-reference", threads=args.threads, iterations=-1,
                           duration=args.reference_duration, think=0, respondents=codes)
    after = stack.cpu_seconds()
    return {"samples": run["samples"], "rps": round(run["rps"], 1), "duration_s": round(run["duration_s"], 1),
            "failed": run["failed"], "jmeter_cpu_s": round(run["jmeter_cpu_s"], 2),
            "cpu_s": {name: round(after[name] - before.get(name, 0.0), 2) for name in after}}


def run_figures(run: Figures, check: Figures, *, workers: float, pool: float, think: float) -> Figures:
    """Return one run's row: its settings, its figures (``cpu_measured_run``) and its data check's."""
    save = run["latency"].get("change_page", {})
    return {
        "workers": workers, "pool": pool, "think_s": think, "rps": round(run["rps"], 1),
        "change_page_p50_ms": save.get("p50"), "change_page_p99_ms": save.get("p99"),
        "gunicorn_cpu_ms_per_request": run["gunicorn_cpu_ms_per_request"],
        # None when no one finished inside the window (long think times): req/s is the figure to read then.
        "takers_per_hour": (round(check["completed_acknowledged"] / run["duration_s"] * 3600)
                            if check["completed_acknowledged"] else None),
        "failed": run["failed"], "lost_answers": check["lost_answers"],
    }

