"""What a new user or an attacker found on the survey pages: intros, pageless surveys, HEAD, caching headers, CSP."""
import pytest
from django.core.exceptions import ValidationError

from respondents.tests.factories import login, make_respondents
from surveys.caching import definition_memo
from surveys.models import Page, Survey
from surveys.tests.factories import make_demo_survey, make_survey

pytestmark = pytest.mark.django_db

AJAX = {"X-Requested-With": "XMLHttpRequest"}


def test_the_survey_intro_shows_as_paragraphs_not_as_escaped_markup(client):
    login(client, make_respondents(make_demo_survey()))
    html = client.get("/take/").content.decode()
    assert '<div class="survey-intro"><p>This survey asks about your school.' in html
    assert "&lt;p&gt;" not in html


def test_markup_typed_into_an_intro_is_shown_as_text(client):
    survey = make_survey(intro="Line one\n\n<script>alert(1)</script>")
    Page.objects.filter(survey=survey, position=1).update(intro="A <b>page</b> intro")
    login(client, make_respondents(survey))
    html = client.get("/take/").content.decode()
    assert "<p>Line one</p>" in html and "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>" in html
    assert "A &lt;b&gt;page&lt;/b&gt; intro" in html


def test_a_survey_without_pages_cannot_be_opened():
    survey = Survey(slug="empty", title="Empty", status=Survey.Status.OPEN)
    with pytest.raises(ValidationError) as refused:
        survey.full_clean()
    assert "at least one page" in str(refused.value)
    survey.status = Survey.Status.DRAFT
    survey.full_clean()


def test_an_open_survey_that_lost_its_pages_says_it_is_not_open_instead_of_failing(client, survey, respondent):
    login(client, respondent)
    Page.objects.filter(survey=survey).delete()
    from surveys.caching import clear_definition_cache

    clear_definition_cache()
    for path in ("/take/", "/take/page/1/", "/take/complete/"):
        response = client.get(path)
        assert response.status_code == 403 and "This survey is not open" in response.content.decode()
    response = client.post("/", {"access_code": respondent.access_code})
    assert response.status_code == 403


@pytest.mark.parametrize("path", ["/", "/take/", "/take/page/2/", "/take/complete/", "/ping/"])
def test_head_works_wherever_get_does(taker, path):
    get, head = taker.get(path), taker.head(path)
    assert head.status_code == get.status_code != 405
    assert head.content == b""


@pytest.mark.parametrize("path", ["/", "/take/", "/take/page/2/", "/take/complete/"])
def test_pages_that_show_answers_or_codes_are_never_stored_by_a_browser_or_proxy(taker, path):
    assert "no-store" in taker.get(path)["Cache-Control"]


def test_a_save_answer_is_never_stored_either(taker):
    from respondents.tests.factories import save_page

    assert "no-store" in save_page(taker, 1, {"q-colour": "red"})["Cache-Control"]


def test_every_page_carries_a_content_security_policy_without_inline_scripts(taker):
    policy = taker.get("/take/")["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    # Production adds the static files' own address (an S3 bucket) and nothing else.
    from django.conf import settings

    extra = [] if settings.STATIC_URL.startswith("/") else [settings.STATIC_URL]
    assert directives["script-src"].split() == ["'self'", *extra] and directives["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in policy
    assert "<script>" not in taker.get("/take/").content.decode()


def test_page_numbers_that_do_not_exist_leave_nothing_in_the_definition_memo(taker):
    taker.get("/take/page/1/", headers=AJAX)  # a real page, memoised
    before = set(definition_memo._values)
    for number in range(4, 500):
        assert taker.get(f"/take/page/{number}/", headers=AJAX).status_code == 404
    assert set(definition_memo._values) == before
