"""Query budgets of the five survey-taking views, with a warm definition cache.

The budgets are stated in docs/architecture.md. Inside a test the page save's
durable transaction shows as SAVEPOINT + RELEASE, two statements that are a
plain BEGIN/COMMIT in production: ``TRANSACTION`` below accounts for them.
"""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from respondents.tests.factories import login, make_respondents, save_page
from surveys.tests.factories import make_demo_survey

pytestmark = pytest.mark.django_db

AJAX = {"X-Requested-With": "XMLHttpRequest"}
TRANSACTION = 2


@pytest.fixture
def taker(client):
    survey = make_demo_survey()
    login(client, make_respondents(survey))
    # Warm the definition cache as earlier respondents would have: every page,
    # and the survey-wide list of required questions that finishing reads.
    for number in range(1, 14):
        client.get(f"/take/page/{number}/", headers=AJAX)
    client.get("/take/complete/")
    return client


def test_survey_login_reads_one_row_and_stores_a_new_session(client, django_assert_max_num_queries):
    from django.test import Client

    respondent = make_respondents(make_demo_survey())
    login(client, respondent)  # warms the survey row
    # The respondent; then the database session (the embedded default's store):
    # is the new key free, INSERT it, and the middleware's UPDATE.
    with django_assert_max_num_queries(4 + 2 * TRANSACTION):
        login(Client(), respondent)


def test_survey_display_reads_the_respondent_and_the_page_answers(taker, django_assert_max_num_queries):
    with django_assert_max_num_queries(2):
        assert taker.get("/take/").status_code == 200


def test_survey_content_reads_the_respondent_with_the_page_answers_in_one_query(taker, django_assert_num_queries):
    with django_assert_num_queries(1):
        assert taker.get("/take/page/6/", headers=AJAX).status_code == 200


def test_survey_change_page_is_one_update_one_upsert_and_one_log_insert(taker, django_assert_max_num_queries):
    with django_assert_max_num_queries(3 + TRANSACTION):
        response = save_page(taker, 2, {"q-safe_hallways": "3", "q-bullying_seen": "2"})
    assert response.json()["saved"] is True


def test_finishing_adds_one_read_of_required_answers_and_one_update(taker, django_assert_max_num_queries):
    for number, answers in [(1, {"q-role": "student"}), (2, {f"q-{c}": "1" for c in ("safe_hallways", "safe_outside", "safe_travel", "safe_classroom")}),
                            (8, {f"q-{c}": "2" for c in ("ins_explain", "ins_apply", "ins_revise", "ins_discuss", "ins_ready")})]:
        save_page(taker, number, answers)
    with django_assert_max_num_queries(5 + TRANSACTION):
        response = save_page(taker, 13, {"q-recommend": "yes"}, nav="finish")
    assert response.json()["completed"] is True


def test_survey_complete_reads_the_respondent(taker, django_assert_max_num_queries):
    with django_assert_max_num_queries(2):
        assert taker.get("/take/complete/").status_code == 302  # not finished: the required answers too


def test_survey_complete_of_a_finished_response_reads_only_the_respondent(client, django_assert_max_num_queries):
    from respondents.models import Respondent

    respondent = make_respondents(make_demo_survey())
    login(client, respondent)
    Respondent.objects.filter(pk=respondent.pk).update(status=Respondent.Status.COMPLETED)
    client.get("/take/complete/")
    with django_assert_max_num_queries(1):
        assert client.get("/take/complete/").status_code == 200


def test_with_a_warm_cache_no_view_reads_the_survey_definition_from_the_database(taker):
    with CaptureQueriesContext(connection) as queries:
        taker.get("/take/")
        taker.get("/take/page/3/", headers=AJAX)
        save_page(taker, 3, {"q-eng_effort": "4"})
        save_page(taker, 13, {"q-recommend": "no"}, nav="finish")
        taker.get("/take/complete/")
    tables = " ".join(q["sql"] for q in queries)
    assert queries.captured_queries
    assert "surveys_" not in tables, [q["sql"] for q in queries if "surveys_" in q["sql"]]
