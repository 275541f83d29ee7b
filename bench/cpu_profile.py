"""Where a survey request's CPU goes, under load and one request at a time (`make profile`).

    manage.py bench cpu_profile [--duration 40] [--threads 50] [--pages 20] [--requests 100]
    manage.py bench cpu_profile --timing [--requests 25]   (CPU per request of each kind, no load, no profiler;
                                                            then the same with the CPU caches flushed between
                                                            requests, and through nginx to gunicorn one request
                                                            at a time)

Against the one-box stack (brought up if needed), on a fresh benchmark survey:

1. **Under load.** Runs the survey plan (``survey_taking.jmx``) with JMeter and, while it runs, py-spy samples every
   gunicorn worker (``record --subprocesses --nonblocking --gil``): ``flame.svg`` (the flame graph) and
   ``stacks.txt`` (the same samples, collapsed: one stack and its count a line). ``top.txt`` ranks functions by
   their share of the samples, inclusive and self, and gives each part a request passes through (the database
   driver, the ORM, templates, the session store, each library) its share. ``--gil`` keeps only samples of a
   worker running Python: without it, py-spy counted workers waiting for PostgreSQL, Redis or nginx as busy
   (2.6 cores' worth of samples on 2 cores). The CPU the kernel spends on those round trips is left out; the
   bench's CPU seconds per component include it.
2. **One request of each kind.** cProfile, in this process with the production settings against the same stack,
   of ``--requests`` requests of each kind (login form, login, display, content, change_page, complete) made with
   Django's test client, CSRF checks on: ``cprofile-<kind>.txt`` (the 40 heaviest functions, cumulative and own
   time, per request) and ``cprofile-<kind>.prof`` (for snakeviz or pstats).

Everything goes to jmeter/results/<time>-profile/; the last lines printed say where.
"""
import argparse
import cProfile
import http.cookiejar
import io
import json
import os
import pstats
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol
from urllib.parse import urlencode

from django.test import Client

from bench import stack, survey_bench
from bench.survey_bench import Taking

PY_SPY = Path(sys.executable).parent / "py-spy"
KINDS = ["login_form", "login", "display", "content", "change_page", "complete"]
# Parts a request passes through, by the file a frame's code lives in (as py-spy names it). A sample counts for the
# innermost frame that belongs to one of them: the psycopg2 call under the ORM under a view counts for psycopg2.
PARTS = [
    ("psycopg2: the driver, its round trips to pgbouncer", r"^psycopg2/|^django/db/backends/utils\.py"),
    ("redis-py: the session store's round trips", r"^redis/"),
    ("pymemcache", r"^pymemcache/"),
    ("Jinja2 (the page fragment)", r"^jinja2/|\.html$|^taking/jinja2/"),
    ("Django templates", r"^django/template/|^django/templatetags/"),
    ("translations (gettext, in_language)", r"^django/utils/translation/|^gettext\.py"),
    ("django.db: the ORM, SQL compiling", r"^django/db/"),
    ("the session store (infra/sessions.py, Django's sessions)", r"^infra/sessions\.py|^django/contrib/sessions/"),
    ("CSRF", r"^django/middleware/csrf\.py"),
    ("django-csp", r"^csp/"),
    ("django-axes", r"^axes/"),
    ("replica routing and pinning (infra/db_router.py, balancer)", r"^infra/db_router\.py|^balancer/"),
    ("django-cache-machine", r"^caching/"),
    ("forms (django.forms)", r"^django/forms/"),
    ("JSON", r"^json/"),
    ("logging", r"^logging/"),
    ("other Django middleware", r"^django/middleware/|^django/contrib/(auth|messages)/middleware\.py"),
    ("the survey's own code (taking/, surveys/, respondents/, config/)", r"^(taking|surveys|respondents|config)/"),
    ("Django's request and response (handlers, http, urls, utils)", r"^django/"),
    ("gunicorn: reading the request, writing the answer to nginx", r"^gunicorn/"),
]


class Clock(Protocol):
    """What times a request of one kind: a cProfile.Profile, or a CpuTime."""

    def enable(self) -> None: ...

    def disable(self) -> None: ...


# A request's form fields, urlencoded: the login's, or a page's answers (``page_answers``).
Form = Mapping[str, str]
# One browser's requests (InProcess, OverHttp): path, form, headers -> (status, text).
Browser = Callable[..., tuple[int, str]]


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    taking = survey_bench.prepare(argparse.Namespace(pages=args.pages, respondents=args.threads + args.duration * 40 +
                                              args.requests, smoke=False, threads=args.threads, duration=args.duration))
    if args.timing:
        timings(args, taking)
        return
    out = stack.RESULTS / f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-profile"
    out.mkdir(parents=True)
    under_load(args, taking, out)
    one_request_each(args, taking, out)
    print(f"\nflame graph: {out / 'flame.svg'}\nranked: {out / 'top.txt'}\ncProfile: {out}/cprofile-<kind>.txt")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    stack.load_arguments(parser, duration=40, threads=50, pages=20)
    parser.add_argument("--requests", type=int, default=100, help="cProfiled requests of each kind (default 100)")
    parser.add_argument("--timing", action="store_true",
                        help="no load and no profiler: CPU ms a request of each kind, in this process (steps' table)")
    return parser.parse_args(argv)


def under_load(args: argparse.Namespace, taking: Taking, out: Path) -> None:
    """Run the survey plan and sample the gunicorn workers with py-spy meanwhile; write the flame graph and top.txt."""
    print(f"Survey plan, {args.threads} threads for {args.duration} s, py-spy on every gunicorn worker...")
    run, results = stack.jmeter_start("survey_taking", f"{taking['slug']}-profile", threads=args.threads,
                                      iterations=-1, duration=args.duration, think=0, respondents=taking["codes"])
    master = (Path(os.environ["STATIC_ROOT"]).parent / "run" / "gunicorn.pid").read_text().split()[0]
    time.sleep(min(5, args.duration // 4))  # past JMeter's start and ramp-up
    seconds = str(max(1, args.duration - 10))
    common = ["record", "--pid", master, "--subprocesses", "--nonblocking", "--gil", "--rate", "100", "--duration", seconds]
    spies = [subprocess.Popen([PY_SPY, *common, "--format", fmt, "--output", str(out / name)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for fmt, name in (("flamegraph", "flame.svg"), ("raw", "stacks.txt"))]
    for spy in spies:
        output = spy.communicate()[0]
        if spy.returncode:
            sys.exit(f"profile: py-spy failed:\n{output}")
    stdout, stderr = run.communicate()
    figures = stack.jmeter_figures("survey_taking", results, stdout + stderr)
    print(f"  {figures['rps']:.1f} req/s, {figures['failed']} failed; JMeter's report: {results / 'report'}")
    report = ranked(out / "stacks.txt")
    (out / "top.txt").write_text(report)
    print(report)


def ranked(stacks_file: Path) -> str:
    """Return the functions with the largest inclusive and self shares of the samples, and each part's share."""
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    parts: Counter[str] = Counter()
    total = 0
    for line in stacks_file.read_text().splitlines():
        frames_text, _, count_text = line.rpartition(" ")
        if not frames_text or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [frame_name(frame) for frame in frames_text.split(";")]
        frames = [frame for frame in frames if frame]
        if not frames:
            continue
        total += count
        own[frames[-1]] += count
        for frame in set(frames):
            inclusive[frame] += count
        parts[next((part for frame in reversed(frames) for part, pattern in PARTS
                    if re.search(pattern, frame_file(frame))), "elsewhere")] += count
    if not total:
        return "no samples: was the load running?\n"
    lines = [f"{total} samples of the gunicorn workers' CPU (py-spy, 100 a second)", "",
             "share  part of a request (a sample counts for the innermost part it is in)"]
    lines += [f"{100 * n / total:5.1f}%  {part}" for part, n in parts.most_common()]
    lines += ["", "share  inclusive: function (file)"]
    lines += [f"{100 * n / total:5.1f}%  {name}" for name, n in inclusive.most_common(60)]
    lines += ["", "share  self: function (file)"]
    lines += [f"{100 * n / total:5.1f}%  {name}" for name, n in own.most_common(40)]
    return "\n".join(lines) + "\n"


def frame_file(name: str) -> str:
    """``function (path/to/file.py)`` → ``path/to/file.py``."""
    return name.rpartition(" (")[2].rstrip(")")


def frame_name(frame: str) -> str:
    """``function (path/to/file.py:12)`` → ``function (path/to/file.py)``; process headers are dropped."""
    if frame.startswith("process "):
        return ""
    return re.sub(r":\d+\)$", ")", frame.strip())


def one_request_each(args: argparse.Namespace, taking: Taking, out: Path) -> None:
    """cProfile ``args.requests`` requests of each kind in this process; write cprofile-<kind>.txt and .prof."""
    codes = [line.strip() for line in Path(taking["codes"]).read_text().splitlines()[1:] if line.strip()]
    codes = codes[-args.requests:]  # the load above took codes from the start of the file
    profiles = {kind: cProfile.Profile() for kind in KINDS}
    pages = max(taking["expected_per_page"])
    print(f"\ncProfile: {args.requests} requests of each kind in this process...")
    take_surveys(codes, pages, profiles)
    report_profiles(args, profiles, pages, out)


def take_surveys(codes: Sequence[str], pages: int, clocks: Mapping[str, Clock], *,
                 client: Callable[[], Browser] | None = None) -> int:
    """Take the survey once per code, as a browser with survey.js does (forms posted urlencoded), each request inside
    its kind's clock (a cProfile.Profile or a CpuTime); through Django's test client in this process, or through
    ``client`` (``OverHttp``: nginx and gunicorn). Return the number of requests."""
    requests = 0
    for code in codes:
        call = client() if client else InProcess()
        status, page = profiled(clocks["login_form"], call, "/")
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        if found is None:
            raise stack.StackError(f"the login form has no CSRF token ({status}): {page[:300]}")
        token = found.group(1)
        status, _ = profiled(clocks["login"], call, "/", {"access_code": code, "csrfmiddlewaretoken": token})
        assert status == 302, status
        assert profiled(clocks["display"], call, "/take/")[0] == 200
        for number in range(1, pages + 1):
            status, fragment = profiled(clocks["content"], call, f"/take/page/{number}/", headers=AJAX)
            assert status == 200, status
            answers = page_answers(fragment, token, "finish" if number == pages else "next")
            status, saved = profiled(clocks["change_page"], call, f"/take/page/{number}/", answers, headers=AJAX)
            assert status == 200 and json.loads(saved)["saved"], saved[:300]
        assert profiled(clocks["complete"], call, "/take/complete/")[0] == 200
        requests += 4 + 2 * pages
    return requests


class InProcess:
    """One browser's requests through Django's test client, CSRF checks on: ``(status, text)``."""

    def __init__(self) -> None:
        self.client = Client(enforce_csrf_checks=True)

    def __call__(self, path: str, data: Form | None = None, headers: Mapping[str, str] | None = None,
                 ) -> tuple[int, str]:
        if data is None:
            response = self.client.get(path, headers=headers)
        else:
            response = self.client.post(path, urlencode(data), content_type=FORM, headers=headers)
        return response.status_code, response.content.decode()


class OverHttp:
    """One browser's requests through nginx with urllib, a light client: cookies kept, redirects not followed."""

    def __init__(self) -> None:
        self.base = f"http://127.0.0.1:{stack.nginx_port()}"
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()),
                                                  NoRedirects)

    def __call__(self, path: str, data: Form | None = None, headers: Mapping[str, str] | None = None,
                 ) -> tuple[int, str]:
        body = urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(self.base + path, data=body,
                                         headers={**(headers or {}), **({"Content-Type": FORM} if body else {})})
        try:
            with self.opener.open(request) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as answer:  # a 302 (redirects are not followed), or a refusal
            return answer.code, answer.read().decode()


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def timings(args: argparse.Namespace, taking: Taking) -> None:
    """Print the CPU milliseconds of a request of each kind, no profiler, after two respondents to warm up; then the
    same survey requests with the CPU caches flushed between requests, and through nginx to gunicorn one at a time
    (docs/performance.md: where the gap between one process and gunicorn goes)."""
    codes = [line.strip() for line in Path(taking["codes"]).read_text().splitlines()[1:] if line.strip()]
    pages = max(taking["expected_per_page"])
    take_surveys(codes[:2], pages, {kind: CpuTime() for kind in KINDS})
    start, count = 2, args.requests
    # Two rounds, alternating, since this machine's speed drifts within a minute: compare the rounds side by side.
    for label, clock in (("in this process", CpuTime), ("in this process, caches flushed between requests", ColdCpuTime),
                         ("in this process", CpuTime), ("in this process, caches flushed between requests", ColdCpuTime)):
        clocks = {kind: clock() for kind in KINDS}
        take_surveys(codes[start:start + count], pages, clocks)
        start += count
        spent = sum(clock.seconds for clock in clocks.values())
        calls = sum(clock.calls for clock in clocks.values())
        print(f"{label}:", " ".join(f"{kind}={1000 * clock.seconds / clock.calls:.2f}" for kind, clock in clocks.items()),
              f"ALL={1000 * spent / calls:.3f} ms a request (CPU, test client included)")
    before = stack.cpu_seconds()["gunicorn"]
    calls = take_surveys(codes[start:start + count], pages, {kind: CpuTime() for kind in KINDS}, client=OverHttp)
    spent = stack.cpu_seconds()["gunicorn"] - before
    print(f"through nginx to gunicorn, one request at a time: ALL={1000 * spent / calls:.3f} ms of gunicorn CPU a request")


class CpuTime:
    """A profiler's enable/disable that only adds up CPU time (``profiled`` takes either)."""

    def __init__(self) -> None:
        self.seconds, self.calls, self._started = 0.0, 0, 0.0

    def enable(self) -> None:
        self._started = time.process_time()

    def disable(self) -> None:
        self.seconds += time.process_time() - self._started
        self.calls += 1


class ColdCpuTime(CpuTime):
    """CpuTime that first writes a byte every kilobyte of 64 MB (not timed): each request starts with the CPU caches
    holding something else, as a gunicorn worker's do after nginx, PostgreSQL and the client ran in between."""

    junk = bytearray(64 * 1024 * 1024)

    def enable(self) -> None:
        junk = self.junk
        for index in range(0, len(junk), 1024):
            junk[index] ^= 1
        super().enable()


def report_profiles(args: argparse.Namespace, profiles: Mapping[str, cProfile.Profile], pages: int, out: Path,
                    ) -> None:
    """Write each kind's profile: cprofile-<kind>.prof, and its heaviest functions in cprofile-<kind>.txt."""
    for kind, profile in profiles.items():
        profile.dump_stats(out / f"cprofile-{kind}.prof")
        stats = pstats.Stats(profile, stream=io.StringIO())
        # The profile's total time: pstats sets it, typeshed's Stats does not declare it.
        total_s = stats.total_tt  # type: ignore[attr-defined]
        calls = args.requests * (pages if kind in ("content", "change_page") else 1)
        text = [f"{kind}: {calls} requests, {1000 * total_s / calls:.2f} ms a request (profiled: cProfile "
                "slows Python down, so compare shares, not times)\n"]
        for order in ("cumulative", "tottime"):
            stream = io.StringIO()
            pstats.Stats(profile, stream=stream).sort_stats(order).print_stats(40)
            text.append(f"--- by {order} time\n{stream.getvalue()}")
        (out / f"cprofile-{kind}.txt").write_text("\n".join(text))
        print(f"  {text[0].strip()}")


AJAX = {"X-Requested-With": "XMLHttpRequest"}
FORM = "application/x-www-form-urlencoded"


def profiled(profile: Clock, call: Browser, *args: object, **kwargs: object) -> tuple[int, str]:
    profile.enable()
    try:
        return call(*args, **kwargs)
    finally:
        profile.disable()


def page_answers(html: str, token: str, nav: str) -> dict[str, str]:
    """Answer a page fragment as jmeter/plans/answer_page.groovy does, without chance: the first choice of every
    group, numbers at their minimum, a date, a few words."""
    data = {"csrfmiddlewaretoken": token, "nav": nav}
    for _kind, name, value in re.findall(r'<input type="(radio|checkbox)" name="(q-[^"]+)" value="([^"]+)"', html):
        data.setdefault(name, value)
    for tag in re.findall(r'<input type="number"[^>]*>', html):
        data[named(tag, "name")] = attribute(tag, "min") or "1"
    for tag in re.findall(r'<input type="date"[^>]*>', html):
        data[named(tag, "name")] = "2020-05-17"
    for tag in re.findall(r'<(?:input type="text"|textarea)[^>]*>', html):
        data[named(tag, "name")] = "more time for reading"
    data["save_id"] = named(html, "value", after='name="save_id"')
    return data


def attribute(tag: str, name: str, after: str = "") -> str | None:
    match = re.search(rf'{re.escape(after)}[^>]*?\b{name}="([^"]*)"', tag)
    return match.group(1) if match else None


def named(tag: str, name: str, after: str = "") -> str:
    """``attribute``, where a page's field must have it: without it, the HTML is not a survey page's."""
    value = attribute(tag, name, after)
    if value is None:
        raise stack.StackError(f"no {name}= in {tag[:300]}")
    return value

