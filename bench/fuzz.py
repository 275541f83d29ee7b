"""Adversarial requests through the stack's nginx: a status histogram, and every stored answer checked
(`make fuzz`).

    manage.py bench fuzz [--requests 10000] [--clients 8] [--seed N]
    make fuzz [REQUESTS=10000]        (through jmeter/fuzz)

Creates a fuzz survey (every question kind) and respondents on the running
stack, logs ``--clients`` of them in (and spares, for those who finish), then sends ``--requests`` requests made
to break things: every question kind with right, wrong and odd values,
repeated and unknown fields, bad save ids and nav, page numbers out of range,
other charsets, malformed and oversized bodies, missing CSRF tokens, forged
session cookies, odd methods, paths and headers, and wrong access codes. Prints
how many requests got each status. Then reads every answer PostgreSQL holds
for the survey and checks it against its question's rules
(respondents/answer_values.py). Exits 1 on any 5xx or any stored value that
breaks its question's rules. Leaves no login failures counted.
"""
import argparse
import http.client
import json
import random
import re
import sys
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import quote, urlencode

from bench import stack
from infra.db_router import read_from_master
from respondents.answer_values import stored_answer_problems
from respondents.models import Answer
from surveys.models import Survey
from surveys.selectors import QuestionDefinition, page_count, page_definition

ODD = [
    "", " ", "\x00", "a\x00b", "0", "-0", "+1", "-1", "1.5", "1e309", "NaN", "9" * 40, "9" * 5000, "2023-02-30",
    "0000-00-00", "99999-01-01", "<script>alert(1)</script>", "' OR 1=1 --", "../../etc/passwd", "%00", "\u202e",
    "\ufeff", "😀" * 20, "null", "[]", "=HYPERLINK(\"x\")", "\r\n\r\n", "x" * 70000, "\ud800".encode("utf-8", "surrogatepass").decode("latin-1"),
]
CHARSETS = ["latin-1", "utf-16", "hex", "ascii", "nonsense", "base64", "utf-32-be", "UTF8", '"utf-8"']
METHODS = ["PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND", "HEAD"]

# A request as a Client sends it: method, path, headers, body (None: no body).
Request = tuple[str, str, dict[str, str], str | None]
# A question as the fuzz answers it (``page_fields``): its kind, its choices' values, min, max and max_length.
Field = tuple[str, list[str], int | None, int | None, int | None]


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    # Six pages: every question kind on a page that is not the last, which finishing locks.
    slug = stack.manage("seed_bench_survey", "--pages", "6").strip()
    codes_csv = stack.JMETER / "data" / f"{slug}-fuzz.csv"
    stack.RESULTS.mkdir(parents=True, exist_ok=True)
    # Each session saves each page at most once (a later save would overwrite what
    # the check must see), then a fresh one takes its place.
    spare = max(20, args.requests // 20)
    stack.manage("loadtest_respondents", "--survey", slug, "--count", str(args.clients + spare), "--output", str(codes_csv))
    codes = [line.split(",")[0] for line in codes_csv.read_text().splitlines()[1:]]
    pages = page_fields(slug)
    port = int(stack.nginx_port())
    stack.forget_login_failures()
    # Every session is opened first: once the fuzz's wrong codes reach the limit,
    # logins from this address get 429 (as they should), spares included.
    sessions = Sessions([Client(port, code) for code in codes], clients=args.clients, pages=len(pages))
    print(f"Fuzz survey {slug}: {len(pages)} pages; {len(codes)} respondents logged in; "
          f"{args.requests} requests from {args.clients} threads (seed {args.seed})...")

    tally, lock = Tally(), threading.Lock()
    started = time.monotonic()

    def run(index: int) -> None:
        rng = random.Random(args.seed * 1_000_003 + index)
        slot, client = sessions.sender(index)
        kind, request = make_request(rng, client, pages)
        status, body = client.send(*request)
        with lock:
            sessions.answered(slot, client, kind, request, status)
            tally.count(kind, request, status, body)

    with ThreadPoolExecutor(args.clients) as pool:
        list(pool.map(run, range(args.requests)))
    seconds = time.monotonic() - started
    stack.forget_login_failures()

    problems = stored_problems(slug)
    report = tally.report(requests=args.requests, seconds=seconds, problems=problems, survey=slug, seed=args.seed)
    statuses, failures = tally.statuses, tally.failures
    (stack.RESULTS / "fuzz.json").write_text(json.dumps(report, indent=2, default=str))
    print(f"\n{args.requests} requests in {seconds:.0f} s ({args.requests / seconds:.0f}/s). Status histogram:")
    for status, count in sorted(statuses.items()):
        print(f"  {status:>4}  {count:>6}  {'#' * max(1, round(60 * count / args.requests))}")
    print(f"stored answers breaking their question's rules: {len(problems)}")
    print(f"written to {stack.RESULTS / 'fuzz.json'}")
    if report["server_errors"] or problems:
        for failure in failures[:5]:
            print("5xx:", failure)
        for problem in problems[:5]:
            print("bad value:", problem)
        sys.exit(1)


class Sessions:
    """The logged-in respondents that send the requests, one slot a thread. Each session saves each page at most
    once (a later save would overwrite what the check must see): one that finished, logged out, or saved every
    page, gives its slot to a spare while there are spares."""

    def __init__(self, sessions: list["Client"], *, clients: int, pages: int) -> None:
        self.clients, self.spares, self.pages = sessions[:clients], sessions[clients:], pages

    def sender(self, index: int) -> tuple[int, "Client"]:
        """Return (slot, client) of the request ``index``."""
        slot = index % len(self.clients)
        return slot, self.clients[slot]

    def answered(self, slot: int, client: "Client", kind: str, request: Request, status: int) -> None:
        """Note what ``client``'s request was answered (under the caller's lock)."""
        page = re.match(r"/take/page/(\d+)/$", request[1]) if kind.startswith("page save") else None
        if page and status in (200, 302):
            client.saved_pages.add(int(page.group(1)))
        # Finished (409), logged out by "Save and log out", or every page saved once: later saves would only meet
        # 409 or 401, or overwrite.
        logged_out = kind == "page save and log out" and status in (200, 302)
        done = status == 409 or logged_out or len(client.saved_pages) >= self.pages
        if done and self.clients[slot] is client and self.spares:
            self.clients[slot] = self.spares.pop()


class Tally:
    """What the requests were answered: each status, each kind of request's statuses, and the first EXAMPLES
    answers of 5xx (0 is nginx closing the connection: not a server error)."""

    EXAMPLES = 20

    def __init__(self) -> None:
        self.statuses: Counter[int] = Counter()
        self.by_kind: Counter[str] = Counter()
        self.failures: list[dict[str, Any]] = []

    def count(self, kind: str, request: Request, status: int, body: str) -> None:
        self.statuses[status] += 1
        self.by_kind[f"{kind} {status}"] += 1
        if status >= 500 and len(self.failures) < self.EXAMPLES:
            self.failures.append({"kind": kind, "request": describe(request), "status": status, "body": body[:300]})

    def report(self, *, requests: int, seconds: float, problems: list[dict[str, str]], survey: str, seed: int,
               ) -> dict[str, Any]:
        """Return the report of the run: it fails on any server error or any stored value breaking its rules."""
        return {"requests": requests, "seconds": round(seconds, 1), "statuses": dict(sorted(self.statuses.items())),
                "by_kind": dict(sorted(self.by_kind.items())),
                "server_errors": sum(n for s, n in self.statuses.items() if s >= 500),
                "stored_value_problems": len(problems), "examples_of_5xx": self.failures,
                "examples_of_bad_values": problems[:20], "survey": survey, "seed": seed}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=10000, help="requests to send (default 10000)")
    parser.add_argument("--clients", type=int, default=8, help="logged-in respondents sending at once (default 8)")
    parser.add_argument("--seed", type=int, default=int(time.time()), help="random seed (default: the time)")
    return parser.parse_args(argv)


def page_fields(slug: str) -> list[dict[str, Field]]:
    """Return ``[{code: (kind, [choice values], min, max, max_length)}]`` for each page of the survey, in order."""
    survey = Survey.objects.using("default").get(slug=slug)
    pages = []
    for number in range(1, page_count(survey=survey) + 1):
        definition = page_definition(survey=survey, number=number)
        if definition is None:  # numbered within page_count: not out of range
            raise stack.StackError(f"{slug}: no page {number}")
        grids: dict[int | None, QuestionDefinition] = {q.pk: q for q in definition.items}
        fields: dict[str, Field] = {}
        for code, q in definition.answerable.items():
            source = grids.get(q.grid_id, q)
            fields[code] = (q.kind, [c.value for c in source.choice_list], q.min_value, q.max_value, q.text_max_length)
        pages.append(fields)
    return pages


class Client:
    """One respondent's connection to nginx, with its cookies."""

    def __init__(self, port: int, code: str) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}
        self.saved_pages: set[int] = set()
        self.send("GET", "/", {}, None)
        fields = urlencode({"csrfmiddlewaretoken": self.csrf, "access_code": code})
        for _ in range(100):
            status, _ = self.send("POST", "/", self.form_headers(), fields)
            if status != 429:  # nginx's burst of logins from one address, spent: wait a little
                break
            time.sleep(0.1)
        if status != 302:
            sys.exit(f"fuzz: the respondent {code} could not log in ({status})")

    @property
    def csrf(self) -> str:
        return self.cookies.get("csrftoken", "")

    def form_headers(self, content_type: str = "application/x-www-form-urlencoded") -> dict[str, str]:
        return {"Content-Type": content_type, "X-CSRFToken": self.csrf}

    def send(self, method: str, path: str, headers: dict[str, str], body: str | None) -> tuple[int, str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=40)
        # A request with a forged Cookie header is another client: its answer's cookies are not this one's.
        own_cookies = "Cookie" not in headers
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        headers = {"Cookie": cookie, **headers} if cookie and own_cookies else headers
        try:
            connection.putrequest(method, path, skip_accept_encoding=True)
            for name, value in headers.items():
                # Raw UTF-8 bytes, as a broken client would send; CR and LF cannot be sent inside a header.
                connection.putheader(name, str(value).replace("\r", "").replace("\n", "").encode("utf-8", "surrogatepass"))
            data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
            if data is not None and "Content-Length" not in headers:
                connection.putheader("Content-Length", str(len(data)))
            connection.endheaders(data)
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
            for header, value in response.getheaders():
                if own_cookies and header.lower() == "set-cookie":
                    name, _, rest = value.partition("=")
                    if name in ("csrftoken", "sessionid"):
                        self.cookies[name] = rest.split(";")[0]
            return response.status, text
        except (OSError, http.client.HTTPException) as error:
            return 0, f"{type(error).__name__}: {error}"  # nginx closed on us: not a server error
        finally:
            connection.close()


def odd(rng: random.Random) -> str:
    return rng.choice(ODD) if rng.random() < 0.7 else "".join(chr(rng.randrange(1, 0x2FFF)) for _ in range(rng.randrange(1, 30)))


def value_for(rng: random.Random, field: Field) -> list[str]:
    """Posted values for one question: right nine times in ten, so that enough pages get saved and checked."""
    kind, choices, low, high, max_length = field
    wrong = rng.random() < 0.1
    if wrong and rng.random() < 0.5:
        return [odd(rng) for _ in range(rng.randrange(1, 3))]
    if kind in ("single", "multiple") and choices:
        picked = rng.sample(choices, rng.randrange(1, min(3, len(choices)) + 1))
        return picked if kind == "multiple" or wrong else picked[:1]
    if kind == "integer":
        low, high = (low or 0), (high or 100)
        outside = rng.choice([low - rng.randrange(1, 50), high + rng.randrange(1, 50)])
        return [str(outside if wrong else rng.randrange(low, high + 1))]
    if kind == "decimal":
        low, high = (low or 0), (high or 100)
        if wrong:
            return [rng.choice([f"{low - rng.uniform(0.01, 50):.3f}", f"{high + rng.uniform(0.01, 50):.3f}", "1e999",
                                "1.2345678", "nan", "12,5"])]
        return [f"{rng.uniform(low, high):.{rng.randrange(0, 4)}f}"]
    if kind == "date":
        if wrong:
            return [f"{rng.randrange(1, 3000):04d}-{rng.randrange(0, 14):02d}-{rng.randrange(0, 33):02d}"]
        return [f"{rng.randrange(1900, 2100):04d}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"]
    if kind == "time":
        if wrong:
            return [rng.choice([f"{rng.randrange(20, 99)}:{rng.randrange(0, 99):02d}", "7pm", "12:60", "-1:00"])]
        return [f"{rng.randrange(0, 24):02d}:{rng.randrange(0, 60):02d}" + rng.choice(["", ":00"])]
    if kind == "datetime":
        day = f"{rng.randrange(1900, 2100):04d}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
        if wrong:
            return [rng.choice([f"{day} 08:00", f"{day}T24:00", "2026-02-30T08:00", f"{day}T08:00+02:00", day])]
        return [f"{day}T{rng.randrange(0, 24):02d}:{rng.randrange(0, 60):02d}"]
    length = rng.randrange((max_length or 50) + 1, (max_length or 50) + 20) if wrong else rng.randrange(0, 60)
    return ["".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(length))]


def page_post(rng: random.Random, client: Client, pages: list[dict[str, Field]]) -> tuple[str, Request]:
    """A page save, mostly right with something wrong, of a page this respondent has not saved; (kind, request)."""
    unsaved = [n for n in range(1, len(pages) + 1) if n not in client.saved_pages] or [len(pages)]
    number = rng.choice(unsaved)
    fields = [("csrfmiddlewaretoken", client.csrf)]
    for code, field in pages[number - 1].items():
        if rng.random() < 0.8:
            fields += [(f"q-{code}", v) for v in value_for(rng, field)]
    if rng.random() < 0.15:
        fields.append((rng.choice(["q-nosuch", "q-", odd(rng)]), odd(rng)))
    if rng.random() < 0.9:
        fields.append(("save_id", str(uuid.uuid4()) if rng.random() < 0.85 else odd(rng)))
    kind = "page save"
    if rng.random() < 0.9:
        last = number == len(pages)
        usual = rng.choice(["next", "back", "finish"] if last else ["next", "back"])
        if rng.random() < 0.03:
            usual, kind = "logout", "page save and log out"  # "Save and log out": saved, then the session ends
        fields.append(("nav", usual if rng.random() < 0.9 else rng.choice(["finish", odd(rng)])))
    if rng.random() < 0.1:
        number = rng.choice([0, len(pages) + 1, 99999, 2**63, 10**30])
    headers = {"X-CSRFToken": client.csrf}
    if rng.random() < 0.7:
        headers["X-Requested-With"] = "XMLHttpRequest"
    style = rng.random()
    if style < 0.45:
        body = urlencode(fields)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif style < 0.85:
        boundary = uuid.uuid4().hex
        parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{quote(k)}"\r\n\r\n{v}\r\n' for k, v in fields]
        body = "".join(parts) + f"--{boundary}--\r\n"
        headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
    else:
        body = "&".join(f"{k}={v}" for k, v in fields)  # not even encoded
        headers["Content-Type"] = f"application/x-www-form-urlencoded; charset={rng.choice(CHARSETS)}"
    return kind, ("POST", f"/take/page/{number}/", headers, body)


def broken_request(rng: random.Random, client: Client, pages: list[dict[str, Field]]) -> tuple[str, Request]:
    """Everything else an attacker or a broken client sends; (kind, request)."""
    choice = rng.randrange(10)
    form = client.form_headers()
    if choice == 0:
        return "wrong code", ("POST", "/", form, urlencode({"csrfmiddlewaretoken": client.csrf, "access_code": odd(rng)}))
    if choice == 1:
        return "no csrf", ("POST", f"/take/page/{rng.randrange(1, 5)}/", {"Content-Type": form["Content-Type"]}, "nav=next")
    if choice == 2:
        return "forged session", ("GET", "/take/", {"Cookie": f"sessionid={odd(rng)[:200]}; csrftoken=x"}, None)
    if choice == 3:
        return "odd method", (rng.choice(METHODS), rng.choice(["/", "/take/", "/take/page/1/", "/logout/"]), {}, None)
    if choice == 4:
        path = rng.choice(["/take/page/%00/", "/take/../admin/", "/" + "a" * 9000, "/take/page/1/?" + "x=" * 2000,
                           "/%ff%fe", "/take/page/1/?q=" + quote(odd(rng)), "/static/../../etc/passwd"])
        return "odd path", ("GET", path, {}, None)
    if choice == 5:
        body = "x=" + "y" * rng.choice([300_000, 262_145, 1_000_000])
        return "oversized body", ("POST", "/take/page/1/", {**form, "X-Requested-With": "XMLHttpRequest"}, body)
    if choice == 6:
        boundary = "b" * rng.randrange(0, 3)
        return "broken multipart", ("POST", "/take/page/1/", {"Content-Type": f"multipart/form-data; boundary={boundary}",
                                                               "X-CSRFToken": client.csrf}, f"--{boundary}\r\nContent-Disposition")
    if choice == 7:
        return "odd headers", ("GET", f"/take/page/{rng.randrange(1, 5)}/",
                               {"X-Requested-With": odd(rng)[:100], "Accept": odd(rng)[:100], "Host": rng.choice(
                                   ["127.0.0.1", "evil.example", "[::1]", "a" * 300])}, None)
    if choice == 8:
        return "keep-alive", ("POST", "/take/keep-alive/", {**form, "X-Requested-With": "XMLHttpRequest"}, "")
    return "odd content-length", ("POST", "/take/page/1/", {**form, "Content-Length": rng.choice(["-1", "abc", "99999999999"])},
                                  "nav=next")


def make_request(rng: random.Random, client: Client, pages: list[dict[str, Field]]) -> tuple[str, Request]:
    return page_post(rng, client, pages) if rng.random() < 0.6 else broken_request(rng, client, pages)


def describe(request: Request) -> dict[str, Any]:
    method, path, headers, body = request
    return {"method": method, "path": path[:200], "headers": {k: str(v)[:100] for k, v in headers.items()},
            "body": (body or "")[:300] if isinstance(body, str) else None}


def stored_problems(slug: str) -> list[dict[str, str]]:
    """Check every answer of the survey on the master (the replica may not have the last ones yet)."""
    with read_from_master():
        answers = Answer.objects.filter(respondent__survey__slug=slug)
        return [{"question": a.question.code, "value": a.value[:100], "problem": p}
                for a, p in stored_answer_problems(answers)]

