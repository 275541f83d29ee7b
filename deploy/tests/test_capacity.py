"""The capacity plan (deploy/capacity.py and its command line, deploy/plan): the model's arithmetic on a bench
report of round numbers, the settings it writes for the inventory, its warnings, and its check against sizing
runs. No database: the planner needs none."""
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from deploy import capacity

ROOT = Path(__file__).resolve().parents[2]

# A bench report in bench/survey_bench.py's shape, with round figures: 100 requests a second for 100 s, each
# costing 4 ms of gunicorn's CPU, 1 of nginx's, 1 of pgbouncer's, 2 of the master's, 0.5 of the replica's, 0.5 of
# Redis's and memcached's, 2 of JMeter's: 11 ms, 1.1 cores busy. At a human pace gunicorn's 4 ms are 5.
REPORT = {
    "machine": "2 cores (test), 8 GiB", "pages": 20, "answers_per_page": 5.0, "threads": 50, "think_s": 0,
    "duration_s": 100.0, "survey_rps": 100.0, "samples": 10_000,
    "cpu_s": {"gunicorn": 40.0, "nginx": 10.0, "pgbouncer": 10.0, "postgresql_master": 20.0,
              "postgresql_replica": 5.0, "redis": 3.0, "memcached": 2.0, "celery": 0.0, "jmeter": 20.0},
    "gunicorn_cpu_ms_per_request": {"survey": 4.0, "floor": 2.0, "ping": 0.5, "paced": 5.0},
    "jmeter_cpu_ms_per_request": {"survey": 2.0, "floor": 1.0, "ping": 0.5},
    "conditional_cpu_ratio": 1.1,
    "mean_ms": {"login": 100.0, "display": 100.0, "content": 40.0, "change_page": 60.0, "complete": 100.0,
                "Total": 50.0},
    "p50_ms": {"login": 90.0, "display": 90.0, "content": 35.0, "change_page": 50.0, "complete": 90.0},
    "master_transactions_per_request": 2.0, "replica_transactions_per_request": 0.5,
    "wal_bytes_per_save": 10_000, "bytes_per_row": {"respondent": 400.0, "page_save": 200.0, "answer": 100.0},
    "bytes_per_session": 1000, "cached_bytes_per_page": 50_000, "gunicorn_rss_mb_per_worker": 100.0,
    "pgbench_page_saves_per_s": {"async": 4000, "sync": 2000}, "backup_compression": 5.0,
    "settings": {"cores": 2, "gunicorn_workers": 5, "pgbouncer_pool": 20, "celery_concurrency": 2,
                 "synchronous": False},
}


def measured(**changes):
    return capacity.Measurements({**REPORT, **changes}, source="report.json")


def planned(**inputs):
    return capacity.plan(capacity.Inputs(**inputs), measured())


def test_a_respondent_of_a_p_page_survey_makes_2p_plus_4_requests_and_the_peak_gives_each_kind_s_rate():
    assert sum(capacity.requests_by_kind(55).values()) == 114
    rates = planned(takers_per_hour=36_000, pages=10)["rates"]
    assert rates["respondents_per_s"] == 10 and rates["per_respondent"] == 24
    assert rates["by_kind"] == {"login_form": 10, "login": 10, "display": 10, "content": 100, "change_page": 100,
                                "complete": 10}
    assert rates["requests_per_s"] == 240 and rates["saves_per_s"] == 100


def test_the_web_tier_needs_its_measured_cpu_a_request_times_the_rate_over_what_the_headroom_leaves():
    result = planned(takers_per_hour=36_000, pages=10, headroom=0.3, web_cores=4, spare_web_hosts=1)
    web = result["web"]
    assert web["cpu_ms_per_request"] == pytest.approx(7.0)  # gunicorn 5 at a human pace + nginx 1 + pgbouncer 1
    assert web["cores"] == pytest.approx(240 * 7 / 1000 / 0.7)  # 2.4
    assert web["hosts"] == 2  # one host of 4 cores carries it, one more so that losing one leaves enough
    assert web["workers_per_host"] == 9 and web["ram_mb_per_host"] == 900


def test_skip_logic_on_a_share_of_the_pages_adds_that_share_of_the_measured_cost_to_gunicorn_s_cpu():
    assert planned(conditional_share=0.5)["web"]["gunicorn_ms"] == pytest.approx(5.0 * 1.05)
    assert planned(conditional_share=0.0)["web"]["gunicorn_ms"] == pytest.approx(5.0)


def test_without_a_run_at_a_human_pace_the_saturated_cpu_is_used_and_the_plan_says_so():
    report = {**REPORT, "gunicorn_cpu_ms_per_request": {"survey": 4.0, "floor": 2.0, "ping": 0.5}}
    result = capacity.plan(capacity.Inputs(), capacity.Measurements(report, source="old.json"))
    assert result["web"]["gunicorn_ms"] == pytest.approx(4.0)
    assert any("no run at a human pace" in warning for warning in result["warnings"])


def test_the_seed_s_case_needs_web_hosts_enough_for_1600_requests_a_second_and_one_spare():
    result = planned(takers_per_hour=50_000, pages=55, questions=5, think_s=20)
    assert result["rates"]["requests_per_s"] == pytest.approx(50_000 / 3600 * 114)  # 1,583
    cores = 50_000 / 3600 * 114 * 7 / 1000 / 0.7  # 15.8
    assert result["web"]["hosts"] == math.ceil(cores / 4) + 1


def test_the_database_s_commits_are_held_against_pgbench_s_ceiling_in_the_chosen_mode():
    sync = planned(takers_per_hour=36_000, pages=10, synchronous=True)["database"]
    assert sync["mode"] == "sync" and sync["write_ceiling"] == 2000 and sync["write_use"] == pytest.approx(0.05)
    assert sync["master_tps"] == pytest.approx(480) and sync["replica_tps"] == pytest.approx(120)
    assert planned(takers_per_hour=36_000, pages=10, synchronous=False)["database"]["write_use"] == pytest.approx(0.025)


def test_connections_pools_above_the_workers_and_max_connections_above_every_pool_that_may_reach_one_server():
    result = planned(takers_per_hour=36_000, pages=10, web_cores=4, worker_cores=2)
    connections = result["connections"]
    assert connections["pool"] == 9 + 5 and connections["per_app_host"] == 14 + capacity.PGBOUNCER_RESERVE
    assert connections["app_hosts"] == result["web"]["hosts"] + 1  # and the Celery host
    assert connections["server_connections"] == 3 * 19 + capacity.OTHER_CONNECTIONS
    assert connections["max_connections"] >= connections["server_connections"]
    assert connections["max_connections"] % 10 == 0 and connections["max_connections"] >= 100


def test_sessions_in_redis_are_arrivals_times_how_long_a_session_lives_little_s_law():
    result = planned(takers_per_hour=36_000, pages=10, think_s=30, idle_timeout_s=3600)
    taking = 10 * 30 + 24 * 0.009  # think on each page; each request: its processes' 9 ms of CPU, unqueued
    assert result["rates"]["taking_min"] == pytest.approx(taking / 60)
    assert result["memory"]["sessions"] == pytest.approx(10 * (taking + 3600))
    assert result["memory"]["redis_mb"] == pytest.approx(10 * (taking + 3600) * 1000 * 2 / 2**20)


def test_disk_wal_an_hour_the_database_after_the_survey_and_its_backups():
    result = planned(takers_per_hour=36_000, pages=10, questions=5, respondents=1_000_000)
    disk = result["disk"]
    assert disk["wal_per_hour"] == 100 * 3600 * 10_000  # 3.6 GB
    assert disk["answers"] == 50_000_000
    assert disk["database"] == 1_000_000 * (400 + 10 * 200) + 50_000_000 * 100  # 7.4 GB
    assert disk["full_backup"] == pytest.approx(disk["database"] / 5)
    assert disk["repository"] == pytest.approx(2 * disk["database"] / 5 + 1_000_000 * 10 * 10_000 / 5)


def test_memcached_keeps_the_roles_default_unless_the_definitions_need_more():
    assert planned(pages=55)["memory"]["memcached_mb"] == capacity.MEMCACHED_DEFAULT_MB  # 5 MB of definitions
    big = planned(pages=60, surveys=200)["memory"]
    assert big["cached_mb"] == pytest.approx(200 * 60 * 2 * 50_000 / 2**20)  # 1,144 MB
    assert big["memcached_mb"] >= 4 * big["cached_mb"] and big["memcached_mb"] % 64 == 0


@pytest.mark.parametrize("inputs, changes, expected", [
    ({"questions": 12}, {}, "12 questions a page, measured with 5"),
    ({"takers_per_hour": 2_000_000, "pages": 60}, {}, "of pgbench's sync ceiling"),
    ({"peak_hours": 0.25, "think_s": 60}, {}, "the peak (0.25 h) is shorter than a survey takes"),
    ({}, {"backup_compression": None}, "backup sizes assume none"),
    ({"conditional_share": 0.5}, {"conditional_cpu_ratio": None}, "no run with skip logic"),
    ({"web_cores": 16}, {}, "web hosts of 16 cores, measured on 2"),
    ({"takers_per_hour": 50_000, "pages": 55}, {}, "times the measured throughput"),
])
def test_an_input_outside_what_was_measured_is_warned_about(inputs, changes, expected):
    result = capacity.plan(capacity.Inputs(**inputs), measured(**changes))
    assert any(expected in warning for warning in result["warnings"]), result["warnings"]


def test_the_plan_says_what_its_hosts_carry_with_one_lost_and_warns_when_the_given_hosts_are_too_few():
    result = planned(takers_per_hour=36_000, pages=10, web_cores=4, spare_web_hosts=1)
    # 3 cores a web host of 4 after the headroom, 7 ms a request, 24 requests a respondent; one of two hosts lost
    assert result["carries"]["web"] == pytest.approx(4 * 0.7 * 1000 / 7 / 24 * 3600)  # 60,000 an hour
    assert result["carries"]["database"] == pytest.approx(2000 * 0.7 / 10 * 3600)  # the sync ceiling: 504,000
    short = planned(takers_per_hour=200_000, pages=10, web_cores=4, web_hosts=2)
    assert short["web"]["hosts"] == 2 and short["web"]["needed_hosts"] == 5
    assert any("2 web hosts carry 60,000 takers an hour with one lost, not 200,000: 5 are needed" in warning
               for warning in short["warnings"]), short["warnings"]


def test_more_requests_in_flight_than_the_workers_take_is_warned_about():
    # 9 ms a request unqueued; one 1-core host's 3 workers (70% usable: 2.1) take 233 requests a second.
    result = planned(takers_per_hour=36_000, pages=10, web_cores=1, web_hosts=2)  # 240 a second
    assert result["rates"]["requests_in_flight"] == pytest.approx(240 * 0.009)
    assert any("requests in flight at once for 1 x 3 workers" in warning for warning in result["warnings"])
    assert not any("in flight" in warning for warning in planned(takers_per_hour=36_000, pages=10)["warnings"])


def test_inputs_inside_what_was_measured_bring_no_warning():
    result = planned(takers_per_hour=3_000, pages=20, questions=5, think_s=0.1, web_cores=2)
    assert result["warnings"] == []


def test_a_report_without_what_the_planner_needs_is_refused_naming_what_is_missing():
    report = {key: value for key, value in REPORT.items() if key != "wal_bytes_per_save"}
    with pytest.raises(capacity.MeasurementError, match="wal_bytes_per_save"):
        capacity.Measurements(report, source="old.json")


def role_defaults():
    names = set()
    for defaults in (ROOT / "deploy" / "ansible" / "roles").glob("*/defaults/main.yml"):
        names |= set(re.findall(r"^(\w+):", defaults.read_text(), re.MULTILINE))
    return names


def test_the_settings_written_for_the_inventory_are_the_roles_own_variables_with_the_plan_s_values():
    result = planned(takers_per_hour=50_000, pages=55)
    text = capacity.group_vars(result, command="deploy/plan --takers-per-hour 50000")
    settings = dict(line.split(": ", 1) for line in text.splitlines() if line and not line.startswith("#"))
    assert settings["web_gunicorn_workers"] == "9" and settings["pgbouncer_pool_size"] == "14"
    assert int(settings["plan_web_hosts"]) == result["web"]["hosts"]
    assert int(settings["postgresql_max_connections"]) == result["connections"]["max_connections"]
    assert settings["patroni_synchronous_mode"] == "true"
    # Every setting but the plan's own is a role's variable: a misspelt name would change nothing.
    assert {name for name in settings if not name.startswith("plan_")} <= role_defaults()
    assert "deploy/plan --takers-per-hour 50000" in text


def test_the_plan_prints_every_section_and_its_warnings():
    text = capacity.table(planned(takers_per_hour=50_000, pages=55, questions=12))
    for heading in ("At the peak", "Machines and processes", "Connections", "Memory and disk", "Warnings"):
        assert heading in text
    assert "requests a second                    1,583" in text


# ---------------------------------------------------------------- the model against the load generator's runs

def test_mean_value_analysis_one_client_takes_its_demand_many_saturate_the_cores_and_think_time_spaces_them():
    x, r = capacity.mean_value_analysis(1, 0.010, 2, 0)
    assert x == pytest.approx(100) and r == pytest.approx(0.010)
    x, r = capacity.mean_value_analysis(50, 0.010, 2, 0)
    assert x == pytest.approx(200, rel=0.01) and r == pytest.approx(50 / 200, rel=0.01)  # Little's law: N = X R
    x, _ = capacity.mean_value_analysis(50, 0.010, 2, 1.0)
    assert x == pytest.approx(50 / 1.010, rel=0.01)  # far from saturation: each client once a think time


def test_a_run_s_samples_follow_each_thread_through_the_plan_from_its_ramp_up_start_to_the_end():
    responses = {kind: 0.125 for kind, _ in capacity.plan_sequence(1)}
    # No think time, one thread: a request every 0.125 s for 10 s.
    assert capacity.samples_in_window(threads=1, duration_s=10, rampup_s=0, pages=2, think_s=0,
                                      response_s=responses) == 80
    # One thread, think 1 s a page, 2 pages: login form, login, display and content by 0.5 s, a save after a
    # second of thought (1.5-1.625 s), content, think, save (2.75-2.875), complete: 8 requests by 3 s; then the
    # next respondent's first 4 by 3.5 s, and its first save would start at 4.5 s, after the end (4 s).
    assert capacity.samples_in_window(threads=1, duration_s=4, rampup_s=0, pages=2, think_s=1,
                                      response_s=responses) == 12
    # A second thread, starting half-way through the ramp-up (2 s): its first 4, a save at 3.5 s and a content.
    assert capacity.samples_in_window(threads=2, duration_s=4, rampup_s=4, pages=2, think_s=1,
                                      response_s=responses) == 12 + 6


def test_a_saturated_run_is_predicted_at_the_busy_cores_over_every_process_s_cpu_a_request():
    rps, p50 = capacity.predict_run(measured(), workers=5, pool=20, think_s=0, threads=50, duration_s=30,
                                    rampup_s=5, pages=20)
    # 1.1 cores busy, 11 ms a request: 100 a second, as measured; the save's p50 is its share of the response time
    assert rps == pytest.approx(100, rel=0.02)
    assert p50 == pytest.approx(50 / rps * 1000 * 50 / 50, rel=0.02)


def test_sync_workers_serve_at_most_workers_over_a_request_s_time_in_the_worker():
    # 2.2 cores busy at 11 ms a request: the cores would serve 200 a second; a request holds its worker for
    # gunicorn's 4 ms, pgbouncer's 1, PostgreSQL's 2.5 and the caches' 0.5: 8 ms, so one worker serves 125.
    twice_as_busy = measured(duration_s=50.0)
    one, _ = capacity.predict_run(twice_as_busy, workers=1, pool=20, think_s=0, threads=50, duration_s=30,
                                  rampup_s=5, pages=20)
    five, _ = capacity.predict_run(twice_as_busy, workers=5, pool=20, think_s=0, threads=50, duration_s=30,
                                   rampup_s=5, pages=20)
    assert one == pytest.approx(125) and five == pytest.approx(200, rel=0.02)


def test_a_pool_serves_at_most_its_connections_over_the_database_s_time_a_request():
    # pgbouncer's 1 ms and the master's 70 a request: a pool of 1 and the reserve of 5 serve 85 a second, fewer
    # than the cores' 100.
    heavy_database = measured(cpu_s={**REPORT["cpu_s"], "postgresql_master": 700.0})
    rps, _ = capacity.predict_run(heavy_database, workers=50, pool=1, think_s=0, threads=50, duration_s=30,
                                  rampup_s=5, pages=20)
    assert rps == pytest.approx((1 + capacity.PGBOUNCER_RESERVE) / 0.071)
    rps, _ = capacity.predict_run(heavy_database, workers=50, pool=20, think_s=0, threads=50, duration_s=30,
                                  rampup_s=5, pages=20)
    assert rps == pytest.approx(100, rel=0.02)


SIZING = {"machine": "2 cores (test)", "threads": 50, "duration_s": 30, "pages": 20, "rampup_s": 5, "runs": [
    {"workers": 5, "pool": 20, "think_s": 0, "rps": rps, "change_page_p50_ms": p50}
    for rps, p50 in ((90.0, 400.0), (100.0, 500.0), (140.0, 450.0))] + [
    {"workers": 5, "pool": 20, "think_s": 5, "rps": 10.0, "change_page_p50_ms": None}]}


def test_the_check_compares_each_setting_s_median_with_the_prediction_and_marks_what_is_off():
    rows = capacity.check(measured(), SIZING)
    saturated, thinking = rows
    assert saturated["runs"] == [90.0, 100.0, 140.0] and saturated["rps"] == 100.0 and saturated["p50_ms"] == 450.0
    assert abs(saturated["rps_error"]) < 0.02
    assert thinking["rps_error"] > 0.2 and thinking["p50_error"] is None
    text = capacity.check_table(rows, measured=measured(), sizing=SIZING, tolerance=0.2)
    assert text.count("<- off") == 1 and "90 100 140" in text


def run_plan(*args):
    return subprocess.run([sys.executable, str(ROOT / "deploy" / "plan"), *args], capture_output=True, text=True)


def test_the_command_plans_from_the_tracked_measurements_without_a_database():
    run = run_plan("--takers-per-hour", "50000", "--pages", "55", "--think", "20")
    assert run.returncode == 0, run.stderr
    assert "web hosts" in run.stdout and "deploy/plan.bench.json" in run.stdout
    as_json = run_plan("--json")
    assert json.loads(as_json.stdout)["rates"]["per_respondent"] == 114


def test_the_command_writes_the_inventory_s_plan_and_refuses_an_inventory_whose_all_is_a_file(tmp_path):
    (tmp_path / "good" / "group_vars" / "all").mkdir(parents=True)
    run = run_plan("--write-vars", str(tmp_path / "good"))
    assert run.returncode == 0, run.stderr
    assert "web_gunicorn_workers:" in (tmp_path / "good" / "group_vars" / "all" / "plan.yml").read_text()
    (tmp_path / "flat" / "group_vars").mkdir(parents=True)
    (tmp_path / "flat" / "group_vars" / "all.yml").write_text("ansible_user: deploy\n")
    run = run_plan("--write-vars", str(tmp_path / "flat"))
    assert run.returncode == 1 and "group_vars/all/main.yml" in run.stderr
    assert not (tmp_path / "flat" / "group_vars" / "all").exists()


@pytest.mark.parametrize("args, message", [
    (["--conditional-share", "1.5"], "a share between 0 and 1"),
    (["--takers-per-hour", "0"], "must be above 0"),
    (["--headroom", "1"], "below 1"),
    (["--mode", "semi"], "invalid choice"),
])
def test_a_bad_input_is_refused_in_one_line(args, message):
    run = run_plan(*args)
    assert run.returncode == 2 and message in run.stderr


def test_a_measurement_file_that_is_not_a_bench_report_is_refused(tmp_path):
    (tmp_path / "smoke.json").write_text(json.dumps({"mode": "smoke"}))
    run = run_plan("--measurements", str(tmp_path / "smoke.json"))
    assert run.returncode == 1 and "not a bench report" in run.stderr and "make bench" in run.stderr


def test_check_exits_1_when_a_throughput_prediction_is_off_and_0_when_each_is_within(tmp_path):
    (tmp_path / "bench.json").write_text(json.dumps(REPORT))
    (tmp_path / "sizing.json").write_text(json.dumps(SIZING))
    run = run_plan("check", "--measurements", str(tmp_path / "bench.json"), "--sizing", str(tmp_path / "sizing.json"))
    assert run.returncode == 1 and "1 of 2 throughput predictions are off" in run.stdout
    only_saturated = {**SIZING, "runs": SIZING["runs"][:3]}
    (tmp_path / "sizing.json").write_text(json.dumps(only_saturated))
    run = run_plan("check", "--measurements", str(tmp_path / "bench.json"), "--sizing", str(tmp_path / "sizing.json"))
    assert run.returncode == 0 and "every throughput prediction is within 20%" in run.stdout


def test_jmeter_s_fixed_cost_a_run_and_its_cost_a_sample_come_from_runs_of_different_lengths():
    runs = [{"samples": 20_000, "jmeter_cpu_s": 32.0, "duration_s": 60.0},
            {"samples": 6_000, "jmeter_cpu_s": 18.0, "duration_s": 20.0},
            {"samples": 5_000, "jmeter_cpu_s": 17.0, "duration_s": 20.0}]
    fixed, per_sample = capacity.jmeter_costs(runs, 1.6)
    assert fixed == pytest.approx(12.0) and per_sample == pytest.approx(1.0)
    # One length only, or a fit that makes no sense: no fixed cost, the measured cost a request.
    assert capacity.jmeter_costs(runs[:1], 1.6) == (0.0, 1.6)
    assert capacity.jmeter_costs([{"samples": 100, "jmeter_cpu_s": 5.0}, {"samples": 200, "jmeter_cpu_s": 4.0}],
                                 1.6) == (0.0, 1.6)


def test_a_shorter_run_loses_more_of_its_cores_to_jmeter_s_fixed_cost():
    # 20 s of JMeter's CPU a run are 2 s fixed and 0.0018 s a sample over the bench's 100 s: the bench's own
    # run is predicted as measured, a 20-s run with a tenth of a core less.
    runs = [{"samples": 10_000, "jmeter_cpu_s": 20.0, "duration_s": 100.0},
            {"samples": 2_000, "jmeter_cpu_s": 5.6, "duration_s": 20.0}]
    bench = measured(jmeter_runs=runs)
    assert (bench.jmeter_fixed_s, bench.jmeter_ms) == (pytest.approx(2.0), pytest.approx(1.8))
    long, _ = capacity.predict_run(bench, workers=5, pool=20, think_s=0, threads=50, duration_s=100, rampup_s=5,
                                   pages=20)
    short, _ = capacity.predict_run(bench, workers=5, pool=20, think_s=0, threads=50, duration_s=20, rampup_s=5,
                                    pages=20)
    assert long == pytest.approx(100, rel=0.01)
    assert short == pytest.approx((1.1 - 2.0 / 20) / 0.0108, rel=0.01)  # 1.0 core at 10.8 ms a request


def test_reference_runs_of_the_check_replace_the_cpu_a_request_and_the_busy_cores_with_their_medians():
    references = [{"samples": 1000, "duration_s": 10.0, "jmeter_cpu_s": 2.0,
                   "cpu_s": {"gunicorn": gunicorn, "postgresql_master": 2.0}} for gunicorn in (3.0, 5.0, 4.0)]
    adjusted = measured().with_references(references)
    assert adjusted.cpu_ms == {"gunicorn": 4.0, "postgresql_master": 2.0, "jmeter": 2.0}
    assert adjusted.busy_cores == pytest.approx(0.8) and adjusted.references == 3
    assert adjusted.mean_ms == measured().mean_ms  # the rest from the bench
    assert measured().with_references([]).references == 0


PLAYBOOK = """- hosts: all
  gather_facts: true
  tasks:
    - ansible.builtin.include_tasks: {tasks}
"""


def test_the_playbook_refuses_an_inventory_with_fewer_web_hosts_or_less_redis_memory_than_the_plan(tmp_path):
    playbook_bin = ROOT / ".venv" / "bin" / "ansible-playbook"
    if not playbook_bin.exists():
        if os.environ.get("CI"):
            pytest.fail("ansible-playbook is missing: make install-lab (.ci/run runs make lint-ansible first)")
        pytest.skip("ansible-playbook is not installed (make install-lab)")
    (tmp_path / "play.yml").write_text(PLAYBOOK.format(
        tasks=ROOT / "deploy" / "ansible" / "roles" / "common" / "tasks" / "plan.yml"))
    (tmp_path / "hosts.yml").write_text(
        "all:\n  hosts:\n    h1: {ansible_connection: local, ansible_python_interpreter: /usr/bin/python3}\n"
        "  children:\n    web: {hosts: {h1: {}}}\n    redis: {hosts: {h1: {}}}\n")

    def play(**plan):
        extra = [arg for name, value in plan.items() for arg in ("-e", f"{name}={value}")]
        return subprocess.run([str(playbook_bin), "-i", str(tmp_path / "hosts.yml"), str(tmp_path / "play.yml"),
                               *extra], capture_output=True, text=True, timeout=120, cwd=tmp_path)

    assert play(plan_web_hosts=1, plan_redis_memory_mb=1).returncode == 0
    short = play(plan_web_hosts=3, plan_redis_memory_mb=1)
    assert short.returncode != 0 and "asks for 3 web hosts (the spare included) and the inventory has 1" in short.stdout
    small = play(plan_web_hosts=1, plan_redis_memory_mb=10**9)
    assert small.returncode != 0 and "MB for Redis's sessions and h1 has" in small.stdout
