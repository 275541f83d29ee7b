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
