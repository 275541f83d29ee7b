"""The results page as staff use it (headless Chromium, on a desktop and a 390-px phone): places picked from a
search as they type, a chart beside its table with a suppressed count marked and left out of the chart, the
question index across pages, a grid as one stacked 100% bar chart, and what a selection wrote."""
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
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def answers(settings):
    """Lincoln Middle (D1) grade 7: six students (red; cat, one dog too; safe agree 4, disagree 2; happy 3 and 3;
    nicknames); Lincoln Heights (D1), nobody; Adams High (D2) grade 9: four students (blue, fish; no grid)."""
    if not (settings.BASE_DIR / "node_modules" / "chart.js").exists() and os.environ.get("CI") != "true":
        pytest.skip("Chart.js is not installed (make install runs npm ci)")
    settings.RESULTS_SUPPRESSION_THRESHOLD = 3
    survey = make_survey()
    lincoln = make_school("LIN", "Lincoln Middle", ("D1", "District One"))
    make_school("LIH", "Lincoln Heights", ("D1", "District One"))
    adams = make_school("ADA", "Adams High", ("D2", "District Two"))
    client = Client()
    nicknames = ["Ace", "<b>Zed</b>", "Ace", "Bo", "", ""]
    for n, person in enumerate(make_respondents(survey, 6, school=lincoln, grade="7", role="student")):
        answered(client, person, (1, {"q-colour": "red", "q-pets": ["cat", "dog"] if n == 0 else ["cat"],
                                      "q-nickname": nicknames[n]}),
                 (2, {"q-safe": "2" if n < 4 else "1", "q-happy": "2" if n < 3 else "1"}))
    for person in make_respondents(survey, 4, school=adams, grade="9", role="student"):
        answered(client, person, (1, {"q-colour": "blue", "q-pets": ["fish"]}))
    make_staff(StaffMember.Role.ANALYST, username="analyst")
    return survey


def sign_in(page, base):
    page.goto(base + "/staff/")
    page.get_by_label("User name").fill("analyst")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def test_an_analyst_picks_a_district_from_a_search_and_sees_a_chart_and_its_table_with_a_suppressed_cell(
        page, live_server, answers):
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/staff/surveys/{answers.slug}/")
    page.get_by_role("link", name="Results by question").click()
    page.get_by_role("combobox", name="District").press_sequentially("one")
    page.get_by_role("option", name="District One (D1)").click()
    expect(page.get_by_role("combobox", name="District")).to_have_value("District One (D1)")
    page.get_by_role("button", name="Show").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Small survey: results of District One")
    expect(page.get_by_role("combobox", name="District")).to_have_value("District One (D1)")
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
    # Nobody in District One answered the age: said so, never "None%".
    expect(page.locator('figure[data-question="age"]')).to_contain_text("No answers in this selection.")
    expect(page.get_by_text("None%")).to_have_count(0)


def test_a_school_chosen_with_the_keyboard_then_a_grid_reached_from_the_index_and_what_they_wrote(
        page, live_server, answers):
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/staff/surveys/{answers.slug}/results/")
    school = page.get_by_role("combobox", name="School")
    school.press_sequentially("linc")
    matches = page.get_by_role("listbox", name="School: matches").get_by_role("option")
    expect(matches).to_have_count(2)
    expect(matches.nth(0)).to_contain_text("Lincoln Heights (LIH)")
    expect(matches.nth(0)).to_contain_text("District One (D1)")
    school.press("ArrowDown")
    school.press("ArrowDown")
    expect(matches.nth(1)).to_have_attribute("aria-selected", "true")
    expect(school).to_have_attribute("aria-activedescendant", "id_school-matches-1")
    school.press("Enter")  # chooses; does not send the form
    expect(school).to_have_value("Lincoln Middle (LIN)")
    expect(matches).to_have_count(0)
    assert "school=" not in page.url
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Small survey: results of Lincoln Middle")

    page.get_by_text("All questions, page by page").click()
    page.get_by_role("link", name="safe Agree? — I feel safe.").click()
    assert page.url.endswith("?school=LIN&page=2#question-safe")
    grid = page.locator('figure[data-grid="school"]')
    expect(grid).to_have_class("chart result grid drawn")
    expect(grid.locator("canvas")).to_have_count(1)  # one chart for the grid's rows
    drawn = grid.locator("canvas").evaluate("""canvas => {
        const chart = Chart.getChart(canvas);
        return {labels: chart.data.labels, stacked: chart.options.scales.x.stacked, max: chart.options.scales.x.max,
                series: chart.data.datasets.map(d => [d.label, d.data])};
    }""")
    # Each label as lines, broken to fit (Chart.js wraps none).
    assert drawn == {"labels": [["I feel safe.", "Disagree (suppressed), Agree (suppressed)"], ["I am happy."]],
                     "stacked": True, "max": 100,
                     "series": [["Disagree", [None, 50.0]], ["Agree", [None, 50.0]]]}
    happy = grid.locator("#question-happy")
    expect(happy.locator("td").nth(0)).to_have_text("3 (50.0%)")
    expect(grid.locator("#question-safe td.suppressed")).to_have_count(2)

    page.get_by_text("All questions, page by page").click()
    page.get_by_role("link", name="nickname Nickname?").click()
    page.get_by_role("link", name="Read what they wrote").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("What they wrote: Nickname?")
    answers_listed = page.locator(".text-answers li")
    expect(answers_listed).to_have_count(3)
    expect(answers_listed.nth(0)).to_have_text("<b>Zed</b>")  # as it was typed, never as markup
    expect(answers_listed.nth(1)).to_contain_text("Ace")
    expect(answers_listed.nth(1)).to_contain_text("Written by 2 people")


def test_on_a_phone_a_school_is_picked_by_a_tap_and_the_index_and_a_grid_fit_the_screen(browser, live_server,
                                                                                        answers):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/staff/surveys/{answers.slug}/results/")
    page.get_by_role("combobox", name="School").press_sequentially("middle")
    option = page.get_by_role("option", name="Lincoln Middle (LIN)")
    box = option.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] and box["height"] >= 40
    option.tap()
    expect(page.get_by_role("combobox", name="School")).to_have_value("Lincoln Middle (LIN)")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Small survey: results of Lincoln Middle")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    page.get_by_text("All questions, page by page").click()
    links = page.locator(".question-index a")
    expect(links).to_have_count(3 + 9)  # three pages, nine questions
    for n in range(links.count()):
        box = links.nth(n).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], links.nth(n).text_content()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.get_by_role("link", name="happy Agree? — I am happy.").click()
    grid = page.locator('figure[data-grid="school"]')
    expect(grid).to_have_class("chart result grid drawn")
    assert grid.locator("canvas").bounding_box()["width"] <= PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    context.close()


def test_the_results_pages_have_no_serious_accessibility_violation(page, live_server, answers):
    from taking.tests.test_accessibility import AXE, serious_violations

    if not AXE.exists():
        pytest.skip("axe-core is not installed: make install (npm ci)")
    source = AXE.read_text()
    sign_in(page, live_server.url)
    base = f"{live_server.url}/staff/surveys/{answers.slug}"
    problems = []
    page.goto(base + "/results/")
    page.get_by_role("combobox", name="School").press_sequentially("lin")
    expect(page.get_by_role("listbox", name="School: matches").get_by_role("option")).to_have_count(2)
    page.get_by_role("combobox", name="School").press("ArrowDown")
    problems += serious_violations(page, source, "results, a picker open")
    for where, path in (("a grid", "/results/?page=2"), ("several schools", "/results/?school=linc"),
                        ("text answers", "/results/texts/nickname/?school=LIN"), ("exports", "/exports/")):
        page.goto(base + path)
        if "page=2" in path:
            page.get_by_text("All questions, page by page").click()  # the index open too
        problems += serious_violations(page, source, where)
    assert not problems, "\n".join(problems)
