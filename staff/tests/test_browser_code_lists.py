"""Lists of codes as a state administrator types and reads them (headless Chromium, a desktop and a 390-px phone):
commas, spaces and new lines alike on the account form, the codes shown back with commas."""
import pytest
from playwright.sync_api import expect

from accounts.models import StaffMember
from respondents.tests.factories import make_school, make_staff
from staff.tests.test_browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, {"width": 390, "height": 844}],
                         ids=["desktop", "phone"])
def test_an_administrator_types_school_codes_any_way_and_reads_them_back_with_commas(browser, live_server, viewport):
    for code, name in (("LIN", "Lincoln Middle"), ("ADA", "Adams Elementary"), ("JEF", "Jefferson High")):
        make_school(code, name)
    make_staff(StaffMember.Role.STATE_ADMIN, username="office")
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    sign_in(page, live_server.url, "office")
    page.goto(live_server.url + "/staff/accounts/new/")
    expect(page.get_by_text("the schools' codes, separated by commas or spaces")).to_be_visible()
    page.get_by_label("User name").fill("three-schools")
    page.get_by_label("Email").fill("three@example.org")
    page.get_by_label("Role").select_option(label="School coordinator")
    page.get_by_label("School codes").fill("LIN ADA,\nJEF, NOPE ZZZ")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("Not in the school directory: NOPE, ZZZ.")
    page.get_by_label("School codes").fill("LIN ADA,\nJEF")
    page.get_by_role("button", name="Save").click()
    row = page.locator("table.data tbody tr").filter(has_text="three-schools")
    expect(row.locator("td").nth(5)).to_have_text("ADA, JEF, LIN")
    row.get_by_role("link", name="three-schools").click()
    expect(page.get_by_label("School codes")).to_have_value("ADA, JEF, LIN")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    context.close()
