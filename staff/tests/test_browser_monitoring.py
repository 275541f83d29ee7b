"""The drop-off chart as Chart.js draws it (headless Chromium): the definition's page names, a conditional page's
bar lighter and its condition in the tooltip."""
import pytest
from playwright.sync_api import expect

from accounts.models import StaffMember
from respondents.models import Respondent
from respondents.tests.factories import make_respondents, make_school, make_staff
from surveys.tests.factories import make_demo_survey

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a long staff passphrase"


def test_the_drop_off_chart_labels_bars_with_page_names_and_gives_a_conditional_page_s_condition(
        page, live_server):
    import os

    from django.conf import settings

    if not (settings.BASE_DIR / "node_modules" / "chart.js").exists() and os.environ.get("CI") != "true":
        pytest.skip("Chart.js is not installed (make install runs npm ci)")
    survey = make_demo_survey()
    lincoln = make_school("LIN", "Lincoln Middle")
    student = make_respondents(survey, 1, school=lincoln, grade="7", role="student")
    teacher = make_respondents(survey, 1, school=lincoln, role="teacher")
    Respondent.objects.filter(pk=student.pk).update(status="in_progress", current_page=6)
    Respondent.objects.filter(pk=teacher.pk).update(status="in_progress", current_page=5)
    make_staff(StaffMember.Role.SCHOOL_COORDINATOR, schools=[lincoln], username="lin")

    page.goto(live_server.url + "/staff/")
    page.get_by_label("User name").fill("lin")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"{live_server.url}/staff/surveys/{survey.slug}/monitoring/?school=LIN")
    figure = page.locator('figure[data-chart="stops"]')
    expect(figure).to_have_class("chart drawn")
    drawn = figure.locator("canvas").evaluate("""canvas => {
        const chart = Chart.getChart(canvas);
        const footer = chart.options.plugins.tooltip.callbacks.footer;
        return {labels: chart.data.labels.slice(4), colours: chart.data.datasets[0].backgroundColor.slice(4),
                footers: [footer([{dataIndex: 4}]), footer([{dataIndex: 5}])]};
    }""")
    assert drawn["labels"] == ["Page 5 — Your teaching (conditional)", "Page 6 — Classmates"]
    assert drawn["colours"][0] != drawn["colours"][1]
    assert drawn["footers"] == ["Shown only if you chose “Teacher” for “Which best describes you?”", ""]


DESKTOP, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}


def signed_in_page(browser, live_server, username, viewport):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(live_server.url + "/staff/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(live_server.url + "/staff/")
    return context, page


def fits_the_screen(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_school_coordinator_s_completion_opens_on_their_school_with_its_grades_in_grade_order(
        browser, live_server, viewport):
    from surveys.tests.factories import make_survey

    survey = make_survey()
    lincoln = make_school("LIN", "Lincoln Middle")
    for grade in ("10", "9", "K", "1", ""):
        make_respondents(survey, 1, school=lincoln, grade=grade, role="teacher" if not grade else "student")
    make_staff(StaffMember.Role.SCHOOL_COORDINATOR, schools=[lincoln], username="lin")
    context, page = signed_in_page(browser, live_server, "lin", viewport)
    page.get_by_role("link", name="Small survey").click()
    page.get_by_role("link", name="Completion by district, school and grade").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Lincoln Middle: completion")
    groups = page.locator("table.completion tbody th")
    expect(groups).to_have_text(["grade K · student", "grade 1 · student", "grade 9 · student",
                                 "grade 10 · student", "teacher"])
    expect(page.get_by_role("link", name="District One")).to_have_count(0)  # nothing to click through
    assert fits_the_screen(page)
    # The school's page lists its grades' slips and not-finished lists in the same order.
    page.get_by_role("link", name="People of Lincoln Middle").click()
    expect(page.locator("ul.downloads").last.locator("li").filter(has_text="Grade")).to_have_text(
        [f"Grade {grade}: PDF · CSV" for grade in ("K", "1", "9", "10", "(none)")])
    assert fits_the_screen(page)
    context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_coordinator_of_several_schools_opens_on_them_side_by_side_and_comes_back_to_them(
        browser, live_server, viewport):
    from surveys.tests.factories import make_survey

    survey = make_survey()
    lincoln = make_school("LIN", "Lincoln Middle")
    adams = make_school("ADA", "Adams Elementary", ("D2", "District Two"))
    for school in (lincoln, adams):
        make_respondents(survey, 2, school=school, grade="7")
    make_staff(StaffMember.Role.SCHOOL_COORDINATOR, schools=[lincoln, adams], username="two")
    context, page = signed_in_page(browser, live_server, "two", viewport)
    page.goto(f"{live_server.url}/staff/surveys/{survey.slug}/monitoring/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Your schools: completion")
    expect(page.locator("table.completion tbody th a")).to_have_text(["Adams Elementary", "Lincoln Middle"])
    assert fits_the_screen(page)
    page.get_by_role("link", name="Lincoln Middle").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Lincoln Middle: completion")
    breadcrumbs = page.get_by_role("navigation", name="Breadcrumb")
    expect(breadcrumbs.get_by_role("link", name="District One")).to_have_count(0)
    breadcrumbs.get_by_role("link", name="Completion").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your schools: completion")
    context.close()
