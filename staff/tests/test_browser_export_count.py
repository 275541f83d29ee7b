"""Counting an export's people before preparing it (headless Chromium, a desktop and a 390-px phone): the count
said for the filter chosen, marked out of date when the filter changes, and the export prepared as counted."""
import pytest
from playwright.sync_api import expect

from accounts.models import StaffMember
from respondents.models import District, Respondent
from respondents.tests.factories import make_respondents, make_school, make_staff
from surveys.tests.factories import make_survey

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a long staff passphrase"


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, {"width": 390, "height": 844}],
                         ids=["desktop", "phone"])
def test_an_analyst_counts_the_people_of_a_filter_sees_the_count_go_stale_and_prepares_the_export(
        browser, live_server, monkeypatch, viewport):
    from exports.models import ExportJob
    from exports.tasks import export_job_task

    survey = make_survey()
    lincoln, hayes = make_school("LIN", "Lincoln Middle"), make_school("HAY", "Hayes High")
    make_respondents(survey, 2, school=make_school("ADA", "Adams Elementary", ("D2", "District Two")))
    busy, *done = make_respondents(survey, 3, school=lincoln) + make_respondents(survey, 2, school=hayes)
    make_respondents(survey, 1, school=hayes)  # not started
    Respondent.objects.filter(pk__in=[p.pk for p in done]).update(status="completed")
    Respondent.objects.filter(pk=busy.pk).update(status="in_progress")
    make_staff(StaffMember.Role.ANALYST, districts=[District.objects.get(code="D1")], username="analyst")
    monkeypatch.setattr(export_job_task, "delay", lambda job_id: None)
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(live_server.url + "/staff/login/")
    page.get_by_label("User name").fill("analyst")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"{live_server.url}/staff/surveys/{survey.slug}/exports/")

    page.get_by_role("button", name="Count the people").click()
    count = page.locator("#export-count")
    expect(count).to_have_text("This export will hold 6 people (every respondent).")  # their district's only
    page.get_by_label("Completed", exact=True).check()
    page.get_by_role("button", name="Count the people").click()
    expect(count).to_have_text("This export will hold 4 people (status completed).")
    expect(count).to_be_in_viewport()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert not ExportJob.objects.exists()

    page.get_by_label("In progress", exact=True).check()
    expect(count).to_contain_text("The filter has changed since the count")
    page.get_by_label("Excel (XLSX)").check()  # not the filter
    page.get_by_role("button", name="Count the people").click()
    expect(count).to_have_text("This export will hold 5 people (status completed or in progress).")
    page.get_by_label("CSV", exact=True).check()
    expect(count).to_have_text("This export will hold 5 people (status completed or in progress).")
    page.get_by_role("button", name="Prepare the export").click()
    expect(page.get_by_text("Waiting to start")).to_be_visible()
    job = ExportJob.objects.get()
    assert job.rows_total == 5 and job.export_filter.describe() == "status completed or in progress"
    context.close()
