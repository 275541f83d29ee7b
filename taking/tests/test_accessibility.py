"""Every respondent page of the demo survey, in English and Spanish, through axe-core: no serious or critical
violation. axe-core comes from npm (package-lock.json); Debian's Chromium runs it through Playwright."""
import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from respondents.tests.factories import make_respondents
from surveys.tests.factories import make_demo_survey
from taking.tests.helpers import answer_page, expect_page, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="module")
def axe_source():
    if not AXE.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{AXE} is missing: make install runs npm ci")
        pytest.skip("axe-core is not installed: make install (npm ci)")
    return AXE.read_text()


def serious_violations(page, axe_source, where):
    """Run axe-core on the page as it is now; return its serious and critical violations, described."""
    # Through the DevTools protocol, as a tester's console would: the page's CSP allows no inline script.
    page.evaluate(axe_source)
    result = page.evaluate("""() => axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(
        v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 5)})))""")
    return [f"{where}: {v['id']} ({v['impact']}): {v['help']} at {v['nodes']}" for v in result
            if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("language", ["en", "es"])
def test_every_respondent_page_of_the_demo_has_no_serious_accessibility_violation(page, live_server, axe_source,
                                                                                   language):
    # A teacher's answers, so that every page applies.
    respondent = make_respondents(make_demo_survey(), language=language)
    problems = []
    page.goto(live_server.url + "/")
    problems += serious_violations(page, axe_source, "login")
    log_in(page, live_server.url, respondent)
    expect(page.locator("html")).to_have_attribute("lang", language)
    page.locator('input[name="q-role"][value="teacher"]').check()
    for number in range(1, 14):
        expect_page(page, number)
        problems += serious_violations(page, axe_source, f"page {number}")
        answer_page(page, 1 if number == 1 else number)
        if number == 1:
            # A bad answer: the page with its error summary and marked fields.
            page.locator("#input-q-years_at_school").fill("200")
            page.locator("button[name=nav][value=next]").click()
            expect(page.locator(".error-summary")).to_be_visible()
            problems += serious_violations(page, axe_source, "page 1 with errors")
            page.locator("#input-q-years_at_school").fill("3")
        if number == 5:
            page.locator("#input-q-teach_years").fill("30")
        button = "finish" if number == 13 else "next"
        page.locator(f"button[name=nav][value={button}]").click()
    page.wait_for_url(re.compile(r"/take/complete/$"))
    problems += serious_violations(page, axe_source, "complete")
    assert not problems, "\n".join(problems)


def test_each_radio_of_a_grid_is_named_by_its_row_and_its_column(page, live_server):
    survey = make_demo_survey()
    log_in(page, live_server.url, make_respondents(survey))
    page.goto(live_server.url + "/take/page/2/")
    radio = page.get_by_role("radio", name="I feel safe in my classes. Strongly agree", exact=True)
    expect(radio).to_have_count(1)
    radio.check()
    expect(page.get_by_role("radio", name="I feel safe in my classes. Disagree", exact=True)).not_to_be_checked()
