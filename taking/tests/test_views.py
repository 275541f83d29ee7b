"""The survey-taking views, through Django's test client, with data made by the real services."""
import re
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from infra.sql import table
from respondents.models import Answer, PageSave, Respondent
from respondents.tests.factories import login, make_respondents, save_page
from surveys.models import Survey
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db


def answers_of(respondent):
    return dict(Answer.objects.filter(respondent=respondent).values_list("question__code", "value"))


PAGE_1 = {"q-colour": "blue", "q-pets": ["dog", "cat"], "q-age": "12", "q-nickname": "Ace"}


class TestContract:
    def test_urls_keep_their_names_and_paths(self):
        assert reverse("surveys:login") == "/"
        assert reverse("surveys:display") == "/take/"
        assert reverse("surveys:content", args=[3]) == "/take/page/3/"
        assert reverse("surveys:change-page", args=[3]) == "/take/page/3/"
        assert reverse("surveys:complete") == "/take/complete/"
        assert reverse("surveys:logout") == "/logout/"


class TestLogin:
    def test_a_valid_code_typed_loosely_logs_in_and_redirects_to_the_survey(self, client, respondent):
        typed = " " + respondent.formatted_access_code.lower() + " "
        response = client.post("/", {"access_code": typed})
        assert response.status_code == 302
        assert response["Location"] == "/take/"
        assert client.get("/take/").status_code == 200

    @pytest.mark.parametrize("typed", ["ZZZZZ-ZZZZZ", "short", "0O1IL-0O1IL", ""])
    def test_unknown_or_malformed_codes_get_the_same_neutral_message(self, client, respondent, typed):
        response = client.post("/", {"access_code": typed})
        assert response.status_code == 400
        if typed:
            assert "That access code did not work" in response.content.decode()
        assert "_auth_user_id" not in client.session and "respondent_id" not in client.session

    def test_a_completed_respondent_gets_a_clear_page_and_no_session(self, client, respondent):
        Respondent.objects.filter(pk=respondent.pk).update(status=Respondent.Status.COMPLETED)
        response = client.post("/", {"access_code": respondent.access_code})
        assert response.status_code == 200
        assert "already finished this survey" in response.content.decode()
        assert client.get("/take/").status_code == 302

    @pytest.mark.parametrize("status", [Survey.Status.CLOSED, Survey.Status.DRAFT])
    def test_a_survey_that_is_not_open_gets_a_clear_page(self, client, survey, respondent, status):
        survey.status = status
        survey.save()
        response = client.post("/", {"access_code": respondent.access_code})
        assert response.status_code == 403
        assert "This survey is not open" in response.content.decode()

    def test_login_needs_a_csrf_token(self, respondent):
        client = Client(enforce_csrf_checks=True)
        response = client.post("/", {"access_code": respondent.access_code})
        assert response.status_code == 403


class TestDisplayAndContent:
    def test_display_renders_the_current_page_in_a_real_form(self, taker):
        html = taker.get("/take/").content.decode()
        assert '<form method="post" action="/take/page/1/" class="survey-form"' in html
        assert 'name="save_id"' in html and 'name="csrfmiddlewaretoken"' in html
        assert '<button type="submit" name="nav" value="next"' in html
        assert 'value="back"' not in html  # no Back on page 1
        assert "<progress" in html

    def test_each_render_gets_a_fresh_save_id(self, taker):
        first, second = (taker.get("/take/").context["save_id"] for _ in range(2))
        assert first != second

    def test_the_last_page_offers_finish_instead_of_next(self, taker):
        html = taker.get("/take/page/3/").content.decode()
        assert 'value="finish"' in html and 'value="next"' not in html and 'value="back"' in html

    def test_ajax_content_is_a_fragment_with_saved_answers_filled_in(self, taker):
        save_page(taker, 1, PAGE_1)
        response = taker.get("/take/page/1/", headers={"X-Requested-With": "XMLHttpRequest"})
        html = response.content.decode()
        assert response.status_code == 200
        assert "<html" not in html and 'class="survey-form"' in html
        assert 'name="q-colour" value="blue" checked' in html
        assert 'name="q-pets" value="cat" checked' in html and 'name="q-pets" value="dog" checked' in html
        assert 'name="q-pets" value="fish">' in html
        assert 'value="12"' in html and 'value="Ace"' in html

    def test_the_progress_bar_counts_the_pages_before_this_one(self, taker):
        assert '<progress id="progress-bar" max="100" value="0">' in taker.get("/take/page/1/").content.decode()
        assert '<progress id="progress-bar" max="100" value="67">' in taker.get("/take/page/3/").content.decode()

    def test_content_without_ajax_is_the_full_page(self, taker):
        html = taker.get("/take/page/2/").content.decode()
        assert "<html" in html and 'action="/take/page/2/"' in html

    @pytest.mark.parametrize("number", [0, 4, 999])
    def test_a_page_out_of_range_is_not_found(self, taker, number):
        assert taker.get(f"/take/page/{number}/").status_code == 404
        response = taker.get(f"/take/page/{number}/", headers={"X-Requested-With": "XMLHttpRequest"})
        assert response.status_code == 404
        assert response.json()["errors"]["__all__"]

    def test_without_a_session_survey_pages_send_the_person_to_log_in(self, client, respondent):
        assert client.get("/take/")["Location"] == "/"
        response = save_page(client, 1, PAGE_1)
        assert response.status_code == 401
        assert response.json()["saved"] is False
        assert not Answer.objects.exists()


class TestChangePage:
    def test_saving_a_page_stores_every_answer_and_moves_on(self, taker, respondent):
        response = save_page(taker, 1, PAGE_1)
        assert response.status_code == 200
        assert response.json() == {
            "saved": True, "page": 1, "next_page": 2, "next_url": "/take/page/2/", "progress": 33,
            "completed": False, "complete_url": None, "missing": [],
        }
        assert answers_of(respondent) == {"colour": "blue", "pets": "cat dog", "age": "12", "nickname": "Ace"}
        respondent.refresh_from_db()
        assert respondent.status == Respondent.Status.IN_PROGRESS
        assert respondent.current_page == 2
        assert respondent.started_at is not None

    def test_a_page_save_is_one_update_one_upsert_and_one_log_row(self, taker, respondent):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        save_page(taker, 2, {"q-safe": "1"})  # warm the definition cache
        with CaptureQueriesContext(connection) as queries:
            save_page(taker, 1, PAGE_1)
        writes = [q["sql"].strip() for q in queries if not q["sql"].startswith(("SELECT", "SAVEPOINT", "RELEASE"))]
        if connection.vendor == "postgresql":
            # One statement: the three writes as data-modifying CTEs (respondents.services._page_save_statement).
            assert len(writes) == 1
            moved, answered, logged = writes[0].split("), ")
            assert moved.startswith("WITH moved AS") and f"UPDATE {table(Respondent)}" in moved
            assert f"NOT EXISTS (SELECT 1 FROM {table(PageSave)}" in moved
            assert f"INSERT INTO {table(Answer)}" in answered and "ON CONFLICT" in answered
            assert f"INSERT INTO {table(PageSave)}" in logged
            return
        assert len(writes) == 3
        assert writes[0].startswith(f"UPDATE {table(Respondent)}") and table(PageSave) in writes[0]
        assert writes[1].startswith(f"INSERT INTO {table(Answer)}") and "ON CONFLICT" in writes[1]
        assert writes[2].startswith(f"INSERT INTO {table(PageSave)}")

    def test_blank_answers_are_saved_as_empty(self, taker, respondent):
        save_page(taker, 1, {})
        assert answers_of(respondent) == {"colour": "", "pets": "", "age": "", "nickname": ""}

    def test_resaving_a_page_replaces_its_answers(self, taker, respondent):
        save_page(taker, 1, PAGE_1)
        save_page(taker, 1, {"q-colour": "red", "q-pets": "fish"})
        assert answers_of(respondent) == {"colour": "red", "pets": "fish", "age": "", "nickname": ""}
        assert Answer.objects.filter(respondent=respondent).count() == 4

    def test_saving_a_page_twice_with_the_same_save_id_keeps_one_copy_and_answers_the_same(self, taker, respondent):
        save_id = uuid.uuid4()
        first = save_page(taker, 1, PAGE_1, save_id=save_id)
        saved_at = list(Answer.objects.values_list("saved_at", flat=True))
        retry = save_page(taker, 1, {"q-colour": "red"}, save_id=save_id)
        assert retry.status_code == 200
        assert retry.json() == first.json()
        assert answers_of(respondent)["colour"] == "blue"
        assert list(Answer.objects.values_list("saved_at", flat=True)) == saved_at

    def test_back_saves_and_goes_to_the_previous_page(self, taker, respondent):
        save_page(taker, 1, PAGE_1)
        response = save_page(taker, 2, {"q-safe": "2"}, nav="back")
        assert response.json()["next_page"] == 1
        assert answers_of(respondent)["safe"] == "2"
        assert Respondent.objects.get(pk=respondent.pk).current_page == 1

    def test_without_javascript_a_save_redirects_to_the_survey(self, taker, respondent):
        response = save_page(taker, 1, PAGE_1, ajax=False)
        assert response.status_code == 302 and response["Location"] == "/take/"
        assert taker.get("/take/").context["definition"].number == 2

    def test_without_javascript_errors_show_the_page_again_with_what_was_typed(self, taker, respondent):
        response = save_page(taker, 1, {"q-age": "200", "q-nickname": "Bo"}, ajax=False)
        assert response.status_code == 400
        html = response.content.decode()
        assert "Nothing on this page was saved" in html
        assert '<a href="#field-q-age">Age?</a>: Ensure this value is less than or equal to 99.' in html
        assert 'value="200"' in html and 'value="Bo"' in html
        assert not Answer.objects.exists()

    def test_the_error_summary_lists_each_message_by_its_question_and_others_as_they_are(self, taker):
        response = save_page(taker, 1, {"q-age": "200", "q-nope": "x"}, ajax=False)
        summary = re.search(r'<div class="error-summary".*?</div>', response.content.decode()).group()
        assert summary == (
            '<div class="error-summary" role="alert" tabindex="-1"><h2>Nothing on this page was saved. Please fix:</h2>'
            '<ul><li><a href="#field-q-age">Age?</a>: Ensure this value is less than or equal to 99.</li>'
            "<li>There is no such question on this page.</li></ul></div>"
        )


class TestValidation:
    """Every kind of bad input: a clear error, keyed by field, and nothing saved."""

    @pytest.mark.parametrize(("answers", "field", "message"), [
        ({"q-nope": "x"}, "q-nope", "There is no such question on this page."),
        ({"q-story": "x"}, "q-story", "There is no such question on this page."),  # a question of page 3
        ({"q-colour": "green"}, "q-colour", "Select a valid choice."),
        ({"q-colour": ["red", "blue"]}, "q-colour", "Give one answer only."),
        ({"q-pets": ["cat", "cow"]}, "q-pets", "Select a valid choice."),
        ({"q-age": "4"}, "q-age", "greater than or equal to 5"),
        ({"q-age": "100"}, "q-age", "less than or equal to 99"),
        ({"q-age": "twelve"}, "q-age", "Enter a whole number."),
        ({"q-nickname": "x" * 11}, "q-nickname", "at most 10 characters"),
        ({"q-nickname": "a\x00b"}, "q-nickname", "Null characters are not allowed."),
    ])
    def test_a_bad_answer_on_page_1_saves_nothing(self, taker, respondent, answers, field, message):
        response = save_page(taker, 1, {**PAGE_1, **answers})
        assert response.status_code == 400
        body = response.json()
        assert body["saved"] is False
        assert message in " ".join(body["errors"][field])
        assert not Answer.objects.exists()
        respondent.refresh_from_db()
        assert (respondent.status, respondent.current_page) == (Respondent.Status.NOT_STARTED, 1)

    @pytest.mark.parametrize(("answers", "field"), [
        ({"q-born": "31/12/2010"}, "q-born"),
        ({"q-born": "2010-02-30"}, "q-born"),
        ({"q-safe": "3"}, "q-safe"),
    ])
    def test_a_bad_date_or_grid_answer_saves_nothing(self, taker, answers, field):
        response = save_page(taker, 2, answers)
        assert response.status_code == 400 and field in response.json()["errors"]
        assert not Answer.objects.exists()

    def test_text_over_the_limit_on_a_long_text_question_saves_nothing(self, taker):
        response = save_page(taker, 3, {"q-story": "x" * 51, "q-again": "1"})
        assert "q-story" in response.json()["errors"]
        assert not Answer.objects.exists()

    @pytest.mark.parametrize(("data", "field"), [
        ({"save_id": "not-a-uuid", "nav": "next"}, "save_id"),
        ({"nav": "next"}, "save_id"),
        ({"save_id": str(uuid.uuid4()), "nav": "sideways"}, "nav"),
        ({"save_id": str(uuid.uuid4())}, "nav"),
    ])
    def test_a_bad_save_id_or_nav_saves_nothing(self, taker, data, field):
        response = taker.post("/take/page/1/", {**data, "q-colour": "red"}, headers={"X-Requested-With": "XMLHttpRequest"})
        assert response.status_code == 400
        assert field in response.json()["errors"]
        assert not Answer.objects.exists()

    def test_a_page_out_of_range_saves_nothing(self, taker):
        response = save_page(taker, 9, {"q-colour": "red"})
        assert response.status_code == 404
        assert response.json()["saved"] is False
        assert not Answer.objects.exists()

    def test_a_question_of_another_survey_saves_nothing(self, taker):
        # Only the other survey's question, on the page number it has there: its code is none of this survey's.
        make_survey(slug="other", pages=[
            {"title": "Other", "questions": [{"code": "shade", "kind": "short_text", "prompt": "Shade?"}]},
        ])
        response = save_page(taker, 1, {"q-shade": "red"})
        assert response.status_code == 400
        assert list(response.json()["errors"]) == ["q-shade"]
        assert not Answer.objects.exists()

    def test_a_save_without_a_csrf_token_is_refused(self, respondent):
        client = Client(enforce_csrf_checks=True)
        client.get("/")
        token = client.cookies["csrftoken"].value
        client.post("/", {"access_code": respondent.access_code, "csrfmiddlewaretoken": token})
        response = save_page(client, 1, PAGE_1)
        assert response.status_code == 403
        assert response.json()["saved"] is False
        assert not Answer.objects.exists()
        # With the token, the same save goes through.
        response = client.post(
            "/take/page/1/", {**PAGE_1, "save_id": str(uuid.uuid4()), "nav": "next"},
            headers={"X-Requested-With": "XMLHttpRequest", "X-CSRFToken": client.cookies["csrftoken"].value},
        )
        assert response.status_code == 200

    def test_a_survey_closed_while_taking_refuses_saves(self, taker, survey):
        survey.status = Survey.Status.CLOSED
        survey.save()
        response = save_page(taker, 1, PAGE_1)
        assert response.status_code == 403
        assert "closed" in response.json()["errors"]["__all__"][0]
        assert not Answer.objects.exists()


class TestResume:
    def test_logging_out_and_in_again_resumes_where_the_respondent_stopped(self, client, respondent):
        login(client, respondent)
        save_page(client, 1, PAGE_1)
        save_page(client, 2, {"q-safe": "1", "q-happy": "2", "q-born": "2012-05-06"})
        assert client.post("/logout/").status_code == 302
        assert client.get("/take/")["Location"] == "/"

        login(client, respondent)
        response = client.get("/take/")
        assert response.context["definition"].number == 3
        html = client.get("/take/page/2/").content.decode()
        assert re.search(r'name="q-safe" value="1"[^>]* checked', html)
        assert re.search(r'name="q-happy" value="2"[^>]* checked', html)
        assert 'value="2012-05-06"' in html

    def test_a_respondent_removed_from_the_roster_mid_survey_is_asked_to_log_in_again(self, taker, respondent):
        Respondent.objects.filter(pk=respondent.pk).delete()
        assert taker.get("/take/")["Location"] == "/"
        assert taker.get("/take/page/2/")["Location"] == "/"
        response = save_page(taker, 1, PAGE_1)
        assert response.status_code == 401 and response.json()["login_url"] == "/"
        assert not Answer.objects.exists()

    def test_logout_needs_post(self, taker):
        assert taker.get("/logout/").status_code == 405


class TestSaveAndLogOut:
    """The header's "Save and log out": a submit button of the page's form (nav=logout), not a form of its own."""

    def test_the_header_button_submits_the_page_s_form_with_nav_logout(self, taker):
        html = taker.get("/take/").content.decode()
        assert re.search(r'<form method="post" action="/take/page/1/" class="survey-form" id="survey-form"', html)
        button = re.search(r'<button type="submit" form="survey-form" name="nav" value="logout"[^>]*>([^<]*)</button>',
                           html)
        assert button and button.group(1) == "Save and log out"
        assert 'action="/logout/"' not in html  # the idle timeout's script posts there, no form of the page
        assert "#}" not in html and "comment %}" not in html  # the templates' comments stay theirs

    def test_it_saves_the_page_keeps_it_as_the_page_to_resume_and_ends_the_session(self, taker, respondent):
        save_page(taker, 1, PAGE_1)
        response = save_page(taker, 2, {"q-safe": "1", "q-born": "2012-05-06"}, nav="logout")
        assert response.status_code == 200
        assert response.json() == {
            "saved": True, "page": 2, "next_page": 2, "next_url": "/take/page/2/", "progress": 33,
            "completed": False, "complete_url": None, "missing": [], "logged_out": True, "login_url": "/",
        }
        saved = answers_of(respondent)
        assert (saved["safe"], saved["happy"], saved["born"], saved["colour"]) == ("1", "", "2012-05-06", "blue")
        respondent.refresh_from_db()
        assert respondent.current_page == 2 and respondent.status == Respondent.Status.IN_PROGRESS
        assert respondent.page_saves.latest("saved_at").nav == "logout"
        assert "respondent_id" not in taker.session
        assert taker.get("/take/")["Location"] == "/"
        login_page = taker.get("/").content.decode()
        assert "Your answers are saved and you have logged out." in login_page

        login(taker, respondent)
        html = taker.get("/take/").content.decode()
        assert re.search(r'data-page="2"', html)
        assert re.search(r'name="q-safe" value="1"[^>]* checked', html) and 'value="2012-05-06"' in html

    def test_required_answers_are_not_asked_for(self, taker, respondent):
        response = save_page(taker, 1, {"q-age": "12"}, nav="logout")  # the required colour left blank
        assert response.json()["saved"] is True and response.json()["missing"] == []
        assert answers_of(respondent) == {"colour": "", "pets": "", "age": "12", "nickname": ""}

    def test_on_the_last_page_it_saves_without_finishing(self, taker, respondent):
        response = save_page(taker, 3, {"q-again": "2"}, nav="logout")
        assert response.json()["completed"] is False and response.json()["logged_out"] is True
        respondent.refresh_from_db()
        assert respondent.status == Respondent.Status.IN_PROGRESS and respondent.current_page == 3

    def test_without_javascript_it_saves_and_lands_on_the_login_page_which_says_the_answers_are_saved(
            self, taker, respondent):
        response = save_page(taker, 1, PAGE_1, nav="logout", ajax=False)
        assert response.status_code == 302 and response["Location"] == "/"
        assert answers_of(respondent)["nickname"] == "Ace"
        page = taker.get("/").content.decode()
        assert "Your answers are saved and you have logged out. Log in again with your code to go on where you left " \
               "off." in page
        assert taker.get("/take/")["Location"] == "/"

    @pytest.mark.parametrize("ajax", [True, False])
    def test_a_refused_save_saves_nothing_and_stays_logged_in_with_the_error_shown(self, taker, respondent, ajax):
        response = save_page(taker, 1, {**PAGE_1, "q-age": "200"}, nav="logout", ajax=ajax)
        assert response.status_code == 400
        if ajax:
            assert response.json()["saved"] is False and set(response.json()["errors"]) == {"q-age"}
            assert "logged_out" not in response.json()
        else:
            page = response.content.decode()
            assert "less than or equal to 99" in page and "Select a valid choice" not in page  # nav is fine
        assert not Answer.objects.exists()
        assert taker.session["respondent_id"] == respondent.pk
        assert taker.get("/take/").status_code == 200

    def test_a_replayed_save_id_logs_out_without_saving_again(self, taker, respondent):
        save_id = uuid.uuid4()
        first = save_page(taker, 1, PAGE_1, save_id=save_id)  # Next was saved, its answer lost on the network
        again = save_page(taker, 1, {"q-colour": "red"}, nav="logout", save_id=save_id)
        assert again.json() == {**first.json(), "logged_out": True, "login_url": "/"}
        assert answers_of(respondent)["colour"] == "blue"
        assert "respondent_id" not in taker.session

    def test_the_idle_timeout_still_logs_out_at_logout_with_its_reason(self, taker):
        response = taker.post("/logout/", {"reason": "idle"})
        assert response.status_code == 302 and response["Location"] == "/"
        assert "logged out after 60 minutes without activity" in taker.get("/").content.decode()


class TestCompletion:
    def test_finish_with_a_required_answer_missing_saves_and_says_which_page_lacks_what(self, taker, respondent):
        save_page(taker, 1, {"q-pets": "cat"})
        response = save_page(taker, 3, {"q-again": "2"}, nav="finish")
        body = response.json()
        assert response.status_code == 200
        assert body["saved"] is True and body["completed"] is False and body["complete_url"] is None
        # "message" was added beside the keys the contract had: the required message (here the default of its kind).
        assert body["missing"] == [{"page": 1, "url": "/take/page/1/", "fields": [
            {"name": "q-colour", "prompt": "Favourite colour?", "message": "Please choose an answer."}]}]
        assert body["next_page"] == 1
        assert answers_of(respondent)["again"] == "2"
        assert Respondent.objects.get(pk=respondent.pk).status == Respondent.Status.IN_PROGRESS

    def test_finish_without_javascript_shows_the_missing_pages(self, taker):
        response = save_page(taker, 3, {"q-again": "2"}, nav="finish", ajax=False)
        html = response.content.decode()
        assert response.status_code == 200
        assert "some required questions are not answered yet" in html
        assert '<a href="/take/page/1/" class="page-link">Page 1</a>: Favourite colour? (Please choose an answer.)</li>' in html

    def test_the_complete_page_of_an_unfinished_response_redirects_to_the_first_missing_page(self, taker):
        save_page(taker, 1, {"q-pets": "cat"})
        assert taker.get("/take/complete/")["Location"] == "/take/page/1/"
        save_page(taker, 1, {"q-colour": "red"})
        assert taker.get("/take/complete/")["Location"] == "/take/page/3/"

    def test_finish_with_every_required_answer_completes_the_response(self, taker, respondent):
        save_page(taker, 1, {"q-colour": "red"})
        response = save_page(taker, 3, {"q-again": "1"}, nav="finish")
        assert response.json()["completed"] is True
        assert response.json()["complete_url"] == "/take/complete/"
        assert response.json()["progress"] == 100
        respondent.refresh_from_db()
        assert respondent.status == Respondent.Status.COMPLETED and respondent.completed_at
        for _ in range(2):  # idempotent
            page = taker.get("/take/complete/")
            assert page.status_code == 200 and "Thank you" in page.content.decode()
        assert taker.get("/take/")["Location"] == "/take/complete/"

    def test_finish_without_javascript_redirects_to_the_thank_you_page(self, taker):
        save_page(taker, 1, {"q-colour": "red"})
        response = save_page(taker, 3, {"q-again": "1"}, nav="finish", ajax=False)
        assert response["Location"] == "/take/complete/"

    def test_a_completed_response_is_locked(self, taker, respondent):
        save_page(taker, 1, {"q-colour": "red"})
        finish_id = uuid.uuid4()
        finished = save_page(taker, 3, {"q-again": "1"}, nav="finish", save_id=finish_id)
        before = answers_of(respondent)

        refused = save_page(taker, 1, {"q-colour": "blue"})
        assert refused.status_code == 409
        assert refused.json()["saved"] is False and refused.json()["complete_url"] == "/take/complete/"
        assert save_page(taker, 1, {"q-colour": "blue"}, ajax=False)["Location"] == "/take/complete/"
        assert answers_of(respondent) == before
        # A retry of the finishing save itself still answers as the first time.
        assert save_page(taker, 3, {"q-again": "1"}, nav="finish", save_id=finish_id).json() == finished.json()
        assert taker.get("/take/page/1/")["Location"] == "/take/complete/"


class TestIsolation:
    def test_a_respondent_only_ever_reads_and_writes_their_own_answers(self, survey):
        alice, bob = make_respondents(survey, count=2)
        alice_client, bob_client = Client(), Client()
        login(alice_client, alice)
        login(bob_client, bob)
        save_page(bob_client, 1, {"q-colour": "blue", "q-nickname": "Bob"})

        # Naming another respondent in the request changes nothing: the session decides.
        save_page(alice_client, 1, {"q-colour": "red", "respondent_id": str(bob.pk), "respondent": str(bob.pk)})
        assert answers_of(bob)["colour"] == "blue"
        assert answers_of(alice)["colour"] == "red"
        html = alice_client.get(f"/take/page/1/?respondent_id={bob.pk}").content.decode()
        assert "Bob" not in html and 'value="red" checked' in html

    def test_logging_in_replaces_the_session_key(self, client, respondent):
        client.get("/")
        before = client.cookies.get("sessionid")
        login(client, respondent)
        assert client.cookies["sessionid"].value != (before.value if before else None)


def test_ping_answers_ok_without_touching_the_database(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/ping/")
    assert response.status_code == 200 and response.content == b"ok"


class TestSkipLogic:
    """The demo survey's rules: a teachers' page 5, grade questions per role, a why? after a low rating."""

    @pytest.fixture
    def demo_taker(self, client):
        from surveys.tests.factories import make_demo_survey

        respondent = make_respondents(make_demo_survey())
        login(client, respondent)
        client.respondent = respondent
        return client

    def test_next_and_back_skip_the_teachers_page_for_a_student(self, demo_taker):
        assert save_page(demo_taker, 1, {"q-role": "student"}).json()["next_page"] == 2
        body = save_page(demo_taker, 4).json()
        assert (body["next_page"], body["next_url"]) == (6, "/take/page/6/")
        assert save_page(demo_taker, 6, nav="back").json()["next_page"] == 4

    def test_a_teacher_gets_the_teachers_page(self, demo_taker):
        save_page(demo_taker, 1, {"q-role": "teacher"})
        assert save_page(demo_taker, 4).json()["next_page"] == 5
        page = demo_taker.get("/take/page/5/", headers={"X-Requested-With": "XMLHttpRequest"}).content.decode()
        assert "Your teaching" in page and "Page 5 of 13" in page

    def test_progress_counts_only_the_pages_that_apply(self, demo_taker):
        save_page(demo_taker, 1, {"q-role": "student"})
        assert save_page(demo_taker, 6).json()["progress"] == round(100 * 5 / 12)  # 5 of the 12 come before 7
        page = demo_taker.get("/take/page/7/").content.decode()
        assert "Page 6 of 12" in page
        save_page(demo_taker, 1, {"q-role": "teacher"})
        assert "Page 7 of 13" in demo_taker.get("/take/page/7/").content.decode()

    def test_a_page_that_does_not_apply_sends_the_person_to_the_next_that_does(self, demo_taker):
        save_page(demo_taker, 1, {"q-role": "parent"})
        response = demo_taker.get("/take/page/5/")
        assert (response.status_code, response["Location"]) == (302, "/take/page/6/")

    def test_resume_lands_on_a_page_that_applies(self, demo_taker):
        respondent = demo_taker.respondent
        save_page(demo_taker, 1, {"q-role": "teacher"})
        save_page(demo_taker, 4)  # to the teachers' page
        # The role changes (another device, the same code): page 5 no longer applies.
        Answer.objects.filter(respondent=respondent, question__code="role").update(value="student")
        Respondent.objects.filter(pk=respondent.pk).update(current_page=5)
        page = demo_taker.get("/take/").content.decode()
        assert 'data-page="6"' in page and "Your teaching" not in page

    def test_answers_to_questions_not_asked_are_ignored_and_earlier_answers_kept(self, demo_taker):
        respondent = demo_taker.respondent
        save_page(demo_taker, 1, {"q-role": "student", "q-grade": "7", "q-grade_taught": "9"})
        assert answers_of(respondent)["grade"] == "7" and "grade_taught" not in answers_of(respondent)
        # A teacher now: grade is not asked, so the student's answer stays as it was, not blanked.
        save_page(demo_taker, 1, {"q-role": "teacher", "q-grade": "x", "q-grade_taught": "9"})
        answers = answers_of(respondent)
        assert (answers["grade"], answers["grade_taught"]) == ("7", "9")

    def test_a_save_whose_session_lacks_the_rules_answers_reads_them_from_the_database(self, demo_taker):
        from taking.respondent_session import RULE_ANSWERS_KEY

        save_page(demo_taker, 1, {"q-role": "teacher"})
        session = demo_taker.session
        del session[RULE_ANSWERS_KEY]  # a session from before skip logic, or a store that lost it
        session.save()
        assert save_page(demo_taker, 4).json()["next_page"] == 5
        assert demo_taker.session[RULE_ANSWERS_KEY] == {"role": "teacher"}

    def test_a_bad_answer_to_a_question_not_asked_is_not_an_error(self, demo_taker):
        response = save_page(demo_taker, 1, {"q-role": "teacher", "q-grade": "not a grade"})
        assert response.status_code == 200 and response.json()["saved"] is True

    def test_a_constraint_on_an_earlier_answer_shows_its_own_message(self, demo_taker):
        response = save_page(demo_taker, 1, {"q-role": "student", "q-years_at_school": "14"})
        assert response.status_code == 400
        assert response.json()["errors"]["q-years_at_school"] == [
            "A student cannot have been at one school for more than 13 years: please check the number."]
        assert not Answer.objects.filter(respondent=demo_taker.respondent).exists()
        assert save_page(demo_taker, 1, {"q-role": "teacher", "q-years_at_school": "14"}).status_code == 200

    def test_a_constraint_reading_another_pages_answer(self, demo_taker):
        save_page(demo_taker, 1, {"q-role": "teacher", "q-years_at_school": "10"})
        response = save_page(demo_taker, 5, {"q-teach_years": "4"})
        assert response.json()["errors"]["q-teach_years"] == [
            "This is fewer years than you have been at this school: please check both numbers."]
        assert save_page(demo_taker, 5, {"q-teach_years": "10"}).json()["saved"] is True

    def test_finish_requires_only_the_questions_asked(self, demo_taker):
        grid = {f"q-{c}": "2" for c in ("safe_hallways", "safe_outside", "safe_travel", "safe_classroom")}
        learning = {f"q-{c}": "2" for c in ("ins_explain", "ins_apply", "ins_revise", "ins_discuss", "ins_ready")}
        save_page(demo_taker, 1, {"q-role": "teacher"})
        save_page(demo_taker, 2, grid)
        save_page(demo_taker, 8, learning)
        body = save_page(demo_taker, 13, {"q-recommend": "yes"}, nav="finish").json()
        assert body["completed"] is False
        assert body["missing"] == [{"page": 5, "url": "/take/page/5/", "fields": [
            {"name": "q-teach_years", "prompt": "How many years have you been teaching, counting every school?",
             "message": "Please tell us how many years you have been teaching."}]}]
        # As a student the teachers' required question is not asked: the same answers finish.
        save_page(demo_taker, 1, {"q-role": "student"})
        assert save_page(demo_taker, 13, {"q-recommend": "yes"}, nav="finish").json()["completed"] is True

    def test_finish_is_offered_on_the_last_page_that_applies(self, demo_taker):
        page = demo_taker.get("/take/page/13/").content.decode()
        assert 'value="finish"' in page
        # A forward press: Finish where more pages apply goes on to the next of them, saved, not finished.
        body = save_page(demo_taker, 12, nav="finish").json()
        assert (body["saved"], body["completed"], body["next_page"]) == (True, False, 13)

    def test_without_javascript_a_question_ruled_by_its_page_says_when_to_answer_it(self, demo_taker):
        import html

        page = html.unescape(demo_taker.get("/take/").content.decode())
        assert "Answer if you chose “Teacher” for “Which best describes you?”." in page
        assert 'data-show-if="{"op":"equals","q":"role","value":"teacher"}"' in page
        assert 'data-rule-kinds="{"role":"single"}"' in page

    def test_a_question_ruled_by_another_pages_answer_is_left_out_when_it_does_not_apply(self, demo_taker):
        from surveys.models import Question

        # Move the grade questions' rule off their page: a rule read from page 1, decided on page 2.
        survey = demo_taker.respondent.survey
        Question.objects.filter(survey=survey, code="bullying_seen").update(
            show_if={"op": "equals", "q": "role", "value": "student"})
        from surveys.caching import clear_definition_cache

        clear_definition_cache()
        save_page(demo_taker, 1, {"q-role": "teacher"})
        assert "q-bullying_seen" not in demo_taker.get("/take/page/2/").content.decode()
        save_page(demo_taker, 1, {"q-role": "student"})
        page = demo_taker.get("/take/page/2/").content.decode()
        assert "q-bullying_seen" in page and "Answer if" not in page


class TestLanguages:
    """The demo survey is offered in English and Spanish; the small survey in English only."""

    @pytest.fixture
    def demo(self):
        from surveys.tests.factories import make_demo_survey

        return make_demo_survey()

    def test_the_roster_language_chooses_the_language_of_every_page(self, client, demo):
        login(client, make_respondents(demo, language="es"))
        response = client.get("/take/")
        page = response.content.decode()
        assert response["Content-Language"] == "es"
        assert '<html lang="es" dir="ltr">' in page and 'lang="es"' in page
        assert "Página 1 de 12" in page and "¿Qué le describe mejor?" in page and "Siguiente" in page
        assert "Encuesta sobre el clima escolar (demostración)" in page and "Maestro o maestra" in page
        # The words of a condition, and the script's messages, are Spanish too.
        assert "Responda si eligió «Maestro o maestra» en «¿Qué le describe mejor?»." in page
        assert "Guardando…" in page

    def test_errors_and_required_messages_are_in_the_respondents_language(self, client, demo):
        login(client, make_respondents(demo, language="es"))
        body = save_page(client, 1, {"q-role": "student", "q-years_at_school": "14"}).json()
        assert body["errors"]["q-years_at_school"] == [
            "Un estudiante no puede haber estado más de 13 años en una escuela: revise el número."]
        body = save_page(client, 1, {"q-role": "teacher", "q-years_at_school": "x"}).json()
        assert body["errors"]["q-years_at_school"] == ["Introduzca un número entero."]  # Django's own catalogue
        save_page(client, 1, {"q-role": "teacher"})
        body = save_page(client, 13, nav="finish").json()
        fields = {f["name"]: f for page in body["missing"] for f in page["fields"]}
        assert fields["q-teach_years"]["message"] == "Díganos cuántos años lleva enseñando."
        assert fields["q-recommend"] == {"name": "q-recommend", "prompt": "¿Recomendaría esta escuela a un amigo?",
                                         "message": "Elija una respuesta."}

    def test_a_numbers_range_message_follows_each_respondents_language_in_one_process(self, demo):
        # A page's answer fields are built once per page and language (taking.forms._page_fields): the message of
        # a number out of its range is its constraint message, in the language of whoever saves.
        english, spanish = Client(), Client()
        login(english, make_respondents(demo, language="en"))
        login(spanish, make_respondents(demo, language="es"))
        in_english = "A student cannot have been at one school for more than 13 years: please check the number."
        in_spanish = "Un estudiante no puede haber estado más de 13 años en una escuela: revise el número."
        for client, message in ((english, in_english), (spanish, in_spanish), (english, in_english)):
            body = save_page(client, 1, {"q-role": "teacher", "q-years_at_school": "41"}).json()
            assert body["errors"]["q-years_at_school"] == [message]

    def test_before_logging_in_the_browser_s_language_is_used(self, client):
        page = client.get("/", HTTP_ACCEPT_LANGUAGE="es-MX,es;q=0.9,en;q=0.5")
        assert page["Content-Language"] == "es" and "Iniciar sesión en la encuesta" in page.content.decode()
        assert "Log in to the survey" in client.get("/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()

    def test_a_language_the_survey_does_not_offer_falls_back_to_its_first(self, client, survey):
        login(client, make_respondents(survey, language="es"))
        response = client.get("/take/")
        assert response["Content-Language"] == "en" and "Page 1 of 3" in response.content.decode()

    def test_the_switcher_changes_the_language_and_the_respondent_keeps_it(self, client, demo):
        respondent = make_respondents(demo)
        login(client, respondent)
        assert "Página" not in client.get("/take/").content.decode()
        response = client.post("/language/", {"language": "es", "next": "/take/"})
        assert (response.status_code, response["Location"]) == (302, "/take/")
        assert "Página 1 de 12" in client.get("/take/").content.decode()
        respondent.refresh_from_db()
        assert respondent.language == "es"
        # Another browser: the next login starts in Spanish.
        other = Client()
        login(other, respondent)
        assert other.get("/take/")["Content-Language"] == "es"

    def test_the_switcher_on_the_login_page_carries_into_the_survey(self, client, demo):
        respondent = make_respondents(demo)  # the roster says English
        assert "Iniciar sesión en la encuesta" not in client.get("/").content.decode()
        client.post("/language/", {"language": "es", "next": "/"})
        assert "Iniciar sesión en la encuesta" in client.get("/").content.decode()
        login(client, respondent)
        assert client.get("/take/")["Content-Language"] == "es"
        respondent.refresh_from_db()
        assert respondent.language == "es"

    def test_a_language_the_survey_does_not_offer_is_refused(self, taker, respondent):
        response = taker.post("/language/", {"language": "es", "next": "/take/"})
        assert response.status_code == 400
        respondent.refresh_from_db()
        assert respondent.language == "en"

    @pytest.mark.parametrize("data", [{"language": "fr"}, {}, {"language": "es", "next": "https://elsewhere.example/"}])
    def test_a_bad_switch_is_refused_or_goes_home(self, client, data):
        response = client.post("/language/", data)
        if "next" in data:
            assert (response.status_code, response["Location"]) == (302, "/")
        else:
            assert response.status_code == 400


class TestScreener:
    """A page whose own answers turn the later pages on: the buttons and "Page X of Y" follow the answers, and
    the server decides where a forward press goes once the page is saved (with and without script)."""

    @pytest.fixture
    def screened(self, client):
        from surveys.tests.factories import make_screener_survey

        respondent = make_respondents(make_screener_survey())
        login(client, respondent)
        client.respondent = respondent
        return client

    def test_a_fresh_respondent_sees_one_page_and_finish_with_what_the_script_needs_to_follow_the_answers(
            self, screened):
        import html
        import json

        page = screened.get("/take/").content.decode()
        assert "Page 1 of 1" in page and 'value="finish"' in page and 'value="next"' not in page
        route = json.loads(html.unescape(re.search(r'data-route="([^"]*)"', page).group(1)))
        assert route["count"] == 3
        assert route["pages"] == {"2": {"op": "equals", "q": "consent", "value": "yes"},
                                  "3": {"op": "equals", "q": "consent", "value": "yes"}}
        assert route["order"] == [["consent", 1, []]] and route["kinds"] == {"consent": "single"}

    def test_yes_and_finish_goes_on_to_page_2_and_the_survey_can_be_finished(self, screened):
        body = save_page(screened, 1, {"q-consent": "yes"}, nav="finish").json()
        assert (body["saved"], body["completed"], body["next_page"], body["next_url"]) == (
            True, False, 2, "/take/page/2/")
        assert "Page 2 of 3" in screened.get(body["next_url"]).content.decode()
        assert save_page(screened, 2, {"q-colour": "red"}).json()["next_page"] == 3
        assert save_page(screened, 3, {"q-again": "2"}, nav="finish").json()["completed"] is True
        assert answers_of(screened.respondent) == {"consent": "yes", "colour": "red", "again": "2"}

    def test_yes_and_finish_without_javascript_shows_page_2(self, screened):
        response = save_page(screened, 1, {"q-consent": "yes"}, nav="finish", ajax=False)
        assert (response.status_code, response["Location"]) == (302, "/take/")
        page = screened.get("/take/").content.decode()
        assert 'data-page="2"' in page and "Page 2 of 3" in page and 'value="next"' in page
        assert Respondent.objects.get(pk=screened.respondent.pk).status == Respondent.Status.IN_PROGRESS

    def test_no_and_finish_completes_the_response(self, screened):
        body = save_page(screened, 1, {"q-consent": "no"}, nav="finish").json()
        assert body["completed"] is True
        assert Respondent.objects.get(pk=screened.respondent.pk).status == Respondent.Status.COMPLETED

    def test_after_yes_page_1_offers_next_and_counts_three_pages(self, screened):
        save_page(screened, 1, {"q-consent": "yes"})
        page = screened.get("/take/page/1/").content.decode()
        assert "Page 1 of 3" in page and 'value="next"' in page and 'value="finish"' not in page

    def test_next_after_changing_to_no_stays_on_page_1_which_then_offers_finish(self, screened):
        save_page(screened, 1, {"q-consent": "yes"})
        body = save_page(screened, 1, {"q-consent": "no"}).json()
        assert (body["saved"], body["completed"], body["next_page"]) == (True, False, 1)
        page = screened.get(body["next_url"]).content.decode()
        assert "Page 1 of 1" in page and 'value="finish"' in page

    def test_next_after_changing_to_no_without_javascript_says_to_press_finish(self, screened):
        save_page(screened, 1, {"q-consent": "yes"})
        response = save_page(screened, 1, {"q-consent": "no"}, ajax=False)
        assert response["Location"] == "/take/"
        page = screened.get("/take/").content.decode()
        assert 'data-page="1"' in page and 'value="finish"' in page
        assert "no more pages apply to you: press Finish" in page

    def test_the_saved_answers_of_later_pages_come_with_the_page_that_decides_them(self, screened):
        import html
        import json

        save_page(screened, 1, {"q-consent": "yes"})
        page = screened.get("/take/page/1/").content.decode()
        answers = json.loads(html.unescape(re.search(r'data-route-answers="([^"]*)"', page).group(1)))
        assert answers == {}  # the rules read only page 1's own answer
