"""The app on the lab's many hosts, through its load balancer (lb1): a respondent's walk, staff's roster, slips
and export, and what respondents see while a host dies: the Patroni leader (saves in flight answer 503 with
Retry-After and succeed on retry; no acknowledged save is lost), a web host (the walk goes on through the other),
the Redis primary (Sentinel promotes a replica; respondents stay logged in). `make lab-test` runs these against
a lab that `deploy/lab up` made; elsewhere they are skipped.
"""
import io
import json
import threading
import time
import urllib.request
import uuid
import zipfile
from pathlib import Path

import pytest

from bench.cpu_profile import page_answers
from deploy.lab_hosts import (
    ROOT,
    cluster,
    hosts,
    lab,
    leader,
    load_balancer_url,
    missing_rows,
    redis_role,
    sentinel_primary,
    wait_for,
)
from deploy.tests import stack
from infra.sql import table
from respondents.models import PageSave

pytestmark = pytest.mark.lab

AJAX = {"X-Requested-With": "XMLHttpRequest"}
PAGES = 3
RETRYABLE = {503}


def manage(*args):
    return lab("manage", *args).stdout


@pytest.fixture(scope="module")
def base_url():
    return load_balancer_url()


@pytest.fixture(scope="module")
def codes():
    """The access codes of a survey's people, one for each walk (a survey of three pages, bench_document's)."""
    slug = f"lab-{uuid.uuid4().hex[:8]}"
    manage("seed_bench_survey", "--pages", str(PAGES), "--slug", slug)
    codes_file = Path("/tmp") / f"{slug}.csv"
    manage("loadtest_respondents", "--survey", slug, "--count", "600", "--output", str(codes_file))
    listed = codes_file.read_text().split()[1:]
    codes_file.unlink()
    return iter(listed)


class Walker:
    """One respondent through the load balancer, as survey.js does it: each page fetched, answered and saved,
    a save answered 503 sent again with the same save_id after its Retry-After. Every answer is recorded."""

    def __init__(self, base_url, code, think=0.0):
        self.web = stack.WebClient(base_url=base_url)
        self.code = code
        self.think = think  # seconds between a page and its save, as a person reads
        self.statuses = []  # (seconds since the epoch, what, status)
        self.acknowledged = []  # save_ids answered "saved"

    def record(self, what, status):
        self.statuses.append((time.time(), what, status))
        return status

    def login(self):
        status, headers, text = self.web.post_form("/", {"access_code": self.code})
        assert self.record("login", status) == 302 and headers["Location"] == "/take/", (status, text[:300])

    def fetch(self, number):
        while True:
            status, headers, text = self.web.request("GET", f"/take/page/{number}/", headers=AJAX, timeout=40)
            self.record("page", status)
            if status not in RETRYABLE:
                assert status == 200, (status, text[:300])
                return text
            time.sleep(float(headers.get("Retry-After", 1)))

    def save(self, number, html):
        token = self.web.cookie("csrftoken")
        data = page_answers(html, token, "finish" if number == PAGES else "next")
        headers = {**AJAX, "X-CSRFToken": token, "Referer": self.web.url("/take/")}
        while True:
            status, answer_headers, text = self.web.request("POST", f"/take/page/{number}/", data=data,
                                                            headers=headers, timeout=40)
            self.record("save", status)
            if status not in RETRYABLE:
                assert status == 200 and json.loads(text)["saved"], (status, text[:300])
                self.acknowledged.append(data["save_id"])
                return json.loads(text)
            assert answer_headers.get("Retry-After"), answer_headers
            time.sleep(float(answer_headers["Retry-After"]))

    def walk(self, pages=None):
        for number in pages or range(1, PAGES + 1):
            html = self.fetch(number)
            time.sleep(self.think)
            saved = self.save(number, html)
        return saved


def missing_on_members(save_ids):
    """{Patroni member: the acknowledged saves it lacks}."""
    quoted = ",".join(f"'{save_id}'" for save_id in save_ids)
    return missing_rows(f"SELECT save_id FROM {table(PageSave)} WHERE save_id IN ({quoted})", set(save_ids))


def assert_on_every_member(save_ids):
    missing = missing_on_members(save_ids)
    assert not any(missing.values()), {name: sorted(lacking) for name, lacking in missing.items() if lacking}


def test_the_walk_through_the_load_balancer_and_every_acknowledged_save_on_every_member(base_url, codes):
    walkers = [Walker(base_url, next(codes)) for _ in range(4)]
    for walker in walkers:
        walker.login()
        assert walker.walk()["completed"]
        status, _, text = walker.web.request("GET", "/take/complete/")
        assert status == 200, text[:300]
    assert {status for walker in walkers for _, _, status in walker.statuses} <= {200, 302}
    assert_on_every_member([save_id for walker in walkers for save_id in walker.acknowledged])


def test_both_web_hosts_serve_and_see_the_clients_address_not_the_load_balancers(base_url):
    addresses = hosts()
    for name in ("web1", "web2"):
        with urllib.request.urlopen(f"http://{addresses[name]}:80/ping/", timeout=5) as response:
            assert response.read() == b"ok"
    probe = uuid.uuid4().hex
    for _ in range(4):  # to both web hosts
        with urllib.request.urlopen(f"{base_url}/ping/?probe={probe}", timeout=5) as response:
            assert response.status == 200
    time.sleep(1.5)  # nginx writes its access log every second
    lines = [line for name in ("web1", "web2") for line in
             (ROOT / ".lab" / name / "var" / "lib" / "survey-web" / "log" / "nginx-access.log").read_text().splitlines()
             if probe in line]
    # The controller, on the bridge's own address (10.77.0.1): nginx takes it from lb1's X-Real-IP.
    assert len(lines) == 4 and all(line.startswith("10.77.0.1 ") for line in lines), lines


STAFF = """
from django.contrib.auth import get_user_model
from accounts.models import StaffMember
from rosters.directory import schools_ensure
from bench.survey_document import bench_document
from surveys.services import survey_create
tag = "{tag}"
schools_ensure([("LD-" + tag, "Lab district", "LA-" + tag, "Lab school A")])
survey_create(document=bench_document(slug="staff-" + tag, pages=2))
user = get_user_model().objects.create_user(username="state-" + tag, password="lab test passphrase 1")
StaffMember.objects.create(user=user, role=StaffMember.Role.STATE_ADMIN)
"""


def poll(web, url, until, timeout=120):
    """Poll a job's progress until it is finished; it must end as ``until``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, _, text = web.request("GET", url, headers={"Accept": "application/json"})
        assert status == 200, text[:300]
        progress = json.loads(text)
        if progress["finished"]:
            assert progress["status"] == until, progress
            return progress
        time.sleep(0.3)
    raise AssertionError(f"{url} still {progress} after {timeout} s")


def test_staff_import_a_roster_print_slips_and_export_through_the_load_balancer(base_url):
    tag = uuid.uuid4().hex[:8]
    manage("shell", "--no-imports", "-c", STAFF.format(tag=tag))
    web = stack.WebClient(base_url=base_url)
    status, headers, _ = web.post_form("/staff/login/", {"username": f"state-{tag}", "password": "lab test passphrase 1"})
    assert status == 302, headers
    survey_path = f"/staff/surveys/staff-{tag}/"
    # The monitoring page draws with chart.js: the release carries the npm files git does not (STATICFILES_DIRS).
    status, _, page = web.request("GET", survey_path + "monitoring/")
    assert status == 200 and "vendor/chart.js/chart.umd" in page, page[:300]

    # A roster: checked, then applied, by the Celery worker on worker1 (the file through S3 on worker1).
    lines = ["external_id,school_code,grade,role,language"] + [f"p{n},LA-{tag},{3 + n % 9},student,en"
                                                              for n in range(200)]
    status, headers, text = web.post_file(survey_path + "rosters/new/", {}, "file", "roster.csv",
                                          ("\n".join(lines) + "\n").encode())
    assert status == 302, text[:300]
    roster = headers["Location"]
    poll(web, roster + "progress/", until="checked")
    assert web.post_form(roster + "apply/", {})[0] == 302
    poll(web, roster + "progress/", until="applied")

    # The school's slips: a PDF the worker makes and stores on S3.
    status, headers, text = web.post_form(survey_path + f"schools/LA-{tag}/slips/", {})
    assert status == 302, text[:300]
    slips = headers["Location"]
    poll(web, slips + "progress/", until="done")
    status, headers, body = web.request("GET", slips + "download/")
    assert status == 200 and headers["Content-Type"] == "application/pdf" and body.startswith("%PDF"), status

    # An export: made by the worker, fetched by the browser from the object store with a presigned link.
    status, headers, text = web.post_form(survey_path + "exports/", {"format": "csv", "answers": "values",
                                                                     "multiple": "joined"})
    assert status == 302, text[:300]
    export = headers["Location"]
    poll(web, export + "progress/", until="done")
    status, headers, _ = web.request("GET", export + "download/")
    # The link names the load balancer's address (the app's public URL, without :80): the web hosts' nginx passes
    # it on to MinIO over HTTPS.
    assert status == 302 and headers["Location"].startswith(f"{base_url.removesuffix(':80')}/survey-media/"), headers
    with urllib.request.urlopen(headers["Location"], timeout=10) as response:
        assert response.status == 200
        archive = zipfile.ZipFile(io.BytesIO(response.read()))  # the answers and their codebook
    assert "p1_single" in archive.read(f"staff-{tag}.csv").decode("utf-8-sig").splitlines()[0]


# ---------------------------------------------------------------- a host dies

def walk_in_threads(base_url, codes, count, seconds):
    """``count`` threads, each walking respondents through the survey one after another (a new code each time)
    for ``seconds``: return the list the walkers are added to, the threads and a list of their errors."""
    walkers, errors, lock, stop = [], [], threading.Lock(), time.monotonic() + seconds

    def run():
        try:
            while time.monotonic() < stop:
                with lock:
                    walker = Walker(base_url, next(codes), think=0.5)
                    walkers.append(walker)
                walker.login()
                walker.walk()
        except (AssertionError, OSError, StopIteration) as error:
            errors.append(repr(error))

    threads = [threading.Thread(target=run, daemon=True) for _ in range(count)]
    for thread in threads:
        thread.start()
    return walkers, threads, errors


def statuses(walkers, what=None):
    return sorted({status for walker in walkers for _, kind, status in walker.statuses if what in (None, kind)})


def test_a_killed_patroni_leader_with_saves_in_flight_costs_503s_and_loses_no_acknowledged_save(base_url, codes):
    old = leader()
    assert old, f"no Patroni leader: {cluster()}"
    walkers, threads, errors = walk_in_threads(base_url, codes, 4, seconds=60)
    time.sleep(8)
    killed_at = time.time()
    lab("kill", old)
    try:
        new = leader(other_than=old)
        promoted_at = time.time()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        lab("start", old)
    assert not errors, errors
    assert new, f"no new leader 60 s after {old} died"
    saves = [(at, status) for walker in walkers for at, kind, status in walker.statuses if kind == "save"]
    refused = [at - killed_at for at, status in saves if status == 503]
    first_after = min((at - killed_at for at, status in saves if status == 200 and at > promoted_at), default=None)
    print(f"\nleader {old} killed; {new} leader after {promoted_at - killed_at:.1f} s; first save after the "
          f"promotion at +{first_after:.1f} s; {sum(1 for _, s in saves if s == 200)} saves acknowledged, "
          f"{len(refused)} answered 503 (from +{min(refused, default=0):.1f} s to +{max(refused, default=0):.1f} s); "
          f"statuses seen: {statuses(walkers)}")
    back, _ = wait_for(lambda: cluster().get(old) in {"replica", "sync_standby"}, 90)
    acknowledged = [save_id for walker in walkers for save_id in walker.acknowledged]
    missing = missing_on_members(acknowledged)  # the old leader's too, now it is back as a replica
    print(f"acknowledged saves missing afterwards: { {name: len(lacking) for name, lacking in missing.items()} }")
    assert set(statuses(walkers)) <= {200, 302, 503}, statuses(walkers)
    assert refused, "no save was in flight while the leader was gone: the test proved nothing"
    assert first_after is not None
    assert back, cluster()
    assert not any(missing.values()), {name: sorted(lacking) for name, lacking in missing.items() if lacking}


def test_a_killed_web_host_leaves_the_walk_to_the_other(base_url, codes):
    walker = Walker(base_url, next(codes))
    walker.login()
    walker.walk(range(1, 2))
    lab("kill", "web1")
    try:
        started = time.monotonic()
        saved = walker.walk(range(2, PAGES + 1))
        print(f"\nweb1 killed: pages 2-{PAGES} walked through web2 in {time.monotonic() - started:.1f} s")
        assert saved["completed"] and statuses([walker]) == [200, 302]
    finally:
        lab("start", "web1")
    address = hosts()["web1"]

    def serves():
        try:
            with urllib.request.urlopen(f"http://{address}:80/ping/", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    back, _ = wait_for(serves, 60)
    assert back


def test_a_killed_redis_primary_is_promoted_away_and_respondents_stay_logged_in(base_url, codes):
    addresses = hosts()
    by_address = {address: name for name, address in addresses.items()}
    old = by_address[sentinel_primary()]
    walker = Walker(base_url, next(codes))
    walker.login()
    walker.walk(range(1, 2))
    lab("kill", old)
    try:
        killed_at = time.monotonic()
        saved = walker.walk(range(2, PAGES + 1))  # 503s are retried, as survey.js does; a login page would fail
        print(f"\nRedis primary {old} killed: the walk went on after {time.monotonic() - killed_at:.1f} s, "
              f"statuses {statuses([walker])}")
        assert saved["completed"]
        status, _, page = walker.web.request("GET", "/take/complete/")
        assert status == 200, page[:300]
        assert set(statuses([walker])) <= {200, 302, 503}
        assert sentinel_primary() != addresses[old]
    finally:
        lab("start", old)
    back, _ = wait_for(lambda: redis_role(old).get("master_link_status") == "up", 60)
    assert back, redis_role(old)
