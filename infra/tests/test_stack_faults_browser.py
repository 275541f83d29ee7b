"""What a person sees when a backing service of the real stack goes away for a moment.

Headless Chromium against a live server that uses the stack's pgbouncer,
PostgreSQL and Redis; the tests stop a real component while the person saves.
"""
import pytest
from playwright.sync_api import expect

from deploy.tests import stack
from respondents.models import Answer, PageSave, Respondent
from respondents.tests.factories import make_respondents
from surveys.tests.factories import make_survey
from taking.tests.helpers import log_in

pytestmark = [pytest.mark.stack, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def saved(respondent):
    stack.until_database_answers()  # the test's own connection went through the stopped component too
    answers = dict(Answer.objects.using("default").filter(respondent=respondent).values_list("question__code", "value"))
    return answers, PageSave.objects.using("default").filter(respondent=respondent, page=1).count()


@pytest.mark.parametrize("component", ["pgbouncer-master", "redis"])
def test_a_save_during_a_blip_tells_the_person_it_is_retrying_and_lands_once_when_the_service_is_back(
        page, live_server, component):
    respondent = make_respondents(make_survey())
    log_in(page, live_server.url, respondent)
    page.get_by_label("Blue").check()
    stack.stack("stop", component)
    try:
        page.get_by_role("button", name="Next").click()
        # The server answered 503 with Retry-After: the page says so and waits; nobody is logged out.
        expect(page.locator("#save-status")).to_contain_text("Retrying in 2 s")
        expect(page.locator(".survey-page[data-page='1']")).to_be_visible()
    finally:
        stack.stack("start", component)
    # The next retry comes 2 s after the last 503 (survey.js honours Retry-After).
    expect(page.locator(".survey-page[data-page='2']")).to_be_visible(timeout=20_000)
    answers, saves = saved(respondent)
    assert answers["colour"] == "blue" and saves == 1
    assert Respondent.objects.using("default").get(pk=respondent.pk).current_page == 2
