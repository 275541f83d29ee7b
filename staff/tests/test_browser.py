"""What a school coordinator sees: headless Chromium (Debian's) driven by Playwright against a live server.

The whole round: sign in, a roster with a bad row, its error, the fixed file,
apply, the slips (every code of the school in the PDF), a reissued code; then
the respondent's old code fails at the login and the new one resumes their
saved answers.
"""
import io
import zipfile

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from accounts.models import StaffMember
from respondents.models import Answer, Respondent
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

    sign_in(page, base, "lincoln")
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
        page.get_by_role("link", name="Code slips for the whole school (PDF: 3 slips, a cover sheet before each "
                                       "grade)").click()
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
    expect(page.get_by_role("heading", name="Issue a new code for s1?")).to_be_visible()
    page.get_by_role("button", name="Issue the new code").click()
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


def sign_in(page, base, username):
    page.goto(base + "/staff/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def test_a_district_analyst_reads_the_charts_exports_xlsx_watches_it_and_a_coordinator_cannot_reach_it(
        page, browser, live_server, client, monkeypatch):
    import os

    import openpyxl
    from django.conf import settings
    from django.utils import timezone

    if not (settings.BASE_DIR / "node_modules" / "chart.js").exists() and os.environ.get("CI") != "true":
        pytest.skip("Chart.js is not installed (make install runs npm ci)")

    from exports.models import ExportJob
    from exports.tasks import export_job_task
    from respondents.models import District
    from respondents.tests.factories import login, make_respondents, save_page

    survey = make_survey()
    lincoln = make_school("LIN", "Lincoln Middle")
    hayes = make_school("HAY", "Hayes High")
    adams = make_school("ADA", "Adams Elementary", ("D2", "District Two"))
    for school, colours in ((lincoln, ["red", "blue", ""]), (adams, ["red"])):
        people = make_respondents(survey, len(colours), school=school, grade="7")
        for person, colour in zip(people if isinstance(people, list) else [people], colours, strict=True):
            if colour:
                login(client, person)
                saved = save_page(client, 1, {"q-colour": colour, "q-pets": ["cat"]})
                assert saved.json()["saved"], saved.json()
                client.post("/logout/")
    make_respondents(survey, 1, school=hayes, grade="9")
    Respondent.objects.filter(answers__value="blue").update(status="completed", completed_at=timezone.now())
    make_staff(StaffMember.Role.ANALYST, districts=[District.objects.get(code="D1")], username="analyst")
    make_staff(StaffMember.Role.SCHOOL_COORDINATOR, schools=[adams], username="adams")
    # The worker: queued here, run below as Celery would, so the page shows the export waiting and then done.
    monkeypatch.setattr(export_job_task, "delay", lambda job_id: None)
    base = live_server.url

    sign_in(page, base, "analyst")
    page.get_by_role("link", name="Small survey").click()
    page.get_by_role("link", name="Completion by district, school and grade").click()
    # The analyst's schools are all in District One: the page opens on it.
    expect(page.get_by_role("heading", name="District One: completion")).to_be_visible()
    # Three charts drawn (Chart.js), each with its figures in a table beside it; other districts are not there.
    for name in ("rates", "hours", "stops"):
        expect(page.locator(f'figure[data-chart="{name}"] .chart-area')).to_be_visible()
    expect(page.locator("figure.chart.drawn")).to_have_count(3)
    expect(page.locator('figure[data-chart="rates"] table tbody tr')).to_have_count(2)
    stops = page.locator('figure[data-chart="stops"] tbody tr')
    expect(stops.nth(1).locator("th")).to_have_text("Page 2 — Second")
    expect(stops.nth(1).locator("td")).to_have_text("1")  # red's respondent sits on page 2
    expect(page.get_by_text("Adams Elementary")).to_have_count(0)
    page.get_by_role("link", name="Completion rate").click()  # sort by rate
    expect(page.locator("table.sortable th[aria-sort]")).to_have_attribute("aria-sort", "descending")

    page.get_by_role("link", name="Export the responses").click()
    page.get_by_label("Excel (XLSX)").check()
    page.get_by_role("button", name="Prepare the export").click()
    expect(page.get_by_text("Waiting to start")).to_be_visible()
    expect(page.locator("progress")).to_be_visible()
    job = ExportJob.objects.get()
    export_job_task(job.pk)  # the worker's run; the page's progress script notices and shows the download
    download_link = page.get_by_role("link", name="Download the export")
    expect(download_link).to_be_visible(timeout=10_000)
    with page.expect_download() as info:
        download_link.click()
    path = info.value.path()
    with zipfile.ZipFile(path) as bundle:
        assert sorted(bundle.namelist()) == ["small-codebook.xlsx", "small.xlsx"]
        sheet = openpyxl.load_workbook(io.BytesIO(bundle.read("small.xlsx")), read_only=True).active
        rows = list(sheet.iter_rows(values_only=True))
    header = list(rows[0])
    colours = sorted((row[header.index("roster_school_code")], row[header.index("colour")] or "") for row in rows[1:])
    assert colours == [("HAY", ""), ("LIN", ""), ("LIN", "blue"), ("LIN", "red")]  # Adams is another district

    # A school coordinator of the other district: no exports, and the analyst's export is not reachable.
    other = browser.new_context()
    coordinator = other.new_page()
    sign_in(coordinator, base, "adams")
    expect(coordinator.get_by_role("link", name="Export the responses")).to_have_count(0)
    for path in (f"/staff/surveys/{survey.slug}/exports/{job.pk}/download/",
                 f"/staff/surveys/{survey.slug}/exports/{job.pk}/", f"/staff/surveys/{survey.slug}/exports/"):
        response = coordinator.goto(base + path)
        assert response.status in (403, 404), (path, response.status)
    other.close()


def test_the_survey_office_loads_a_workbook_sees_its_problems_previews_it_as_a_teacher_in_spanish_and_publishes(
        page, live_server, tmp_path):
    from surveys.models import Survey
    from surveys.tests.helpers import CHOICES, row, workbook
    from surveys.tests.helpers import page as xls_page

    make_staff(StaffMember.Role.STATE_ADMIN, username="office")
    sign_in(page, live_server.url, "office")
    page.get_by_role("link", name="Load a survey (XLSForm or JSON)").click()

    rows = [*xls_page(row("select_one role", "role", "Who are you?", "¿Quién es?", required="yes")),
            *xls_page(row("text", "lesson", "Your best lesson?", "¿Su mejor clase?"), relevant="${role} = 'teacher'"),
            *xls_page(row("integer", "years", "Years here?", "¿Años aquí?", constraint=". >= 0 and . <= 40"))]
    broken = workbook(tmp_path / "broken.xlsx", [*rows[:2], row("geopoint", "x", "X", "X"), *rows[2:]], CHOICES)
    page.get_by_label("Survey (XLSForm .xlsx, or a .json survey document)").set_input_files(str(broken))
    page.get_by_role("button", name="Load").click()
    expect(page.get_by_role("alert")).to_contain_text("The survey has 1 problem: nothing was written")
    expect(page.get_by_role("alert")).to_contain_text(
        "survey sheet, row 4, column type: 'geopoint': not supported (location capture")

    good = workbook(tmp_path / "good.xlsx", rows, CHOICES)
    page.get_by_label("Survey (XLSForm .xlsx, or a .json survey document)").set_input_files(str(good))
    page.get_by_role("button", name="Load").click()
    expect(page.get_by_role("heading", name="Preview of “School climate” (version 1, draft)")).to_be_visible()
    expect(page.locator(".preview")).to_contain_text("Who are you?")
    expect(page.get_by_text("(not asked for these answers)")).to_have_count(1)

    page.get_by_label("Language").select_option("es")
    page.get_by_label("Answer to “Who are you?” (role)").select_option("teacher")
    page.get_by_role("button", name="Show").click()
    page.get_by_role("link", name="Page 2").click()
    expect(page.locator(".preview")).to_contain_text("¿Su mejor clase?")
    expect(page.locator(".preview")).to_contain_text("Página 2 de 3")
    expect(page.get_by_text("(not asked for these answers)")).to_have_count(0)

    page.get_by_role("button", name="Publish: open it to respondents").click()
    expect(page.get_by_role("heading", name="Publish “School climate”?")).to_be_visible()
    page.get_by_role("button", name="Publish: open it to respondents").click()
    expect(page.get_by_text("Published: respondents can take it.")).to_be_visible()
    assert Survey.objects.get(slug="climate_xls").status == "open"


# One form of each shape the XLSForm corpus holds (surveys/tests/xlsform_corpus.py): its preview's heading, its
# pages and its first question as loaded through the staff area.
SHAPES = {
    # No settings sheet: the file's name is its slug and title.
    "household_collect.xlsx": ("household_collect", 3, "Does the head of household agree to take part?"),
    "school_climate_enketo.xlsx": ("School Climate Survey 2025", 5, None),
    "clinic_visit_fr.xlsx": (None, None, None),
    "parent_survey_zh.xlsx": (None, None, None),
    "teacher_feedback_sw.xlsx": (None, None, None),
    "district_cascade.xlsx": ("School Census", 1, "Region"),
}


@pytest.mark.parametrize("name", SHAPES)
def test_the_survey_office_previews_a_form_of_each_shape_written_for_other_xlsform_tools(
        page, live_server, tmp_path, name):
    from surveys.models import Page, Question, Survey
    from surveys.tests.xlsform_corpus import write_form

    make_staff(StaffMember.Role.STATE_ADMIN, username="office")
    sign_in(page, live_server.url, "office")
    page.get_by_role("link", name="Load a survey (XLSForm or JSON)").click()
    page.get_by_label("Survey (XLSForm .xlsx, or a .json survey document)").set_input_files(str(write_form(tmp_path,
                                                                                                          name)))
    page.get_by_role("button", name="Load").click()
    survey = Survey.objects.get()
    expect(page.get_by_role("heading", name=f"Preview of “{survey.title}” (version 1, draft)")).to_be_visible()
    title, pages, first = SHAPES[name]
    assert title is None or survey.title == title
    count = Page.objects.filter(survey=survey).count()
    assert pages is None or count == pages
    expect(page.locator(".preview-pages li")).to_have_count(count)
    first = first or Question.objects.filter(page__survey=survey, page__position=1).exclude(
        kind__in=["calculate"]).order_by("position").first().prompt
    expect(page.locator(".preview")).to_contain_text(first)
    if survey.load_warnings:
        expect(page.get_by_text("What loading the form noted")).to_be_visible()
        expect(page.locator(".load-warnings li")).to_have_count(len(survey.load_warnings))
    # Every page of it shows in the preview (the last, too: its questions or its notes).
    page.get_by_role("link", name=f"Page {count}", exact=True).click()
    expect(page.locator(".preview .survey-page")).to_be_visible()
