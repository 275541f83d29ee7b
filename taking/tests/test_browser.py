"""What a person sees: headless Chromium (Debian's) driven by Playwright against a live server.

Each test answers pages with the mouse and the keyboard, records what it
chose, and checks that the database holds exactly that.
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from django.conf import settings
from playwright.sync_api import expect

from respondents.models import Answer, Respondent
from respondents.tests.factories import make_respondents
from surveys.tests.factories import make_demo_survey, make_screener_survey, make_survey
from taking.forms import PageForm
from taking.tests.helpers import answer_page, expect_page, log_in

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def saved_answers(respondent):
    return dict(Answer.objects.filter(respondent=respondent).values_list("question__code", "value"))


def test_a_person_takes_the_whole_demo_survey_and_the_database_holds_what_they_clicked(page, live_server):
    survey = make_demo_survey()
    respondent = make_respondents(survey)
    log_in(page, live_server.url, respondent)

    # Page 1's variant chooses "Teacher": all 13 pages apply once it is saved, the teachers' page 5 among them;
    # before, 12 do.
    expected = {}
    for number in range(1, 14):
        expect_page(page, number)
        expect(page.get_by_text(f"Page {number} of {12 if number == 1 else 13}")).to_be_visible()
        expected.update(answer_page(page, number))
        if number == 1:
            assert expected["role"] == "teacher" and "grade_taught" in expected
            assert not {"grade", "grade_child"} & expected.keys()
        if number < 13:
            if number % 2:
                page.get_by_role("button", name="Next").click()
            else:
                page.get_by_role("button", name="Next").focus()
                page.keyboard.press("Enter")
            expect_page(page, number + 1)
            assert page.url.endswith(f"/take/page/{number + 1}/")  # moved without a reload

    # Back from the last page: page 12 shows what was saved; change one answer.
    page.get_by_role("button", name="Back").click()
    expect_page(page, 12)
    expect(page.locator(f'input[name="q-home_internet"][value="{expected["home_internet"]}"]')).to_be_checked()
    other = "yes" if expected["home_internet"] == "no" else "no"
    page.locator(f'input[name="q-home_internet"][value="{other}"]').check()
    expected["home_internet"] = other
    page.get_by_role("button", name="Next").click()
    expect_page(page, 13)
    expect(page.locator('input[name="q-recommend"]:checked')).to_have_count(1)

    page.get_by_role("button", name="Finish").click()
    page.wait_for_url(re.compile(r"/take/complete/$"))
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()

    respondent.refresh_from_db()
    assert respondent.status == Respondent.Status.COMPLETED
    assert saved_answers(respondent) == expected
    # Every question but those the answers did not ask: the students' and parents' grades, and "why?"
    # after a rating that was not low.
    assert expected["overall"] not in ("1", "2")
    assert len(expected) == survey.questions.exclude(kind="grid").count() - 3

def test_a_bad_answer_is_shown_next_to_its_field_and_nothing_is_saved(page, live_server):
    respondent = make_respondents(make_survey())
    log_in(page, live_server.url, respondent)
    page.get_by_label("Age?").fill("200")
    page.get_by_label("Nickname?").fill("Zed")
    page.get_by_role("button", name="Next").click()
    error = page.locator("#error-q-age")
    expect(error).to_contain_text("less than or equal to 99")
    expect(page.get_by_label("Age?")).to_have_attribute("aria-invalid", "true")
    expect(page.locator(".error-summary")).to_be_focused()
    expect(page.locator(".error-summary").get_by_role("link", name="Age?")).to_be_visible()
    assert not Answer.objects.exists()
    # Corrected, the same page saves.
    page.get_by_label("Age?").fill("12")
    page.get_by_role("button", name="Next").click()
    expect_page(page, 2)
    assert saved_answers(respondent)["age"] == "12"

def test_a_save_whose_answer_is_lost_on_the_network_is_retried_and_saved_once(page, live_server):
    respondent = make_respondents(make_survey())
    log_in(page, live_server.url, respondent)
    lost = []

    def lose_the_first_answer(route):
        if route.request.method == "POST" and not lost:
            route.fetch()  # the server saves...
            lost.append(route.request.post_data)
            route.abort("connectionreset")  # ...but the browser never hears back
        else:
            route.continue_()

    page.route("**/take/page/1/", lose_the_first_answer)
    page.get_by_label("Blue").check()
    page.get_by_role("button", name="Next").click()
    expect(page.locator("#save-status")).to_contain_text("Retrying")
    expect_page(page, 2)
    assert len(lost) == 1
    assert saved_answers(respondent)["colour"] == "blue"
    assert Respondent.objects.get(pk=respondent.pk).current_page == 2

def test_a_503_with_retry_after_is_retried_with_the_same_save_id_and_saved_once(page, live_server):
    respondent = make_respondents(make_survey())
    log_in(page, live_server.url, respondent)
    sent = []

    def overloaded_once(route):
        if route.request.method != "POST":
            return route.continue_()
        sent.append((route.request.headers["content-type"], route.request.post_data))
        if len(sent) == 1:
            return route.fulfill(status=503, headers={"Retry-After": "1"}, body="busy")
        route.continue_()

    page.route("**/take/page/1/", overloaded_once)
    page.get_by_label("Red").check()
    page.get_by_role("button", name="Next").click()
    expect(page.locator("#save-status")).to_contain_text("Retrying in 1 s")
    expect_page(page, 2)
    # The answers go as a form without script sends them (urlencoded), not as FormData's multipart.
    assert {content_type for content_type, _ in sent} == {"application/x-www-form-urlencoded"}
    save_ids = [parse_qs(body)["save_id"][0] for _, body in sent]
    assert len(save_ids) == 2 and save_ids[0] == save_ids[1]
    assert parse_qs(sent[0][1])["q-colour"] == ["red"]
    assert saved_answers(respondent)["colour"] == "red"


def test_a_next_page_that_does_not_load_is_fetched_again_and_shown(page, live_server):
    respondent = make_respondents(make_survey())
    log_in(page, live_server.url, respondent)
    lost = []

    def lose_the_first_load(route):
        if route.request.method == "GET" and not lost:
            lost.append(route.request.url)
            return route.abort("connectionreset")
        route.continue_()

    page.route("**/take/page/2/", lose_the_first_load)
    page.get_by_label("Blue").check()
    page.get_by_role("button", name="Next").click()
    expect(page.locator("#save-status")).to_contain_text("trying again (attempt 1)")
    expect_page(page, 2)
    expect(page.locator("#save-status")).to_be_empty()
    assert len(lost) == 1 and page.url.endswith("/take/page/2/")
    assert saved_answers(respondent)["colour"] == "blue"


@pytest.mark.parametrize("status, says", [
    (413, "too much to send at once"), (500, "Something went wrong (error 500)"), (400, "error 400"),
])
def test_a_refusal_that_is_not_json_is_shown_once_and_not_retried(page, live_server, status, says):
    respondent = make_respondents(make_survey())
    log_in(page, live_server.url, respondent)
    sent = []

    def refuse(route):
        if route.request.method != "POST":
            return route.continue_()
        sent.append(1)
        route.fulfill(status=status, content_type="text/html", body="<html>proxy page</html>")

    page.route("**/take/page/1/", refuse)
    page.get_by_role("button", name="Next").click()
    expect(page.locator("#save-status")).to_contain_text(says, ignore_case=True)
    expect(page.locator("#save-status")).to_contain_text("This page is not saved")
    expect(page.get_by_role("button", name="Next")).to_be_enabled()
    page.wait_for_timeout(1500)  # longer than the first retry delay
    assert sent == [1]
    assert not Answer.objects.exists()


def test_retry_after_is_the_least_wait_and_a_longer_outage_still_backs_off(page, live_server):
    respondent = make_respondents(make_survey())
    page.clock.install()
    log_in(page, live_server.url, respondent)
    retry_after = ["1"]

    def busy(route):
        if route.request.method == "POST":
            return route.fulfill(status=503, headers={"Retry-After": retry_after[0]}, body="busy")
        route.continue_()

    page.route("**/take/page/1/", busy)
    page.get_by_label("Blue").check()
    page.get_by_role("button", name="Next").click()
    status = page.locator("#save-status")
    expect(status).to_contain_text("Retrying in 1 s (attempt 1 of 7)")
    page.clock.run_for(1_100)
    expect(status).to_contain_text("Retrying in 2 s (attempt 2 of 7)")  # doubled, although the server said 1
    retry_after[0] = "10"
    page.clock.run_for(2_100)
    expect(status).to_contain_text("Retrying in 10 s (attempt 3 of 7)")  # the server's longer wait wins
    assert not Answer.objects.exists()


def test_after_the_last_retry_the_person_is_told_what_to_do_and_can_send_again(page, live_server):
    respondent = make_respondents(make_survey())
    page.clock.install()
    log_in(page, live_server.url, respondent)
    offline = [True]

    def network(route):
        if route.request.method == "POST" and offline[0]:
            return route.abort("internetdisconnected")
        route.continue_()

    page.route("**/take/page/1/", network)
    page.get_by_label("Blue").check()
    page.get_by_role("button", name="Next").click()
    status = page.locator("#save-status")
    expect(status).to_contain_text("attempt 1 of 7")
    for attempt in range(2, 8):
        page.clock.run_for(16_000)
        expect(status).to_contain_text(f"attempt {attempt} of 7")
    page.clock.run_for(16_000)
    expect(status).to_contain_text("This page is not saved yet")
    expect(status).to_contain_text("Check that you are online")
    expect(page.get_by_role("button", name="Next")).to_be_enabled()
    assert not Answer.objects.exists()

    offline[0] = False
    page.get_by_role("button", name="Next").click()
    expect_page(page, 2)
    assert saved_answers(respondent)["colour"] == "blue"


def test_missing_required_answers_are_listed_with_links_to_their_pages(page, live_server):
    respondent = make_respondents(make_survey())
    log_in(page, live_server.url, respondent)
    page.get_by_role("button", name="Next").click()
    expect_page(page, 2)
    page.get_by_role("button", name="Next").click()
    expect_page(page, 3)
    page.get_by_label("Agree", exact=True).check()
    page.get_by_role("button", name="Finish").click()
    summary = page.locator(".error-summary")
    expect(summary).to_contain_text("Favourite colour?")
    summary.get_by_role("link", name="Page 1").click()
    expect_page(page, 1)
    assert Respondent.objects.get(pk=respondent.pk).status == Respondent.Status.IN_PROGRESS


def summaries_seen(browser, live_server, respondent, *, script):
    """Send page 1 with a bad age, a choice that is not offered and a field of no question on the page (as a stale
    or altered page might), then, fixed, go on to page 3 and finish with page 1's required question unanswered;
    return the two summaries as the browser holds them (outer HTML)."""
    context = browser.new_context(java_script_enabled=script)
    page = context.new_page()
    try:
        log_in(page, live_server.url, respondent, script=script)
        page.get_by_label("Age?").fill("200")
        page.locator("form.survey-form").evaluate("""form => {
            const stale = document.createElement("input");
            Object.assign(stale, {type: "hidden", name: "q-nope", value: "x", className: "stale"});
            form.appendChild(stale);
            Object.assign(form.querySelector("input[name='q-colour']"), {value: "green", checked: true});
        }""")
        page.get_by_role("button", name="Next").click()
        expect(page.locator(".error-summary")).to_be_visible()
        refused = page.locator(".error-summary").evaluate("box => box.outerHTML")
        page.evaluate("""() => {
            document.querySelectorAll("input.stale").forEach(input => input.remove());
            document.querySelectorAll("input[name='q-colour']").forEach(input => { input.checked = false; });
        }""")
        page.get_by_label("Age?").fill("")
        page.get_by_role("button", name="Next").click()
        expect_page(page, 2)
        page.get_by_role("button", name="Next").click()
        expect_page(page, 3)
        page.get_by_label("Agree", exact=True).check()
        page.get_by_role("button", name="Finish").click()
        expect(page.locator(".error-summary")).to_be_visible()
        missing = page.locator(".error-summary").evaluate("box => box.outerHTML")
        return refused, missing
    finally:
        context.close()


def test_the_summaries_a_person_sees_with_script_are_those_the_server_renders_without_it(browser, live_server):
    with_script, without_script = make_respondents(make_survey(), count=2)
    refused, missing = summaries_seen(browser, live_server, with_script, script=True)
    assert (refused, missing) == summaries_seen(browser, live_server, without_script, script=False)
    assert refused == (
        '<div class="error-summary" role="alert" tabindex="-1"><h2>Nothing on this page was saved. Please fix:</h2><ul>'
        '<li><a href="#field-q-colour">Favourite colour?</a>: Select a valid choice. green is not one of the available'
        ' choices.</li><li><a href="#field-q-age">Age?</a>: Ensure this value is less than or equal to 99.</li>'
        "<li>There is no such question on this page.</li></ul></div>"
    )
    assert '<li><a href="/take/page/1/" class="page-link">Page 1</a>: Favourite colour? (' in missing

def test_without_javascript_a_person_takes_the_survey_with_plain_form_posts(browser, live_server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    respondent = make_respondents(make_survey())
    log_in(page, live_server.url, respondent, script=False)

    expected = {}
    for number in (1, 2, 3):
        expect_page(page, number)
        expected.update(answer_page(page, number))
        if number < 3:
            page.get_by_role("button", name="Next").click()
    # Back to page 2 (saving page 3 on the way), change the date, return.
    page.get_by_role("button", name="Back").click()
    expect_page(page, 2)
    expect(page.get_by_label("Birthday?")).to_have_value(expected["born"])
    page.get_by_label("Birthday?").fill("2016-01-31")
    expected["born"] = "2016-01-31"
    page.get_by_role("button", name="Next").click()
    expect_page(page, 3)
    expect(page.get_by_label("Tell us more.")).to_have_value(expected["story"])
    page.get_by_role("button", name="Finish").click()
    page.wait_for_url(re.compile(r"/take/complete/$"))
    expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()

    assert saved_answers(respondent) == expected
    assert Respondent.objects.get(pk=respondent.pk).status == Respondent.Status.COMPLETED
    context.close()

def test_without_javascript_leaving_and_logging_in_again_resumes_on_the_same_page(browser, live_server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    respondent = make_respondents(make_survey())
    log_in(page, live_server.url, respondent, script=False)
    page.get_by_label("Red").check()
    page.get_by_role("button", name="Next").click()
    expect_page(page, 2)
    context.close()  # the browser is closed

    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    log_in(page, live_server.url, respondent, script=False)
    expect_page(page, 2)
    page.get_by_role("button", name="Back").click()
    expect(page.get_by_label("Red")).to_be_checked()
    context.close()


# ---------------------------------------------------------------- "Save and log out"

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
SCRIPT = pytest.mark.parametrize("script", [True, False], ids=["script", "no-script"])


def save_and_log_out_button(page, viewport):
    """The header's "Save and log out" (in the page's language), once it is checked to be within the screen's width
    and the page not to scroll sideways."""
    button = page.get_by_role("button", name=re.compile("^(Save and log out|Guardar y cerrar sesión)$"))
    box = button.bounding_box()
    assert 0 <= box["x"] and box["x"] + box["width"] <= viewport["width"]
    assert button.evaluate("b => document.documentElement.scrollWidth - window.innerWidth") <= 0
    return button


@SIZES
@SCRIPT
def test_save_and_log_out_keeps_what_was_typed_on_the_page_and_the_next_login_comes_back_to_it(
        browser, live_server, script, viewport):
    context = browser.new_context(java_script_enabled=script, viewport=viewport)
    page = context.new_page()
    respondent = make_respondents(make_survey())
    log_in(page, live_server.url, respondent, script=script)
    page.get_by_label("Blue").check()
    page.get_by_role("button", name="Next").click()
    expect_page(page, 2)
    # Typed on page 2, not saved by any Next: the required answers of page 3 are not asked for either.
    page.get_by_label("Birthday?").fill("2013-04-05")
    page.get_by_role("radio", name="I am happy. Agree").check()
    save_and_log_out_button(page, viewport).click()
    page.wait_for_url(live_server.url + "/")
    expect(page.get_by_text("Your answers are saved and you have logged out.")).to_be_visible()
    expect(page.get_by_label("Access code")).to_be_visible()
    saved = saved_answers(respondent)
    assert (saved["colour"], saved["born"], saved["happy"], saved["safe"]) == ("blue", "2013-04-05", "2", "")
    assert Respondent.objects.get(pk=respondent.pk).current_page == 2
    page.goto(live_server.url + "/take/")  # the session has ended
    expect(page.get_by_label("Access code")).to_be_visible()

    log_in(page, live_server.url, respondent, script=script)
    expect_page(page, 2)
    expect(page.get_by_label("Birthday?")).to_have_value("2013-04-05")
    expect(page.get_by_role("radio", name="I am happy. Agree")).to_be_checked()
    context.close()


@SIZES
@SCRIPT
def test_a_refused_save_and_log_out_stays_logged_in_with_the_error_shown(browser, live_server, script, viewport):
    context = browser.new_context(java_script_enabled=script, viewport=viewport)
    page = context.new_page()
    respondent = make_respondents(make_survey())
    log_in(page, live_server.url, respondent, script=script)
    page.get_by_label("Nickname?").fill("Zed")
    page.get_by_label("Age?").fill("200")  # out of range: the page is refused
    save_and_log_out_button(page, viewport).click()
    expect(page.locator("#error-q-age")).to_contain_text("less than or equal to 99")
    expect(page.locator(".error-summary")).to_contain_text("Nothing on this page was saved")
    if script:
        expect(page.locator("#save-status")).to_contain_text("Not saved")
    expect(page.get_by_label("Nickname?")).to_have_value("Zed")  # what was typed is still on the page
    assert not Answer.objects.exists()
    assert "/take/" in page.url

    # Still logged in: corrected, the same page saves, then logs out.
    page.get_by_label("Age?").fill("12")
    save_and_log_out_button(page, viewport).click()
    page.wait_for_url(live_server.url + "/")
    expect(page.get_by_text("Your answers are saved and you have logged out.")).to_be_visible()
    assert saved_answers(respondent) == {"colour": "", "pets": "", "age": "12", "nickname": "Zed"}
    context.close()


def test_on_a_phone_in_spanish_the_header_s_save_and_log_out_and_language_switcher_fit_the_screen(browser, live_server):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    log_in(page, live_server.url, make_respondents(make_demo_survey(), language="es"))
    save_and_log_out_button(page.locator("header"), PHONE)
    box = page.get_by_role("button", name="English").bounding_box()
    assert 0 <= box["x"] and box["x"] + box["width"] <= PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    context.close()

def test_a_save_and_log_out_that_meets_a_5xx_or_the_network_says_so_retries_and_logs_out_only_once_saved(
        page, live_server):
    respondent = make_respondents(make_survey())
    page.clock.install()
    log_in(page, live_server.url, respondent)
    answers = {"failure": "server"}

    def failing(route):
        if route.request.method != "POST" or answers["failure"] is None:
            return route.continue_()
        if answers["failure"] == "server":
            return route.fulfill(status=500, content_type="text/html", body="<html>proxy page</html>")
        if answers["failure"] == "busy":
            answers["failure"] = None  # once
            return route.fulfill(status=503, headers={"Retry-After": "1"}, body="busy")

    page.route("**/take/page/1/", failing)
    page.get_by_label("Red").check()
    button = page.get_by_role("button", name="Save and log out")
    button.click()
    status = page.locator("#save-status")
    expect(status).to_contain_text("Something went wrong (error 500)")
    expect(status).to_contain_text("This page is not saved")
    expect(button).to_be_enabled()
    assert "/take/" in page.url and not Answer.objects.exists()

    answers["failure"] = "busy"
    button.click()
    expect(status).to_contain_text("Retrying in 1 s")
    expect(button).to_be_disabled()  # busy as for any save: no second press meanwhile
    expect(page.get_by_role("button", name="Next")).to_be_disabled()
    page.clock.run_for(1_100)
    page.wait_for_url(live_server.url + "/")
    expect(page.get_by_text("Your answers are saved and you have logged out.")).to_be_visible()
    assert saved_answers(respondent)["colour"] == "red"
    assert respondent.page_saves.count() == 1


def test_no_page_breaks_the_content_security_policy(page, live_server):
    from django.contrib.auth.models import User

    violations = []
    page.on("console", lambda message: "Content Security Policy" in message.text and violations.append(message.text))
    respondent = make_respondents(make_survey())
    log_in(page, live_server.url, respondent)
    page.get_by_role("button", name="Next").click()
    expect_page(page, 2)
    User.objects.create_superuser("admin", "admin@example.org", "a-long-admin-password")
    page.goto(live_server.url + "/admin/")
    page.get_by_label("Username").fill("admin")
    page.get_by_label("Password").fill("a-long-admin-password")
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{live_server.url}/admin/respondents/respondent/{respondent.pk}/change/")
    expect(page.get_by_role("heading", name="Page saves")).to_be_visible()
    page.goto(live_server.url + "/admin/surveys/survey/add/")
    expect(page.get_by_role("heading", name="Add survey")).to_be_visible()
    assert violations == []


def test_an_idle_page_warns_lets_the_person_stay_and_otherwise_logs_out(page, live_server, settings):
    respondent = make_respondents(make_survey())
    page.clock.install()
    log_in(page, live_server.url, respondent)
    page.get_by_label("Red").check()
    page.get_by_label("Red").focus()
    idle = settings.SESSION_IDLE_TIMEOUT_SECONDS - 60
    warn_at = idle - settings.SESSION_IDLE_WARNING_SECONDS

    page.clock.run_for((warn_at - 5) * 1000)
    dialog = page.get_by_role("alertdialog", name="Are you still there?")
    expect(dialog).to_have_count(0)
    page.clock.run_for(10_000)
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("you will be logged out in about 5 minutes")
    keep = dialog.get_by_role("button", name="Keep me logged in")
    expect(keep).to_be_focused()
    page.keyboard.press("Enter")  # one key press keeps the person logged in
    expect(dialog).to_have_count(0)
    expect(page.get_by_label("Red")).to_be_focused()  # back where they were

    # Nobody answers the next warning: the page logs out by itself.
    page.clock.run_for((warn_at + 5) * 1000)
    expect(dialog).to_be_visible()
    page.clock.run_for(settings.SESSION_IDLE_WARNING_SECONDS * 1000)
    page.wait_for_url(re.compile(r"/$"))
    expect(page.get_by_text("logged out after 60 minutes without activity")).to_be_visible()
    page.goto(live_server.url + "/take/")
    expect(page.get_by_label("Access code")).to_be_visible()
    assert not Answer.objects.exists()  # the unsaved choice stayed in the browser


# ---------------------------------------------------------------- skip logic in the browser

def test_survey_js_evaluates_every_golden_rule_case_as_the_server_does(page, live_server):
    import json
    from pathlib import Path

    cases = json.loads((Path(__file__).resolve().parents[2] / "surveys" / "tests" / "rule_cases.json").read_text())
    log_in(page, live_server.url, make_respondents(make_survey()))
    kinds = {code: question["kind"] for code, question in cases["questions"].items()}
    results = page.evaluate(
        """([cases, kinds]) => cases.map(c => Survey.rules.evaluate(
             c.rule, c.answers, c.of ? Object.assign({}, kinds, {".": kinds[c.of]}) : kinds, c.own))""",
        [cases["cases"], kinds],
    )
    wrong = [case["name"] for case, result in zip(cases["cases"], results, strict=True) if result != case["expected"]]
    assert not wrong and len(results) == len(cases["cases"]) >= 100


def test_the_script_names_the_answer_fields_as_the_page_says(page, live_server, monkeypatch):
    """With another prefix for the answer fields (PageForm.answer_name's, handed to survey.js by the page), the
    script still follows the answers, marks errors and saves: it spells no field name of its own."""
    monkeypatch.setattr(PageForm, "answer_prefix", "answer-")
    respondent = make_respondents(make_demo_survey())
    log_in(page, live_server.url, respondent)
    expect(page.locator('input[name="answer-role"]')).to_have_count(3)
    grade = page.locator("#field-answer-grade")
    expect(grade).to_be_hidden()
    page.get_by_label("Student").check()
    expect(grade).to_be_visible()
    grade.get_by_label("Grade 6").check()
    years = page.get_by_label("How many years have you been at this school?")
    years.fill("20")  # more than a student can have been there
    page.get_by_role("button", name="Next").click()
    expect(page.locator("#error-answer-years_at_school")).not_to_be_empty()
    expect(years).to_have_attribute("aria-invalid", "true")
    expect(page.locator('.error-summary a[href="#field-answer-years_at_school"]')).to_be_visible()
    years.fill("2")
    page.get_by_role("button", name="Next").click()
    expect_page(page, 2)
    answers = saved_answers(respondent)
    assert (answers["role"], answers["grade"], answers["years_at_school"]) == ("student", "6", "2")


@pytest.fixture(scope="module")
def compressed_survey_script(tmp_path_factory):
    """take.html's {% compress js %} block as production serves it: compressed offline with compression on
    (deploy/stack runs manage.py compress), in a process of its own (compressor keeps its storage for a process's
    life). Return the one file's text."""
    root = tmp_path_factory.mktemp("static")
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "STATIC_ROOT": str(root),
                   "COMPRESS_ENABLED": "true"}
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "compress", "--force"], cwd=ROOT, env=environment,
                   capture_output=True, text=True, check=True)
    blocks = json.loads((root / "CACHE" / "manifest.json").read_text()).values()
    survey = [re.findall(r"CACHE/js/output\.[0-9a-f]+\.js", html) for html in blocks if "<script" in html]
    survey = [files for files in survey if "Survey.saving" in (root / files[0]).read_text()]
    assert len(survey) == 1 and len(survey[0]) == 1, survey  # one block, one file
    return (root / survey[0][0]).read_text()


@pytest.mark.skipif(settings.COMPRESS_ENABLED, reason="the page links the compressed bundle itself (the stack's "
                    "browser tests take the survey with it, from S3)")
def test_the_compressed_survey_script_takes_the_survey_as_its_separate_files_do(page, live_server,
                                                                               compressed_survey_script):
    respondent = make_respondents(make_demo_survey())
    log_in(page, live_server.url, respondent)
    # The survey page again, as production links it: one script, the compressed one, in place of the files.
    bundle = "/static/CACHE/js/survey-bundle.js"

    def one_script(route):
        response = route.fetch()
        html = re.sub(r'(<script src="/static/taking/[^"]+" defer></script>\s*)+',
                      f'<script src="{bundle}" defer></script>', response.text())
        route.fulfill(response=response, body=html)

    page.route("**/take/", one_script)
    page.route(f"**{bundle}", lambda route: route.fulfill(body=compressed_survey_script,
                                                          content_type="text/javascript"))
    scripts = []
    page.on("request", lambda request: request.resource_type == "script" and scripts.append(request.url))
    page.goto(live_server.url + "/take/")
    expect(page.locator("#survey-page[data-enhanced]")).to_have_count(1)
    assert scripts == [live_server.url + bundle]

    page.get_by_label("Student").check()
    expect(page.locator("#field-q-grade")).to_be_visible()
    page.get_by_label("How many years have you been at this school?").fill("20")
    page.get_by_role("button", name="Next").click()
    expect(page.locator(".error-summary")).to_be_focused()
    page.get_by_label("How many years have you been at this school?").fill("2")
    page.get_by_role("button", name="Next").click()
    expect_page(page, 2)
    assert page.url.endswith("/take/page/2/")  # moved without a reload
    assert scripts == [live_server.url + bundle]
    assert saved_answers(respondent)["years_at_school"] == "2"


def test_questions_show_and_hide_as_the_person_answers_and_only_what_is_asked_is_saved(page, live_server):
    respondent = make_respondents(make_demo_survey())
    log_in(page, live_server.url, respondent)
    grades = {name: page.locator(f"#field-q-{name}") for name in ("grade", "grade_taught", "grade_child")}
    for field in grades.values():
        expect(field).to_be_hidden()  # no role chosen yet
    expect(page.locator(".condition:visible")).to_have_count(0)  # the words are for a page without JavaScript

    page.get_by_label("Parent or guardian").check()
    expect(grades["grade_child"]).to_be_visible()
    expect(grades["grade"]).to_be_hidden()
    grades["grade_child"].get_by_label("Grade 8").check()
    page.get_by_label("Student").check()
    expect(grades["grade_child"]).to_be_hidden()
    expect(grades["grade"]).to_be_visible()
    grades["grade"].get_by_label("Grade 6").check()
    page.get_by_role("button", name="Next").click()
    expect_page(page, 2)
    # The parent's grade was hidden when saved: not asked, not stored.
    assert {k: v for k, v in saved_answers(respondent).items() if v} == {"role": "student", "grade": "6"}

    # A low rating asks why; a better one does not.
    page.goto(live_server.url + "/take/page/13/")
    why = page.locator("#field-q-overall_why")
    expect(why).to_be_hidden()
    page.get_by_label("Poor", exact=True).check()
    expect(why).to_be_visible()
    page.get_by_label("Why did you give your school a low rating?").fill("The roof leaks.")
    page.get_by_label("Very good").check()
    expect(why).to_be_hidden()
    page.get_by_label("Very poor").check()
    expect(why).to_be_visible()
    expect(page.get_by_label("Why did you give your school a low rating?")).to_have_value("The roof leaks.")


def test_a_student_skips_the_teachers_page_going_on_and_coming_back(page, live_server):
    respondent = make_respondents(make_demo_survey())
    log_in(page, live_server.url, respondent)
    page.get_by_label("Student").check()
    page.get_by_role("button", name="Next").click()
    expect_page(page, 2)
    expect(page.get_by_text("Page 2 of 12")).to_be_visible()
    page.goto(live_server.url + "/take/page/4/")
    page.get_by_role("button", name="Next").click()
    expect_page(page, 6)
    expect(page.get_by_text("Page 5 of 12")).to_be_visible()
    page.get_by_role("button", name="Back").click()
    expect_page(page, 4)


def test_without_javascript_every_question_shows_when_to_answer_it_and_the_server_decides(browser, live_server):
    respondent = make_respondents(make_demo_survey())
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        log_in(page, live_server.url, respondent, script=False)
        for name in ("grade", "grade_taught", "grade_child"):
            expect(page.locator(f"#field-q-{name}")).to_be_visible()
        expect(page.locator("#field-q-grade_taught")).to_contain_text(
            "Answer if you chose “Teacher” for “Which best describes you?”.")
        page.get_by_label("Teacher").check()
        page.locator("#field-q-grade").get_by_label("Grade 7").check()
        page.locator("#field-q-grade_taught").get_by_label("Grade 10").check()
        page.get_by_role("button", name="Next").click()
        expect_page(page, 2)
        answers = saved_answers(respondent)
        assert answers["grade_taught"] == "10" and "grade" not in answers
    finally:
        context.close()


def test_a_screener_follows_the_answer_yes_goes_on_and_no_finishes(page, live_server):
    survey = make_screener_survey()
    agrees, declines = make_respondents(survey, count=2)
    log_in(page, live_server.url, agrees)
    expect(page.locator(".progress label")).to_have_text("Page 1 of 1")
    expect(page.get_by_role("button", name="Finish")).to_be_visible()
    page.get_by_label("Yes").check()
    # The label and the button follow the answer before anything is saved.
    expect(page.locator(".progress label")).to_have_text("Page 1 of 3")
    expect(page.get_by_role("button", name="Finish")).to_have_count(0)
    expect(page.locator("button.forward")).to_have_attribute("value", "next")
    page.get_by_label("No").check()
    expect(page.locator(".progress label")).to_have_text("Page 1 of 1")
    expect(page.locator("button.forward")).to_have_attribute("value", "finish")
    page.get_by_label("Yes").check()
    page.get_by_role("button", name="Next").click()
    expect_page(page, 2)
    expect(page.locator(".progress label")).to_have_text("Page 2 of 3")
    page.get_by_label("Blue").check()
    page.get_by_role("button", name="Next").click()
    expect_page(page, 3)
    page.get_by_label("Agree", exact=True).check()
    page.get_by_role("button", name="Finish").click()
    expect(page).to_have_url(re.compile(r"/take/complete/$"))
    assert saved_answers(agrees) == {"consent": "yes", "colour": "blue", "again": "2"}

    page.context.clear_cookies()
    log_in(page, live_server.url, declines)
    page.get_by_label("No").check()
    expect(page.get_by_role("button", name="Finish")).to_be_visible()
    page.get_by_role("button", name="Finish").click()
    expect(page).to_have_url(re.compile(r"/take/complete/$"))
    assert Respondent.objects.get(pk=declines.pk).status == Respondent.Status.COMPLETED


def test_without_javascript_a_screener_goes_on_after_yes_and_finishes_after_no(browser, live_server):
    survey = make_screener_survey()
    agrees, declines = make_respondents(survey, count=2)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        log_in(page, live_server.url, agrees, script=False)
        expect(page.locator(".progress label")).to_have_text("Page 1 of 1")
        page.get_by_label("Yes").check()
        # The page was shown with Finish; the server decides where the press goes once "yes" is saved.
        page.get_by_role("button", name="Finish").click()
        expect_page(page, 2)
        expect(page.locator(".progress label")).to_have_text("Page 2 of 3")
        page.get_by_role("button", name="Back").click()
        expect_page(page, 1)
        page.get_by_label("No").check()
        page.get_by_role("button", name="Next").click()
        # Saved; no page after this one applies now, and the page says so and offers Finish.
        expect_page(page, 1)
        expect(page.get_by_text("no more pages apply to you")).to_be_visible()
        page.get_by_label("Yes").check()
        page.get_by_role("button", name="Finish").click()
        expect_page(page, 2)
        page.get_by_role("button", name="Next").click()
        page.get_by_label("Agree", exact=True).check()
        page.get_by_role("button", name="Finish").click()
        expect(page).to_have_url(re.compile(r"/take/complete/$"))
        assert saved_answers(agrees) == {"consent": "yes", "colour": "", "again": "2"}

        context.clear_cookies()
        log_in(page, live_server.url, declines, script=False)
        page.get_by_label("No").check()
        page.get_by_role("button", name="Finish").click()
        expect(page).to_have_url(re.compile(r"/take/complete/$"))
        assert Respondent.objects.get(pk=declines.pk).status == Respondent.Status.COMPLETED
    finally:
        context.close()


# ---------------------------------------------------------------- languages

def test_a_person_takes_the_demo_survey_in_spanish_from_the_roster(page, live_server):
    survey = make_demo_survey()
    respondent = make_respondents(survey, language="es")
    log_in(page, live_server.url, respondent)
    expect(page.locator("html")).to_have_attribute("lang", "es")
    expect(page.get_by_role("heading", name="Sobre usted")).to_be_visible()
    page.get_by_label("Estudiante").check()
    expect(page.get_by_text("¿En qué grado está?")).to_be_visible()
    # A constraint's own message, in Spanish.
    page.get_by_label("¿Cuántos años lleva en esta escuela?").fill("20")
    page.get_by_role("button", name="Siguiente").click()
    expect(page.locator("#error-q-years_at_school")).to_contain_text("Un estudiante no puede haber estado más de 13")
    expect(page.locator(".error-summary")).to_contain_text("No se guardó nada de esta página. Corrija:")
    page.get_by_label("¿Cuántos años lleva en esta escuela?").fill("2")

    # A student's 12 pages, the teachers' page skipped.
    expected = {}
    shown = [n for n in range(1, 14) if n != 5]
    for index, number in enumerate(shown, start=1):
        expect_page(page, number)
        expect(page.get_by_text(f"Página {index} de 12")).to_be_visible()
        expected.update(answer_page(page, 0 if number == 1 else number))
        if number == 1:
            expected["years_at_school"] = "2"
            page.get_by_label("¿Cuántos años lleva en esta escuela?").fill("2")
        name = "Terminar" if number == 13 else "Siguiente"
        page.get_by_role("button", name=name, exact=True).click()
    page.wait_for_url(re.compile(r"/take/complete/$"))
    expect(page.get_by_role("heading", name="¡Gracias!")).to_be_visible()
    expect(page.get_by_text("Gracias por responder la Encuesta sobre el clima escolar.")).to_be_visible()
    respondent.refresh_from_db()
    assert respondent.status == Respondent.Status.COMPLETED
    assert {k: v for k, v in saved_answers(respondent).items() if v} == {k: v for k, v in expected.items() if v}


def test_the_language_switcher_changes_the_page_and_is_remembered(page, live_server):
    respondent = make_respondents(make_demo_survey())
    page.goto(live_server.url + "/")
    page.get_by_role("button", name="Español").click()
    expect(page.get_by_role("heading", name="Iniciar sesión en la encuesta")).to_be_visible()
    page.get_by_label("Código de acceso").fill(respondent.formatted_access_code)
    page.get_by_role("button", name="Comenzar").click()
    expect(page.get_by_text("Página 1 de 12")).to_be_visible()
    page.get_by_role("button", name="English").click()
    expect(page.get_by_text("Page 1 of 12")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.get_by_role("button", name="Español").click()
    expect(page.get_by_role("button", name="Siguiente")).to_be_visible()
    respondent.refresh_from_db()
    assert respondent.language == "es"


def test_a_language_switch_keeps_the_answers_typed_on_the_page_and_saves_nothing(page, live_server):
    respondent = make_respondents(make_demo_survey())
    log_in(page, live_server.url, respondent)
    page.get_by_label("Student").check()
    page.locator('input[name="q-grade"][value="7"]').check()
    page.get_by_label("How many years have you been at this school?").fill("2")
    page.get_by_role("button", name="Next").click()
    expect_page(page, 2)
    page.get_by_role("button", name="Back").click()  # in place, by Ajax: the address says page 1, /take/ says 2
    expect_page(page, 1)
    expect(page.locator("#survey-page[data-enhanced]")).to_have_count(1)

    # Changed on page 1, not saved, then the switch.
    page.get_by_label("Teacher").check()
    page.locator('input[name="q-grade_taught"][value="9"]').check()  # the teachers' question, shown by its rule
    page.get_by_label("How many years have you been at this school?").fill("12")
    page.get_by_role("button", name="Español").click()

    expect(page.locator("html")).to_have_attribute("lang", "es")
    expect_page(page, 1)  # the page the person was on, not where the survey resumes
    expect(page.get_by_role("heading", name="Sobre usted")).to_be_visible()
    expect(page.get_by_label("Maestro o maestra")).to_be_checked()
    expect(page.get_by_text("¿Qué grado enseña más?")).to_be_visible()
    expect(page.get_by_text("¿En qué grado está?")).to_be_hidden()
    expect(page.locator('input[name="q-grade_taught"][value="9"]')).to_be_checked()
    expect(page.get_by_label("¿Cuántos años lleva en esta escuela?")).to_have_value("12")
    expect(page.locator("#save-status")).to_contain_text("Sus respuestas en esta página se conservaron")
    # Kept in the page only: the database still holds what was saved.
    answers = saved_answers(respondent)
    assert (answers["role"], answers["grade"], answers["years_at_school"]) == ("student", "7", "2")
    assert not answers.get("grade_taught")

    # Read once: a reload shows the saved answers, not the stash.
    page.reload()
    expect(page.locator("#survey-page[data-enhanced]")).to_have_count(1)
    expect(page.get_by_label("Estudiante")).to_be_checked()
    expect(page.get_by_label("¿Cuántos años lleva en esta escuela?")).to_have_value("2")

    # Saved in the new language: Next saves what was kept.
    page.get_by_label("Maestro o maestra").check()
    page.locator('input[name="q-grade_taught"][value="9"]').check()
    page.get_by_role("button", name="Siguiente").click()
    expect_page(page, 2)
    answers = saved_answers(respondent)
    assert (answers["role"], answers["grade_taught"]) == ("teacher", "9")


def test_a_calculation_and_a_cascading_select_follow_the_answers_on_their_own_page(page, live_server):
    from surveys.services import survey_create

    district = [{"value": v, "label": label, "filters": {"region": region}} for v, label, region in (
        ("n1", "Northfield", "north"), ("n2", "Northgate", "north"), ("s1", "Southport", "south"))]
    survey = survey_create(document={
        "slug": "household", "title": "Household", "status": "open",
        "choice_lists": {"region": [{"value": "north", "label": "North"}, {"value": "south", "label": "South"}],
                         "district": district},
        "pages": [{"title": "Who lives here", "questions": [
            {"code": "adults", "kind": "integer", "prompt": "Adults"},
            {"code": "children", "kind": "integer", "prompt": "Children"},
            {"code": "people", "kind": "calculate",
             "calculation": {"fn": "add", "args": [{"q": "adults"}, {"q": "children"}]}},
            {"code": "large", "kind": "note", "prompt": "A large household: use the long form.",
             "show_if": {"op": "gt", "q": "people", "value": 5}},
            {"code": "region", "kind": "single", "prompt": "Region", "choices": "region"},
            {"code": "district", "kind": "single", "prompt": "District", "choices": "district",
             "choice_filter": {"region": "region"}}]},
            {"title": "Done", "questions": [{"code": "more", "kind": "short_text", "prompt": "Anything else?"}]}]})
    respondent = make_respondents(survey)
    log_in(page, live_server.url, respondent)
    note = page.get_by_text("A large household: use the long form.")
    expect(note).to_be_hidden()
    page.get_by_label("Adults").fill("4")
    page.get_by_label("Children").fill("3")
    page.get_by_label("Adults").focus()  # the change of Children is read when it loses the focus
    expect(note).to_be_visible()
    page.get_by_label("Children").fill("1")
    page.get_by_label("Adults").focus()
    expect(note).to_be_hidden()
    expect(page.get_by_label("Northfield")).to_be_hidden()
    page.get_by_label("North", exact=True).check()
    expect(page.get_by_label("Northfield")).to_be_visible()
    expect(page.get_by_label("Southport")).to_be_hidden()
    page.get_by_label("Northgate").check()
    page.get_by_label("South", exact=True).check()
    expect(page.get_by_label("Northgate")).to_be_hidden()
    expect(page.get_by_label("Northgate")).not_to_be_checked()
    page.get_by_label("Southport").check()
    page.get_by_role("button", name="Next").click()
    expect_page(page, 2)
    assert saved_answers(respondent) == {"adults": "4", "children": "1", "region": "south", "district": "s1"}
