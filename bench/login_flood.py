"""Respondents' latency while anonymous clients hammer the staff login, with the login limits off and on
(`make bench-login-flood`).

    manage.py bench login_flood [--duration 40] [--threads 20] [--think 1] [--flooders 20] [--flood-rate 5]
    make bench-login-flood        (through jmeter/login-flood, which installs JMeter first)

Three runs of jmeter/plans/survey_taking.jmx through the stack, each of the same
length and threads: alone; while ``--flooders`` clients each POST made-up
usernames to /admin/login/ ``--flood-rate`` times a second with the login limits
off (the app's, staff/sign_in_limits.py, and nginx's limit_req on staff logins);
and the same flood with the limits on. The flood comes from one address and
names a new account each time, so of the app's limits it meets the address's
growing wait (from its 20th failure one attempt is checked per wait, 1 s
doubling to 60 s): every other POST is answered 429 before any hashing. Every
staff login the limits let through runs the password hasher (~0.3 s of CPU).
The flood sends at a fixed rate, so its own CPU
is the same in both flooded runs. Prints respondents' p50/p95/p99 per run and
what the flood was answered; writes jmeter/results/login_flood.json. The stack is
left with the limits on and no failures counted.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from http.cookiejar import CookieJar
from typing import Any

from bench import stack
from bench.stack import Figures

LIMITS_OFF = {
    "STACK_LOGIN_LIMITS": "0",
    "STACK_NGINX_STAFF_LOGIN_RATE": "100000r/s",
    "STACK_NGINX_STAFF_LOGIN_BURST": "100000",
}


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    stack.RESULTS.mkdir(parents=True, exist_ok=True)
    port = os.environ.get("STACK_NGINX_PORT", "28080")
    slug = stack.manage("seed_bench_survey", "--pages", "10").strip()
    runs: dict[str, Figures] = {}
    try:
        for name, limits_off, flood in [("alone", False, False), ("flood, limits off", True, True),
                                        ("flood, limits on", False, True)]:
            restack(limits_off=limits_off)
            codes = stack.JMETER / "data" / f"{slug}-{len(runs)}.csv"
            stack.manage("loadtest_respondents", "--survey", slug, "--count", str(args.threads * 40), "--output", str(codes))
            # Restarted workers start with cold definition memos: warm them as survey_bench does.
            warm = stack.JMETER / "data" / f"{slug}-{len(runs)}-warm.csv"
            stack.manage("loadtest_respondents", "--survey", slug, "--count", "4", "--output", str(warm))
            stack.jmeter_run("survey_taking", f"{slug}-warm-{len(runs)}", threads=4, iterations=1, duration=120, think=0,
                             respondents=warm)
            print(f"{name}: {args.threads} respondents for {args.duration} s"
                  + (f", {args.flooders} clients flooding /admin/login/ at {args.flood_rate}/s each" if flood else ""))
            flooders = Flood(port, args.flooders, args.flood_rate) if flood else None
            survey = stack.jmeter_run("survey_taking", f"{slug}-flood-{len(runs)}", threads=args.threads, iterations=-1,
                                      duration=args.duration, think=args.think, respondents=codes)
            runs[name] = run_figures(survey, flooders.stop() if flooders else None)
    finally:
        restack(limits_off=False)
    report = {"threads": args.threads, "think_s": args.think, "duration_s": args.duration, "flooders": args.flooders,
              "flood_rate_per_client": args.flood_rate, "runs": runs, "machine": stack.machine()}
    (stack.RESULTS / "login_flood.json").write_text(json.dumps(report, indent=2))
    print("\n" + table(runs))
    if any(run["failed_samples"] for run in runs.values()):
        sys.exit("login-flood: some respondent samples failed (see the runs' reports in jmeter/results/)")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    stack.load_arguments(parser, duration=40, threads=20, think=1)
    parser.add_argument("--flooders", type=int, default=20, help="clients posting to the staff login (default 20)")
    parser.add_argument("--flood-rate", type=float, default=5, help="POSTs a second of each flooder (default 5)")
    return parser.parse_args(argv)


def run_figures(survey: Figures, flood: dict[str, Any] | None) -> Figures:
    """Return a run's row: the respondents' figures (``stack.jmeter_run``'s) and what the flood was answered."""
    return {
        "survey_rps": round(survey["rps"], 1),
        "failed_samples": survey["failed"],
        "p50_ms": {v: survey["latency"].get(v, {}).get("p50") for v in stack.VIEWS},
        "p99_ms": {v: survey["latency"].get(v, {}).get("p99") for v in stack.VIEWS},
        "all_p50_ms": survey["latency"]["Total"]["p50"],
        "all_p95_ms": survey["latency"]["Total"]["p95"],
        "all_p99_ms": survey["latency"]["Total"]["p99"],
        "flood": flood,
    }


def restack(*, limits_off: bool) -> None:
    """Bring the stack up with the login limits off or on (gunicorn restarts when its environment changes)."""
    env = {**os.environ, **(LIMITS_OFF if limits_off else {})}
    for name in LIMITS_OFF:
        if not limits_off:
            env.pop(name, None)
    subprocess.run([stack.ROOT / "deploy" / "stack", "up"], check=True, stdout=subprocess.DEVNULL, env=env)
    stack.forget_login_failures()
    time.sleep(2)  # let the restarted workers come up


class Flood:
    """Clients that each POST a made-up username to the staff login at a fixed rate until stopped."""

    def __init__(self, port: str, clients: int, rate: float) -> None:
        self.url = f"http://127.0.0.1:{port}/admin/login/"
        self.interval = 1 / rate
        self.answers: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.started = time.monotonic()
        self.threads = [threading.Thread(target=self.client, daemon=True) for _ in range(clients)]
        for thread in self.threads:
            thread.start()

    def client(self) -> None:
        jar = CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        next_at = time.monotonic()
        while not self.stopping.is_set():
            token = next((c.value for c in jar if c.name == "csrftoken"), None)
            if token is None:
                self.send(opener, None)
            else:
                fields = {"csrfmiddlewaretoken": token, "username": f"guess-{random.randrange(10**9)}", "password": "x"}
                self.send(opener, urllib.parse.urlencode(fields).encode())
            next_at += self.interval
            self.stopping.wait(max(0, next_at - time.monotonic()))

    def send(self, opener: urllib.request.OpenerDirector, body: bytes | None) -> None:
        try:
            with opener.open(urllib.request.Request(self.url, data=body), timeout=30) as response:
                answer = f"{response.status}"
        except urllib.error.HTTPError as error:
            answer = refusal(error.code, error.read().decode("utf-8", "replace"))
        except OSError as error:
            answer = type(error).__name__
        if body is not None:
            with self.lock:
                self.answers[answer] += 1

    def stop(self) -> dict[str, Any]:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=35)
        seconds = time.monotonic() - self.started
        total = sum(self.answers.values())
        return {"posts": total, "posts_per_s": round(total / seconds, 1), "answers": dict(self.answers)}


def refusal(status: int, text: str) -> str:
    """Name a refused login by its status and by who refused it: nginx's limit, or the app's pause."""
    return f"{status}" + (" (nginx)" if "Please wait a minute" in text else " (app)" if "Sign-in paused" in text else "")


def table(runs: dict[str, Figures]) -> str:
    """Return the runs side by side, a column a run, as printed."""
    names = list(runs)
    rows: list[tuple[str, list[object]]] = [("survey req/s", [runs[n]["survey_rps"] for n in names]),
            ("all requests p50 / p95 / p99 ms", [f"{runs[n]['all_p50_ms']} / {runs[n]['all_p95_ms']} / {runs[n]['all_p99_ms']}"
                                                 for n in names])]
    rows += [(f"{view} p50 / p99 ms", [f"{runs[n]['p50_ms'][view]} / {runs[n]['p99_ms'][view]}" for n in names])
             for view in stack.VIEWS]
    rows += [("failed respondent samples", [runs[n]["failed_samples"] for n in names]),
             ("flood POSTs /s", [runs[n]["flood"]["posts_per_s"] if runs[n]["flood"] else "-" for n in names]),
             ("flood answered", [", ".join(f"{k}: {v}" for k, v in sorted(runs[n]["flood"]["answers"].items()))
                                 if runs[n]["flood"] else "-" for n in names])]
    width = max(len(label) for label, _ in rows)
    lines = [" | ".join([" " * width, *names])]
    lines += [" | ".join([label.ljust(width), *(str(v) for v in values)]) for label, values in rows]
    return "\n".join(lines)

