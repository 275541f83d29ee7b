"""Finding people across a scope, as each role sees it in headless Chromium: a district coordinator finds people by
name across their schools, ticks two, withdraws them after the confirm page and restores one; an analyst sees who
without codes, names or actions."""
import pytest
from playwright.sync_api import expect

from accounts.models import AuditEntry, StaffMember
from respondents.models import Respondent
from respondents.tests.factories import make_respondents, make_school, make_staff
from staff.tests.test_browser import sign_in
from surveys.tests.factories import make_survey

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def district_of_three():
    """Lincoln and Jefferson (district D1), Adams (D2), a Ruiz in each and one other at Lincoln."""
    survey = make_survey()
    lincoln, jefferson = make_school("LIN", "Lincoln Middle"), make_school("JEF", "Jefferson High")
    adams = make_school("ADA", "Adams Elementary", ("D2", "District Two"))
    for school, external_id, name in [(lincoln, "s-ana", "Ana Ruiz"), (lincoln, "s-ben", "Ben Ortiz"),
                                      (jefferson, "s-carla", "Carla Ruiz"), (adams, "s-eva", "Eva Ruiz")]:
        make_respondents(survey, school=school, external_id=external_id, display_name=name, grade="7")
    make_staff(StaffMember.Role.DISTRICT_COORDINATOR, districts=[lincoln.district], username="d1")
    make_staff(StaffMember.Role.ANALYST, username="analyst")
    return survey


def test_a_district_coordinator_finds_by_name_across_schools_withdraws_two_after_confirming_and_restores_one(
        page, live_server, district_of_three):
    sign_in(page, live_server.url, "d1")
    page.get_by_role("link", name="Small survey").click()
    page.get_by_role("link", name="Find people").click()
    page.get_by_label("Look for").fill("ruiz")
    page.get_by_label("In", exact=True).select_option(label="Name on the slip (accents and case aside)")
    page.get_by_role("button", name="Find").click()
    expect(page.locator("#people-found")).to_have_text("2 people found.")
    rows = page.locator("table.data tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Lincoln Middle")  # by school, in the directory's order
    expect(rows.nth(1)).to_contain_text("Carla Ruiz")
    expect(page.get_by_text("Eva Ruiz")).to_have_count(0)

    page.get_by_label("Choose s-ana").check()
    page.get_by_label("Choose s-carla").check()
    page.get_by_role("button", name="Withdraw…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Withdraw 2 people?")
    expect(page.locator("#confirm-people tbody tr")).to_have_count(2)
    assert not Respondent.objects.filter(withdrawn_at__isnull=False).exists()
    page.get_by_role("button", name="Withdraw 2 people").click()
    expect(page.get_by_text("2 withdrawn: their codes no longer log in.")).to_be_visible()
    expect(page.locator("#people-found")).to_have_text("2 people found.")  # back on the same search
    expect(page.locator("table.data tbody tr").filter(has_text="Withdrawn")).to_have_count(2)

    page.get_by_label("Choose s-ana").check()
    page.get_by_role("button", name="Restore…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Restore 1 person?")
    page.get_by_role("button", name="Restore 1 person").click()
    expect(page.get_by_text("1 restored: their codes log in again.")).to_be_visible()
    assert list(Respondent.objects.filter(withdrawn_at__isnull=False).values_list("external_id", flat=True)) == [
        "s-carla"]
    assert AuditEntry.objects.filter(action="withdrawn").count() == 2
    assert AuditEntry.objects.filter(action="restored").count() == 1


def test_an_analyst_sees_the_people_found_without_codes_names_or_actions(page, live_server, district_of_three):
    sign_in(page, live_server.url, "analyst")
    page.goto(f"{live_server.url}/staff/surveys/{district_of_three.slug}/people/")
    expect(page.locator("#people-found")).to_have_text("4 people found.")
    expect(page.get_by_role("cell", name="Adams Elementary (ADA)")).to_be_visible()
    expect(page.get_by_role("columnheader", name="Access code")).to_have_count(0)
    expect(page.get_by_role("columnheader", name="Name on the slip")).to_have_count(0)
    expect(page.get_by_text("Ruiz")).to_have_count(0)
    expect(page.get_by_role("checkbox")).to_have_count(0)
    expect(page.get_by_role("button", name="Withdraw…")).to_have_count(0)
    expect(page.locator("#id_by option")).to_have_text(["External id (starts with)",
                                                        "School (code, or part of its name)"])
    for person in Respondent.objects.all():
        expect(page.get_by_text(person.formatted_access_code)).to_have_count(0)
