"""A filtered export as an analyst asks for it (headless Chromium): a school of another district refused on the
form, then the completed of their district in a date range, the filter on the list, and a file of only those
people."""
import csv
import io
import zipfile
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from accounts.models import StaffMember
from respondents.models import District, Respondent
from respondents.tests.factories import make_respondents, make_school, make_staff
from surveys.tests.factories import make_survey

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a long staff passphrase"


def test_an_analyst_exports_the_completed_of_their_district_in_a_date_range_and_gets_only_them(
        page, live_server, settings, monkeypatch):
    from exports.models import ExportJob
    from exports.tasks import export_job_task

    settings.TIME_ZONE = "America/Chicago"
    chicago = ZoneInfo("America/Chicago")
    survey = make_survey()
    lincoln, hayes = make_school("LIN", "Lincoln Middle"), make_school("HAY", "Hayes High")
    adams = make_school("ADA", "Adams Elementary", ("D2", "District Two"))
    # (external id, school, completed at (local time), or a status without one)
    for external_id, school, done in (
            ("lin-first-day", lincoln, datetime(2026, 11, 2, 0, 5)),
            ("lin-last-day-late", lincoln, datetime(2026, 11, 6, 23, 30)),
            ("lin-too-late", lincoln, datetime(2026, 11, 7, 0, 10)),
            ("lin-too-early", lincoln, datetime(2026, 11, 1, 23, 50)),
            ("lin-busy", lincoln, "in_progress"),
            ("hay-mid-week", hayes, datetime(2026, 11, 4, 9, 0)),
            ("ada-other-district", adams, datetime(2026, 11, 4, 9, 0))):
        person = make_respondents(survey, 1, school=school, external_id=external_id)
        if isinstance(done, datetime):
            Respondent.objects.filter(pk=person.pk).update(status="completed",
                                                           completed_at=done.replace(tzinfo=chicago))
        else:
            Respondent.objects.filter(pk=person.pk).update(status=done)
    make_staff(StaffMember.Role.ANALYST, districts=[District.objects.get(code="D1")], username="analyst")
    monkeypatch.setattr(export_job_task, "delay", lambda job_id: None)  # run below, as the worker would
    base = live_server.url

    page.goto(base + "/staff/login/")
    page.get_by_label("User name").fill("analyst")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("link", name="Small survey").click()
    page.get_by_role("link", name="Export the responses").click()

    # A school of another district: refused, said on the form, nothing queued.
    page.get_by_label("Completed", exact=True).check()
    page.get_by_label("Districts", exact=True).fill("D1")
    page.get_by_label("Schools", exact=True).fill("ADA")
    page.get_by_label("Completed from").fill("2026-11-06")
    page.get_by_label("Completed to").fill("2026-11-02")
    page.get_by_role("button", name="Prepare the export").click()
    summary = page.get_by_role("alert")
    expect(summary).to_contain_text("School ADA is outside your scope")
    expect(summary).to_contain_text("The completion range ends (2026-11-02) before it starts (2026-11-06).")
    assert not ExportJob.objects.exists()

    page.get_by_label("Schools", exact=True).fill("")
    # The district picked by its name from the search as one types: its code goes in the box.
    districts = page.get_by_role("combobox", name="Districts")
    districts.fill("")
    districts.press_sequentially("dist")
    page.get_by_role("listbox", name="Districts: matches").get_by_role("option", name="District One (D1)").click()
    expect(districts).to_have_value("D1, ")
    expect(page.get_by_role("listbox", name="Districts: matches").get_by_role("option")).to_have_count(0)
    page.get_by_label("Completed from").fill("2026-11-02")
    page.get_by_label("Completed to").fill("2026-11-06")
    expect(page.get_by_label("Completed", exact=True)).to_be_checked()  # kept from the first try
    page.get_by_label("CSV", exact=True).check()
    page.get_by_role("button", name="Prepare the export").click()
    expect(page.get_by_text("Waiting to start")).to_be_visible()
    words = ("Status completed; district D1; completed from 2026-11-02 to 2026-11-06, both days included "
             "(America/Chicago)")
    expect(page.locator(".export-filter")).to_have_text(words)
    export_job_task(ExportJob.objects.get().pk)
    download = page.get_by_role("link", name="Download the export")
    expect(download).to_be_visible(timeout=10_000)

    page.get_by_role("navigation", name="Breadcrumb").get_by_role("link", name="Exports").click()
    row = page.get_by_role("row").filter(has_text="Ready to download")
    expect(row.locator(".export-filter")).to_have_text(words)
    expect(row).to_contain_text("3")
    row.get_by_role("link").click()
    with page.expect_download() as info:
        page.get_by_role("link", name="Download the export").click()
    with zipfile.ZipFile(info.value.path()) as bundle:
        assert sorted(bundle.namelist()) == ["small-codebook.xlsx", "small.csv"]
        rows = list(csv.DictReader(io.StringIO(bundle.read("small.csv").decode())))
    assert sorted(r["roster_external_id"] for r in rows) == ["hay-mid-week", "lin-first-day", "lin-last-day-late"]


def test_on_a_phone_an_analyst_picks_two_schools_by_name_with_taps_and_exports_them(browser, live_server,
                                                                                   monkeypatch):
    from exports.models import ExportJob
    from exports.tasks import export_job_task

    survey = make_survey()
    for code, name in (("LIN", "Lincoln Middle"), ("LIH", "Lincoln Heights"), ("HAY", "Hayes High")):
        make_school(code, name)
    make_staff(StaffMember.Role.ANALYST, districts=[District.objects.get(code="D1")], username="analyst")
    monkeypatch.setattr(export_job_task, "delay", lambda job_id: None)
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(live_server.url + "/staff/login/")
    page.get_by_label("User name").fill("analyst")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"{live_server.url}/staff/surveys/{survey.slug}/exports/")

    schools = page.get_by_role("combobox", name="Schools")
    matches = page.get_by_role("listbox", name="Schools: matches").get_by_role("option")
    schools.press_sequentially("lincoln")
    expect(matches).to_have_count(2)
    box = matches.nth(1).bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["height"] >= 40
    matches.filter(has_text="Lincoln Middle (LIN)").tap()
    schools.press_sequentially("hayes")
    matches.filter(has_text="Hayes High (HAY)").tap()
    expect(schools).to_have_value("LIN, HAY, ")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.get_by_role("button", name="Prepare the export").click()
    expect(page.get_by_text("Waiting to start")).to_be_visible()
    expect(page.locator(".export-filter")).to_have_text("Schools HAY, LIN")
    assert ExportJob.objects.get().export_filter.schools == ("HAY", "LIN")
    context.close()
