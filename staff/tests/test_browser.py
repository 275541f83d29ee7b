"""What a school coordinator sees: headless Chromium (Debian's) driven by Playwright against a live server.

The whole round: sign in, a roster with a bad row, its error, the fixed file,
apply, the slips (every code of the school in the PDF), a reissued code; then
the respondent's old code fails at the login and the new one resumes their
saved answers.
"""
import io

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from respondents.models import Answer, Respondent, StaffMember
from respondents.tests.factories import make_school, make_staff
from surveys.tests.factories import make_survey

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a long staff passphrase"
HEADER = "external_id,school_code,grade,role,language,display_name\n"
FIXED = HEADER + "s1,LIN,7,student,en,Ana Ruiz\ns2,LIN,7,student,es,Ben Ortiz\nt1,LIN,,teacher,en,Ms Cruz\n"
BAD = FIXED.replace("t1,LIN,,teacher", "t1,LIN,,teachr")


def upload_roster(page, content):
    page.get_by_role("link", name="Upload a roster").click()
    page.get_by_label("Roster file (CSV or XLSX)").set_input_files(
        {"name": "roster.csv", "mimeType": "text/csv", "buffer": content.encode()})
    page.get_by_role("button", name="Check the file").click()


def log_in_respondent(page, base_url, code):
    page.goto(base_url + "/")
    page.get_by_label("Access code").fill(code)
    page.get_by_role("button", name="Start").click()


def test_a_school_coordinator_imports_prints_and_reissues_and_the_respondent_resumes_with_the_new_code(
        page, context, live_server):
    make_survey()
    lincoln = make_school("LIN", "Lincoln Middle")
    make_school("ADA", "Adams Elementary", ("D2", "District Two"))
    make_staff(StaffMember.Role.SCHOOL_COORDINATOR, schools=[lincoln], username="lincoln")
    base = live_server.url

    page.goto(base + "/staff/")
    page.get_by_label("User name").fill("lincoln")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("link", name="Small survey").click()
    expect(page.get_by_role("link", name="Lincoln Middle (LIN)")).to_be_visible()
    expect(page.get_by_text("Adams Elementary")).to_have_count(0)

    upload_roster(page, BAD)
    expect(page.get_by_role("alert")).to_contain_text("The file has 1 problem: nothing was written")
    problem_row = page.locator("table.problems tbody tr")
    expect(problem_row).to_have_count(1)
    expect(problem_row).to_contain_text("4")
    expect(problem_row).to_contain_text("role")
    expect(problem_row).to_contain_text("teachr")
    expect(problem_row).to_contain_text("unknown role")
    assert not Respondent.objects.exists()

    page.get_by_role("link", name="Small survey").click()
    upload_roster(page, FIXED)
    expect(page.get_by_text("Dry run: nothing has been written yet.")).to_be_visible()
    page.get_by_role("button", name="Apply this roster").click()
    expect(page.locator("#roster-status")).to_have_text("Applied")
    assert Respondent.objects.count() == 3

    page.get_by_role("link", name="Small survey").click()
    page.get_by_role("link", name="Lincoln Middle (LIN)").click()
    with page.expect_download() as download:
        page.get_by_role("link", name="Code slips for the whole school (PDF, 3 slips)").click()
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(open(download.value.path(), "rb").read())).pages)
    people = list(Respondent.objects.filter(school=lincoln))
    assert len(people) == 3 and all(person.formatted_access_code in text for person in people)

    # The respondent s1 saves page 1 with the code on their slip, then loses the slip.
    s1 = Respondent.objects.get(external_id="s1")
    old_code = s1.formatted_access_code
    taker = context.new_page()
    log_in_respondent(taker, base, old_code)
    taker.get_by_text("Blue").click()
    taker.get_by_role("button", name="Next").click()
    expect(taker.locator('.survey-page[data-page="2"]')).to_be_visible()

    page.get_by_role("link", name="s1").click()
    page.get_by_role("button", name="Issue a new code").click()
    expect(page.get_by_role("status")).to_contain_text("A new code was issued")
    new_code = page.locator("#access-code").inner_text()
    assert new_code != old_code

    fresh = context.browser.new_context().new_page()
    log_in_respondent(fresh, base, old_code)
    expect(fresh.locator(".login-form .error")).to_contain_text("did not work")
    log_in_respondent(fresh, base, new_code)
    expect(fresh.locator('.survey-page[data-page="2"]')).to_be_visible()
    fresh.get_by_role("button", name="Back").click()
    expect(fresh.locator('.survey-page[data-page="1"]')).to_be_visible()
    expect(fresh.get_by_label("Blue")).to_be_checked()
    assert Answer.objects.get(respondent=s1, question__code="colour").value == "blue"
    fresh.context.close()
    taker.close()


def test_the_slips_qr_address_fills_the_code_without_sending_it_or_logging_in(page, live_server):
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(live_server.url + "/#code=ABCDE-FGHJK")
    expect(page.get_by_label("Access code")).to_have_value("ABCDE-FGHJK")
    assert page.url == live_server.url + "/"  # the fragment is gone from the address bar
    assert not any("ABCDE" in url for url in requested)  # and never went to the server
    expect(page.get_by_role("button", name="Start")).to_be_visible()  # not submitted
