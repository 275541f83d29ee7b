"""A person takes the demo survey through the whole production path:
Chromium -> nginx -> gunicorn (sync) -> pgbouncer -> PostgreSQL, with the
definition cache in memcached and the session in Redis.

This drives the stack's own app and database (`survey`, seeded with
`deploy/stack manage seed_demo`), not the test database.
"""
import re

import psycopg2
import pytest
from playwright.sync_api import expect

from deploy.tests import stack
from infra.sql import table
from respondents.models import Answer, Respondent
from surveys.models import Question
from taking.tests.helpers import answer_page, expect_page

pytestmark = [pytest.mark.stack, pytest.mark.browser]


@pytest.fixture
def app_url():
    return f"http://127.0.0.1:{stack.conf()['STACK_NGINX_PORT']}"


def saved_in_the_app_database(code):
    values = stack.conf()
    with psycopg2.connect(host="127.0.0.1", port=values["STACK_PGBOUNCER_MASTER_PORT"], user="survey", dbname="survey",
                          password=stack.password("survey")) as db:
        with db.cursor() as cursor:
            cursor.execute(
                f"""SELECT q.code, a.value FROM {table(Answer)} a
                   JOIN {table(Respondent)} r ON r.id = a.respondent_id
                   JOIN {table(Question)} q ON q.id = a.question_id
                   WHERE r.access_code = %s""", [code])
            answers = dict(cursor.fetchall())
            cursor.execute(f"SELECT status FROM {table(Respondent)} WHERE access_code = %s", [code])
            return answers, cursor.fetchone()[0]


def test_a_person_takes_the_demo_survey_through_nginx_gunicorn_and_pgbouncer(page, app_url):
    output = stack.stack("manage", "seed_demo", "--show", "1")
    printed = re.findall(r"^  ([2-9A-Z]{5}-[2-9A-Z]{5})$", output, re.M)[0]
    code = printed.replace("-", "")

    page.goto(app_url + "/")
    # Its script: compressed offline, in the S3 static bucket (MinIO, over HTTPS), which nginx passes on to browsers.
    script = page.locator("script[src]").first.get_attribute("src")
    assert re.match(r"http://127\.0\.0\.1:\d+/[a-z-]+/CACHE/js/output\.[0-9a-f]{12}\.js$", script)
    static = page.request.get(script)
    assert static.ok and "login" in static.text()
    page.get_by_label("Access code").fill(printed)
    page.get_by_role("button", name="Start").click()
    # Page 1's variant answers "Teacher": the 13 pages all apply.
    expected = {}
    for number in range(1, 14):
        expect_page(page, number)
        expected.update(answer_page(page, number))
        if number < 13:
            page.get_by_role("button", name="Next").click()
    expect_page(page, 13)
    page.get_by_role("button", name="Finish").click()
    page.wait_for_url(re.compile(r"/take/complete/$"))
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()

    answers, status = saved_in_the_app_database(code)
    assert status == "completed"
    assert answers == expected
