"""Finding people across a scope, as each role sees it in headless Chromium: a district coordinator finds people by
name across their schools, ticks two, withdraws them after the confirm page and restores one; an analyst sees who
without codes, names or actions. A coordinator at a desk and on a phone (390 px) finds a name whatever its accents
and a code by its first characters in one box, gives new codes (the confirm page says who is left out and why),
prints the same people's slips in one click and is told when the PDF is downloaded; a big choice's slips are a job
whose page says when it is done; a school's slips say what the PDF holds."""
import io

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from accounts.models import AuditEntry, StaffMember
from accounts.scopes import COMMAND_LINE
from respondents.models import Respondent
from respondents.tests.factories import make_respondents, make_school, make_staff
from rosters.services import respondent_withdraw
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


SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture
def garcias(district_of_three):
    """Three García of the district written three ways (one at Jefferson), a fourth withdrawn; one at Adams."""
    survey = district_of_three
    lincoln, jefferson, adams = (Respondent.objects.filter(school__code=code).first().school
                                 for code in ("LIN", "JEF", "ADA"))
    for school, external_id, name, grade in [(lincoln, "g-maria", "María García", "7"),
                                             (lincoln, "g-jose", "JOSÉ GARCÍA", "8"),
                                             (jefferson, "g-ana", "ana garcía", "7"),
                                             (lincoln, "g-luis", "Luis Garcia", "7"),
                                             (adams, "g-eva", "Eva García", "7")]:
        make_respondents(survey, school=school, external_id=external_id, display_name=name, grade=grade)
    respondent_withdraw(scope=COMMAND_LINE, survey=survey,
                        respondent_ids=[Respondent.objects.get(external_id="g-luis").pk])
    return survey


def no_sideways_scroll(page):
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0, page.url


def pdf_pages(download):
    with open(download.path(), "rb") as pdf:
        return [page.extract_text() for page in PdfReader(io.BytesIO(pdf.read())).pages]


@pytest.mark.parametrize("size", SIZES)
def test_a_coordinator_finds_garcia_in_one_box_gives_new_codes_and_prints_the_same_peoples_slips_in_one_click(
        browser, live_server, garcias, size):
    context = browser.new_context(viewport=SIZES[size], accept_downloads=True)
    page = context.new_page()
    sign_in(page, live_server.url, "d1")
    page.goto(f"{live_server.url}/staff/surveys/{garcias.slug}/people/")
    expect(page.get_by_label("In", exact=True)).to_have_value("anything")  # one box, whatever it holds
    page.get_by_label("Look for").fill("garcia")
    page.get_by_role("button", name="Find").click()
    expect(page.locator("#people-found")).to_have_text("4 people found.")
    for name in ("María García", "JOSÉ GARCÍA", "ana garcía", "Luis Garcia"):
        expect(page.get_by_role("cell", name=name, exact=True)).to_be_visible()
    expect(page.get_by_text("Eva García")).to_have_count(0)  # Adams is not the district's
    no_sideways_scroll(page)

    for external_id in ("g-maria", "g-jose", "g-ana", "g-luis"):
        page.get_by_label(f"Choose {external_id}").check()
    page.get_by_role("button", name="Give new codes…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Give 3 people new codes?")
    expect(page.locator("#left-out")).to_have_text("3 of 4 people: 1 withdrawn left out.")
    expect(page.locator("#left-out-people tbody tr")).to_have_count(1)
    expect(page.locator("#left-out-people tbody tr")).to_contain_text("g-luis")
    expect(page.locator("#left-out-people tbody tr")).to_contain_text("Withdrawn")
    no_sideways_scroll(page)
    old = dict(Respondent.objects.values_list("external_id", "access_code"))
    page.get_by_role("button", name="Give 3 people new codes").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("3 people with new codes")
    expect(page.get_by_text("3 given new codes: their old codes no longer work")).to_be_visible()
    expect(page.locator("#kept-people tbody tr")).to_have_count(3)
    expect(page.locator("#pdf-holds")).to_contain_text("One PDF of 3 slips, school by school, eight a page, "
                                                        "without cover sheets.")
    no_sideways_scroll(page)
    with page.expect_download() as download:
        page.get_by_role("button", name="Print their slips").click()
    expect(page.get_by_role("status").filter(has_text="Done: the PDF")).to_have_text(
        "Done: the PDF of 3 slips is downloaded. Hand each to its person only.")
    pages = pdf_pages(download.value)
    new = {person.external_id: person for person in Respondent.objects.filter(external_id__startswith="g-")}
    assert len(pages) == 1 and "For the teacher" not in pages[0]  # no cover sheets
    for external_id in ("g-maria", "g-jose", "g-ana"):
        assert new[external_id].access_code != old[external_id]
        assert new[external_id].formatted_access_code in pages[0]
    assert new["g-luis"].formatted_access_code not in pages[0]
    context.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_code_is_found_by_its_first_characters_typed_as_on_the_slip(browser, live_server, garcias, size):
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    sign_in(page, live_server.url, "d1")
    page.goto(f"{live_server.url}/staff/surveys/{garcias.slug}/people/")
    carla = Respondent.objects.get(external_id="s-carla")
    page.get_by_label("Look for").fill(carla.formatted_access_code[:7].lower())  # "abcde-f"
    page.get_by_role("button", name="Find").click()
    expect(page.locator("#people-found")).to_have_text("1 person found.")
    expect(page.locator("table.data tbody tr")).to_contain_text("Carla Ruiz")
    no_sideways_scroll(page)
    context.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_big_choice_s_slips_are_a_job_whose_page_says_when_it_is_done_and_downloaded(
        browser, live_server, garcias, settings, size):
    settings.SLIPS_INLINE_MAX = 2
    context = browser.new_context(viewport=SIZES[size], accept_downloads=True)
    page = context.new_page()
    sign_in(page, live_server.url, "d1")
    page.goto(f"{live_server.url}/staff/surveys/{garcias.slug}/people/?q=garcia")
    page.get_by_label("Everyone this search finds").check()
    page.get_by_role("button", name="Print their slips…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Print the slips of 3 people?")
    expect(page.locator("#left-out")).to_have_text("3 of 4 people: 1 withdrawn left out.")
    expect(page.locator("#pdf-holds")).to_contain_text("without cover sheets; that many are prepared in the "
                                                        "background")
    page.get_by_role("button", name="Print the slips of 3 people").click()
    expect(page.locator("#slips-done")).to_have_text("Done: 3 slips printed into one PDF, ready to download.")
    no_sideways_scroll(page)
    with page.expect_download() as download:
        page.get_by_role("link", name="Download the PDF (3 slips)").click()
    expect(page.get_by_role("status").filter(has_text="Done: the PDF")).to_have_text(
        "Done: the PDF of 3 slips is downloaded. Hand each to its person only.")
    assert "For the teacher" not in "".join(pdf_pages(download.value))
    context.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_school_s_slips_say_what_the_pdf_holds_and_when_it_is_downloaded(browser, live_server, garcias, size):
    context = browser.new_context(viewport=SIZES[size], accept_downloads=True)
    page = context.new_page()
    sign_in(page, live_server.url, "d1")
    page.goto(f"{live_server.url}/staff/surveys/{garcias.slug}/schools/LIN/")
    page.get_by_label("Look for").fill("GARCÍA")  # the same one box, within the school
    page.get_by_role("button", name="Find").click()
    expect(page.locator("table.data tbody tr")).to_have_count(3)  # María, José and the withdrawn Luis
    expect(page.get_by_role("cell", name="ana garcía")).to_have_count(0)  # Jefferson's
    link = page.get_by_role("link", name="Code slips for the whole school (PDF: 4 slips, a cover sheet before each "
                                         "grade)")
    no_sideways_scroll(page)
    with page.expect_download() as download:
        link.click()
    expect(page.get_by_role("status").filter(has_text="Done: the PDF")).to_have_text(
        "Done: the PDF of 4 slips is downloaded.")
    pages = pdf_pages(download.value)
    assert "Grade 7: 3 slips" in pages[0] and "For the teacher" in pages[0]  # whole schools keep their covers
    context.close()
