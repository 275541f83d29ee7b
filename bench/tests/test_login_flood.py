"""The login flood's figures (bench/login_flood.py): each run's row, the flood's answers named, the table."""
from bench import login_flood, stack


def survey_run(*, rps=80.04, failed=0, scale=1.0):
    """``stack.jmeter_run``'s figures of the survey plan: each view's latency, ``scale`` times a base."""
    latency = {view: {"p50": 10.0 * scale, "p95": 20.0 * scale, "p99": 30.0 * scale} for view in stack.VIEWS}
    latency["Total"] = {"p50": 12.0 * scale, "p95": 25.0 * scale, "p99": 40.0 * scale}
    return {"rps": rps, "failed": failed, "latency": latency}


def test_a_run_s_row_holds_the_respondents_latency_per_view_and_overall_and_the_flood_s_answers():
    flood = {"posts": 2000, "posts_per_s": 99.9, "answers": {"200": 20, "429 (app)": 1980}}
    row = login_flood.run_figures(survey_run(failed=2), flood)
    assert row["survey_rps"] == 80.0 and row["failed_samples"] == 2 and row["flood"] == flood
    assert row["p50_ms"] == dict.fromkeys(stack.VIEWS, 10.0) and row["p99_ms"] == dict.fromkeys(stack.VIEWS, 30.0)
    assert (row["all_p50_ms"], row["all_p95_ms"], row["all_p99_ms"]) == (12.0, 25.0, 40.0)


def test_a_view_the_run_never_reached_has_no_latency():
    figures = survey_run()
    del figures["latency"]["complete"]
    row = login_flood.run_figures(figures, None)
    assert row["p50_ms"]["complete"] is None and row["p99_ms"]["complete"] is None and row["flood"] is None


def test_a_refused_login_is_named_by_who_refused_it():
    nginx_page = (stack.ROOT / "deploy" / "templates" / "429.html").read_text()
    assert login_flood.refusal(429, nginx_page) == "429 (nginx)"
    assert login_flood.refusal(429, "<h1>Sign-in paused</h1> Too many failed sign-ins") == "429 (app)"
    assert login_flood.refusal(403, "CSRF verification failed") == "403"


def test_the_table_puts_the_runs_side_by_side_with_a_dash_where_there_was_no_flood():
    runs = {"alone": login_flood.run_figures(survey_run(), None),
            "flood, limits on": login_flood.run_figures(survey_run(rps=70.0, scale=2), {
                "posts": 10, "posts_per_s": 5.0, "answers": {"429 (nginx)": 4, "200": 6}})}
    lines = login_flood.table(runs).splitlines()
    assert lines[0].split(" | ")[1:] == ["alone", "flood, limits on"]
    rows = {line.split(" | ")[0].strip(): line.split(" | ")[1:] for line in lines[1:]}
    assert rows["survey req/s"] == ["80.0", "70.0"]
    assert rows["all requests p50 / p95 / p99 ms"] == ["12.0 / 25.0 / 40.0", "24.0 / 50.0 / 80.0"]
    assert rows["change_page p50 / p99 ms"] == ["10.0 / 30.0", "20.0 / 60.0"]
    assert rows["flood POSTs /s"] == ["-", "5.0"]
    assert rows["flood answered"] == ["-", "200: 6, 429 (nginx): 4"]
    assert len({len(line.split(" | ")[0]) for line in lines}) == 1  # the labels line up
