"""Where a request's CPU goes (bench/cpu_profile.py): py-spy's samples ranked by part, and a page answered."""
from bench import cpu_profile


def test_the_profile_counts_a_sample_for_the_innermost_part_it_is_in(tmp_path):
    stacks = tmp_path / "stacks.txt"
    view = "process 12:\"gunicorn\";SyncWorker.handle (gunicorn/workers/sync.py:10);survey_page (taking/views.py:140)"
    stacks.write_text("\n".join([
        f"{view};execute_sql (django/db/models/sql/compiler.py:1600);_execute (django/db/backends/utils.py:94) 6",
        f"{view};execute_sql (django/db/models/sql/compiler.py:1600) 3",
        f"{view};render (jinja2/environment.py:1275);root (taking/jinja2/taking/page.html:4) 2",
        f"{view} 1",
        "SyncWorker.accept (gunicorn/workers/sync.py:30) 8",
    ]) + "\n")
    report = cpu_profile.ranked(stacks)
    assert report.startswith("20 samples")
    shares = dict(line.split("%  ", 1)[::-1] for line in report.split("\n\n")[1].splitlines()[1:])
    assert float(shares["psycopg2: the driver, its round trips to pgbouncer"]) == 30.0
    assert float(shares["django.db: the ORM, SQL compiling"]) == 15.0
    assert float(shares["Jinja2 (the page fragment)"]) == 10.0
    assert float(shares["the survey's own code (taking/, surveys/, respondents/, config/)"]) == 5.0
    assert float(shares["gunicorn: reading the request, writing the answer to nginx"]) == 40.0
    assert "30.0%  survey_page (taking/views.py)" not in report  # inclusive shares name files without line numbers
    assert "60.0%  survey_page (taking/views.py)" in report


def test_the_profile_answers_a_page_fragment_as_the_load_plan_does():
    html = ('<input type="radio" name="q-a" value="1"><input type="radio" name="q-a" value="2">'
            '<input type="checkbox" name="q-b" value="x"><input type="number" name="q-n" min="3" max="9">'
            '<input type="date" name="q-d"><textarea name="q-t" maxlength="50"></textarea>'
            '<input type="hidden" name="save_id" value="abc">')
    assert cpu_profile.page_answers(html, "tok", "next") == {
        "csrfmiddlewaretoken": "tok", "nav": "next", "q-a": "1", "q-b": "x", "q-n": "3", "q-d": "2020-05-17",
        "q-t": "more time for reading", "save_id": "abc"}
