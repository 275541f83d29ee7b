"""The results page as an analyst sees it (headless Chromium): filtered by a district, a chart beside its table,
a suppressed count marked in the table and left out of the chart."""
import os

import pytest
from django.test import Client
from playwright.sync_api import expect

from accounts.models import StaffMember
from respondents.tests.factories import make_respondents, make_school, make_staff
from results.tests.helpers import answered
from surveys.tests.factories import make_survey

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a long staff passphrase"


def test_an_analyst_filters_by_a_district_and_sees_a_chart_and_its_table_with_a_suppressed_cell(
        page, live_server, settings):
    if not (settings.BASE_DIR / "node_modules" / "chart.js").exists() and os.environ.get("CI") != "true":
        pytest.skip("Chart.js is not installed (make install runs npm ci)")
    settings.RESULTS_SUPPRESSION_THRESHOLD = 3
    survey = make_survey()
    lincoln = make_school("LIN", "Lincoln Middle", ("D1", "District One"))
    adams = make_school("ADA", "Adams High", ("D2", "District Two"))
    client = Client()
    for n, person in enumerate(make_respondents(survey, 6, school=lincoln, grade="7", role="student")):
        answered(client, person, (1, {"q-colour": "red", "q-pets": ["cat", "dog"] if n == 0 else ["cat"]}))
    for person in make_respondents(survey, 4, school=adams, grade="9", role="student"):
        answered(client, person, (1, {"q-colour": "blue", "q-pets": ["fish"]}))
    make_staff(StaffMember.Role.ANALYST, username="analyst")

    page.goto(live_server.url + "/staff/")
    page.get_by_label("User name").fill("analyst")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"{live_server.url}/staff/surveys/{survey.slug}/")
    page.get_by_role("link", name="Results by question").click()
    page.get_by_label("District").select_option(label="District One")
    page.get_by_role("button", name="Show").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Small survey: results of District One")
    pets = page.locator('figure[data-question="pets"]')
    expect(pets).to_have_class("chart result drawn")
    rows = pets.locator("tbody tr")
    expect(rows.nth(0)).to_contain_text("Cat")
    expect(rows.nth(0).locator("td").nth(0)).to_have_text("6")
    expect(rows.nth(1)).to_contain_text("Dog")
    expect(rows.nth(1).locator("td.suppressed").first).to_have_text("—")
    expect(page.locator("#suppression-legend")).to_contain_text("fewer than 3 people is not shown")
    drawn = pets.locator("canvas").evaluate("""canvas => {
        const chart = Chart.getChart(canvas);
        return {labels: chart.data.labels, values: chart.data.datasets[0].data};
    }""")
    assert drawn == {"labels": ["Cat", "Dog (suppressed)", "Fish"], "values": [6, None, 0]}
