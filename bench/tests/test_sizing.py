"""Sizing's table (bench/sizing.py): the runs it makes, each run's row from its figures, and the table printed."""
from bench import sizing


def run(*, rps=123.456, p50=12.0, p99=80.0, cpu=4.5, duration=30.0, failed=0):
    """A run's figures as survey_bench.cpu_measured_run returns them."""
    return {"rps": rps, "latency": {"change_page": {"p50": p50, "p95": 60.0, "p99": p99}}, "failed": failed,
            "gunicorn_cpu_ms_per_request": cpu, "duration_s": duration}


def check(*, completed=5, lost=0):
    return {"completed_acknowledged": completed, "lost_answers": lost}


def test_each_setting_is_tried_alone_with_the_others_at_the_stack_s_defaults():
    args = sizing.parse_args(["--workers", "3,9", "--pools", "5", "--thinks", "0,2.5"])
    assert sizing.settings_tried(args, {"workers": 5, "pool": 20}) == [
        (3, 20, 0), (9, 20, 0), (5, 5, 0), (5, 20, 0), (5, 20, 2.5)]


def test_the_default_runs_are_three_worker_counts_two_pools_and_three_think_times():
    args = sizing.parse_args([])
    assert (args.workers, args.pools, args.thinks, args.duration, args.threads) == ([3, 5, 9], [5, 20], [0, 1, 5], 30, 50)
    assert len(sizing.settings_tried(args, {"workers": 5, "pool": 20})) == 8


def test_a_run_s_row_gives_req_s_the_save_s_latency_cpu_and_survey_takers_an_hour():
    row = sizing.run_figures(run(duration=30.0), check(completed=5, lost=2), workers=5, pool=20, think=1)
    assert row == {"workers": 5, "pool": 20, "think_s": 1, "rps": 123.5, "change_page_p50_ms": 12.0,
                   "change_page_p99_ms": 80.0, "gunicorn_cpu_ms_per_request": 4.5,
                   "takers_per_hour": 600,  # 5 completed in 30 s
                   "failed": 0, "lost_answers": 2}


def test_a_run_in_which_no_one_finished_has_no_takers_an_hour_rather_than_none():
    row = sizing.run_figures(run(), check(completed=0), workers=5, pool=20, think=5)
    assert row["takers_per_hour"] is None


def test_a_run_without_saves_has_no_save_latency():
    figures = {**run(), "latency": {"Total": {"p50": 1.0, "p95": 2.0, "p99": 3.0}}}
    row = sizing.run_figures(figures, check(), workers=3, pool=20, think=0)
    assert row["change_page_p50_ms"] is None and row["change_page_p99_ms"] is None


def test_the_table_has_a_line_a_run_under_its_headings_with_a_dash_for_no_takers():
    rows = [sizing.run_figures(run(), check(completed=5), workers=3, pool=20, think=0),
            sizing.run_figures(run(rps=50.0, failed=2), check(completed=0), workers=5, pool=20, think=5)]
    lines = sizing.table(rows, machine="4 cores (Test CPU), 8 GiB", threads=50, duration=30).splitlines()
    assert lines[0] == "4 cores (Test CPU), 8 GiB, 50 JMeter threads, 30 s each"
    assert lines[1].split() == ["workers", "pool", "think", "s", "req/s", "save", "p50", "save", "p99", "CPU",
                                "ms/req", "takers/h", "failed"]
    assert lines[2].split() == ["3", "20", "0", "123.5", "12.0", "80.0", "4.5", "600", "0"]
    assert lines[3].split() == ["5", "20", "5", "50.0", "12.0", "80.0", "4.5", "–", "2"]
    assert len({len(line) for line in lines[1:]}) == 1  # the columns line up


def test_repeated_runs_take_every_distinct_setting_once_a_round_so_drift_meets_them_alike():
    settings = sizing.settings_tried(sizing.parse_args([]), {"workers": 5, "pool": 20})
    assert sizing.rounds(settings, 1) == [(1, setting) for setting in settings]  # as listed: (5, 20, 0) thrice
    repeated = sizing.rounds(settings, 3)
    distinct = [(3, 20, 0), (5, 20, 0), (9, 20, 0), (5, 5, 0), (5, 20, 1), (5, 20, 5)]
    assert repeated == [(round_, setting) for round_ in (1, 2, 3) for setting in distinct]


def test_the_medians_table_gives_each_setting_s_median_throughput_and_save_p50_over_its_runs():
    rows = [{"workers": 5, "pool": 20, "think_s": 0, "rps": rps, "change_page_p50_ms": p50}
            for rps, p50 in ((300.0, 130.0), (390.0, 110.0), (310.0, 150.0))]
    rows.append({"workers": 5, "pool": 20, "think_s": 5, "rps": 23.4, "change_page_p50_ms": None})
    text = sizing.medians_table(rows)
    assert "      5    20       0        310.0           130.0   300.0 390.0 310.0" in text
    assert "      5    20       5         23.4               –   23.4" in text
