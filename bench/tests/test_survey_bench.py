"""The bench's figures and verdict (bench/survey_bench.py): the report from the runs, the comparison with skip
logic, each run's gunicorn CPU, and what fails a run."""
import argparse
import json
import re

import pytest

from bench import stack, survey_bench


def figures(*, rps, samples, failed=0, retried=0, jmeter_cpu_s=1.0, duration_s=60.0, cpu_ms=None):
    """A run's figures as stack.jmeter_run (and cpu_measured_run, with ``cpu_ms``) return them."""
    latency = {view: {"mean": 12.0, "p50": 10.0, "p95": 20.0, "p99": 30.0} for view in stack.VIEWS if view != "complete"}
    run = {"jtl": "results.jtl", "rps": rps, "samples": samples, "failed": failed, "retried": retried,
           "duration_s": duration_s, "latency": latency, "jmeter_cpu_s": jmeter_cpu_s}
    return run if cpu_ms is None else {**run, "gunicorn_cpu_ms_per_request": cpu_ms}


CHECK = {"acknowledged_saves": 300, "acknowledged_answers": 1500, "answers_in_database": 1500, "lost_answers": 0,
         "completed_acknowledged": 15, "completed_lost": 0, "respondents_used": 40}


def bench_args(**changes):
    return argparse.Namespace(**{"pages": 20, "threads": 50, "think": 0, "duration": 60, "compare_rounds": 3,
                                 "compare_duration": 20, **changes})


PLAIN = {"slug": "bench-1", "count": 2450, "expected_per_page": {page: 5 for page in range(1, 21)}}
FOOTPRINT = {"bytes_per_row": {"respondent": 300.0, "page_save": 120.0, "answer": 150.5}, "bytes_per_session": 900,
             "sessions": 40, "wal_bytes": 3_000_000, "cached_bytes_per_page": 4000, "gunicorn_rss_mb_per_worker": 80.5,
             "replica_tps": 200.04, "backup_compression": 6.5}
SETTINGS = {"cores": 2, "gunicorn_workers": 5, "pgbouncer_pool": 20, "celery_concurrency": 2, "synchronous": False}


def report_of(**changes):
    return survey_bench.bench_report(**{
        "args": bench_args(), "plain": PLAIN, "survey": figures(rps=400.0, samples=24_000, jmeter_cpu_s=30.0),
        "floor": figures(rps=800.0, samples=48_000, cpu_ms=2.0),
        "ceiling": figures(rps=1600.0, samples=96_000, cpu_ms=0.5), "check": CHECK,
        "cpu_spent": {"gunicorn": 120.004, "postgresql_master": 30.0}, "master_tps": 1234.56, "replica_lag": 0.01,
        "conditional": {}, "machine": "2 cores", "footprint": FOOTPRINT, "pgbench_tps": {"async": 4000, "sync": 3600},
        "paced": {**figures(rps=23.0, samples=690, cpu_ms=4.9, duration_s=30.0), "gunicorn_idle_cpu_per_s": 0.023},
        "settings": SETTINGS, **changes})


def test_the_report_sets_the_survey_against_its_floor_and_ceiling_per_request_and_per_hour():
    report = report_of()
    assert (report["survey_rps"], report["floor_rps"], report["ceiling_rps"]) == (400.0, 800.0, 1600.0)
    assert report["ratio"] == 0.25 and report["floor_ratio"] == 0.5
    # At a human pace 4.9 ms a request, of which 0.023 CPU s a second with no load over 30 s and 690 requests: 1.0
    assert report["gunicorn_cpu_ms_per_request"] == {"survey": 5.0, "floor": 2.0, "ping": 0.5, "paced": 3.9}
    assert report["gunicorn_idle_cpu_per_s"] == 0.023
    assert report["paced_rps"] == 23.0 and report["paced_think_s"] == 5
    assert report["jmeter_cpu_ms_per_request"] == {"survey": 1.25, "floor": 0.021, "ping": 0.01}
    assert report["cpu_s"] == {"gunicorn": 120.0, "postgresql_master": 30.0, "jmeter": 30.0}
    assert report["surveys_per_s"] == 0.25 and report["surveys_per_hour"] == 900 and report["answers_per_s"] == 25.0
    assert report["p99_ms"]["change_page"] == 30.0 and report["p99_ms"]["complete"] is None
    assert report["master_tps"] == 1234.6 and report["respondents_created"] == 2450 and report["lost_answers"] == 0
    assert survey_bench.problems(report, smoke=False) == []


def test_the_report_carries_the_survey_s_cpu_over_the_floor_s_and_what_the_planner_sizes_from():
    report = report_of()
    assert report["survey_cpu_over_floor"] == 2.5  # 5.0 ms against the floor's 2.0, same run
    assert report["requests_per_respondent"] == 44 and report["answers_per_page"] == 5.0
    # 400 requests a second: 1234.56 and 200.04 transactions a second on the master and the replica
    assert report["master_transactions_per_request"] == 3.086 and report["replica_transactions_per_request"] == 0.5
    assert report["wal_bytes_per_save"] == 10_000  # 3 MB of WAL over CHECK's 300 acknowledged saves
    assert report["bytes_per_row"]["answer"] == 150.5 and report["bytes_per_session"] == 900
    assert report["cached_bytes_per_page"] == 4000 and report["gunicorn_rss_mb_per_worker"] == 80.5
    assert report["pgbench_page_saves_per_s"] == {"async": 4000, "sync": 3600} and report["settings"] == SETTINGS
    assert report["backup_compression"] == 6.5
    assert report["jmeter_runs"] == [{"samples": 24_000, "jmeter_cpu_s": 30.0, "duration_s": 60.0}]


def test_a_ceiling_that_answered_nothing_gives_no_ratio_rather_than_a_division_by_zero():
    report = report_of(survey=figures(rps=400.0, samples=10), floor=figures(rps=0.0, samples=0, cpu_ms=0.0),
                       ceiling=figures(rps=0.0, samples=0, cpu_ms=0.0), cpu_spent={"gunicorn": 1.0}, master_tps=0,
                       replica_lag=None)
    assert report["ratio"] is None and report["floor_ratio"] is None and report["survey_cpu_over_floor"] is None


BENCH_REPORT = {**CHECK, "failed_samples": 0, "respondents_created": 2450}


@pytest.mark.parametrize("changes, problem", [
    ({"lost_answers": 3}, "LOST: 3 acknowledged answers and 0 completions are not in PostgreSQL"),
    ({"completed_lost": 1}, "LOST: 0 acknowledged answers and 1 completions are not in PostgreSQL"),
    ({"failed_samples": 2}, "2 samples failed"),
    ({"acknowledged_saves": 0}, "no save was acknowledged"),
    ({"respondents_used": 2450}, "the respondents ran out before the end"),
    ({"floor_failed_samples": 4}, "4 samples of the floor plan failed"),
    ({"conditional_lost_answers": 1, "conditional_completed_lost": 0}, "LOST with skip logic: 1 acknowledged answers"),
    ({"conditional_failed_samples": 5}, "5 samples of the survey with skip logic failed"),
])
def test_a_lost_answer_a_failed_sample_no_save_or_too_few_respondents_fails_the_bench(changes, problem):
    [found] = survey_bench.problems({**BENCH_REPORT, **changes}, smoke=False)
    assert found.startswith(problem)


def test_a_smoke_run_is_not_failed_for_using_every_respondent_it_made():
    smoke = {**CHECK, "failed_samples": 0, "respondents_used": 6}  # no respondents_created: none to spare
    assert survey_bench.problems(smoke, smoke=True) == []


def test_write_and_judge_writes_the_report_prints_the_table_and_exits_with_every_problem(tmp_path, capsys):
    report = {"mode": "smoke", **CHECK, "samples": 120, "failed_samples": 1, "retried_samples": 2, "lost_answers": 2,
              "floor_samples": 12, "floor_failed_samples": 0}
    with pytest.raises(SystemExit, match=r"^bench: LOST: 2 acknowledged answers .*; 1 samples failed"):
        survey_bench.write_and_judge(report, tmp_path / "smoke.json", smoke=True)
    assert json.loads((tmp_path / "smoke.json").read_text()) == report
    printed = capsys.readouterr().out
    assert re.search(r"^LOST answers +2$", printed, re.M)
    assert re.search(r"^floor: samples / failed +12 / 0$", printed, re.M)


def test_a_run_s_gunicorn_cpu_is_what_gunicorn_spent_during_it_per_request(monkeypatch):
    spent = iter([{"gunicorn": 10.0}, {"gunicorn": 13.0}])
    monkeypatch.setattr(survey_bench, "cpu_seconds", lambda: next(spent))
    monkeypatch.setattr(survey_bench, "jmeter_run", lambda plan, name, **kwargs: figures(rps=100.0, samples=1500))
    run = survey_bench.cpu_measured_run("floor", "bench-1-floor", threads=50, iterations=-1, duration=15, think=0)
    assert run["gunicorn_cpu_ms_per_request"] == 2.0 and run["rps"] == 100.0


def test_the_comparison_with_skip_logic_alternates_which_goes_first_and_takes_the_median_of_the_pairs(monkeypatch):
    plain = {"slug": "plain", "expected_per_page": {1: 5}}
    ruled = {"slug": "ruled", "expected_per_page": {1: 5}}
    # Each round: (rps, gunicorn CPU ms/request) with skip logic, then without.
    rounds = {1: {True: (90.0, 5.5), False: (100.0, 5.0)}, 2: {True: (80.0, 6.0), False: (100.0, 5.0)},
              3: {True: (95.0, 5.2), False: (100.0, 4.0)}}
    order = []

    def run(plan, name, **kwargs):
        slug, round_ = name.rsplit("-r", 1)
        with_rules = slug == "ruled"
        order.append((int(round_), with_rules))
        rps, cpu = rounds[int(round_)][with_rules]
        return figures(rps=rps, samples=1000, failed=1 if with_rules else 0, cpu_ms=cpu)

    def check(jtl, slug, expected):
        assert slug == "ruled"  # the data check is of the runs with skip logic
        return {**CHECK, "lost_answers": 1, "acknowledged_saves": 100}

    monkeypatch.setattr(survey_bench, "respondents_csv", lambda taking, count, name: f"{taking['slug']}-{name}.csv")
    monkeypatch.setattr(survey_bench, "cpu_measured_run", run)
    monkeypatch.setattr(survey_bench, "data_check", check)
    result = survey_bench.compare_conditions(bench_args(), plain, ruled)
    assert order == [(1, True), (1, False), (2, False), (2, True), (3, True), (3, False)]
    assert result["conditional_ratios"] == [0.9, 0.8, 0.95] and result["conditional_ratio"] == 0.9
    assert result["conditional_gunicorn_cpu_ms_per_request"] == [5.5, 6.0, 5.2]
    assert result["conditional_cpu_ratio"] == 1.1  # 5.5 / 5.0, the medians
    assert result["conditional_failed_samples"] == 3 and result["conditional_lost_answers"] == 3
    assert result["conditional_acknowledged_saves"] == 300 and result["conditional_survey"] == "ruled"
    assert result["conditional_change_page_p99_ms"] == [30.0, 30.0, 30.0]
    # JMeter's cost of each run without skip logic (the plain survey's, as the main run)
    assert result["unconditional_jmeter_runs"] == [{"samples": 1000, "jmeter_cpu_s": 1.0, "duration_s": 60.0}] * 3
