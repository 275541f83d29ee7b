"""The staff pages on a phone (390 px wide, headless Chromium): nothing scrolls sideways but a table inside its own
box, and the header's "Sign out" is fully on the screen."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.models import StaffMember, StaffUpload
from exports.options import ExportOptions
from respondents.models import Respondent
from respondents.tests.factories import make_school, make_staff, scope_of
from rosters.models import Roster
from surveys.tests.factories import make_survey

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a long staff passphrase"
PHONE = {"width": 390, "height": 844}
HEADER = "external_id,school_code,grade,role,language,display_name\n"


@pytest.fixture
def office(client):
    """A state administrator (the longest header: every link of the area) with a survey, two schools, a roster
    applied and a second one that leaves a person out, an export done, and audit entries."""
    from exports.jobs import export_job_start
    from exports.tasks import export_job_task

    survey = make_survey()
    make_school("LIN", "Abraham Lincoln Middle School of the North Side", ("D1", "Northern Consolidated District"))
    make_school("ADA", "Adams Elementary", ("D2", "District Two"))
    user = make_staff(StaffMember.Role.STATE_ADMIN, username="state-office-administrator")
    assert client.post("/staff/login/", {"username": user.username, "password": PASSWORD}).status_code == 302
    rows = "".join(f"student-{n:04d},LIN,7,student,en,Person number {n}\n" for n in range(12))
    for content in (HEADER + rows, HEADER + rows.split("\n", 1)[1]):
        client.post(f"/staff/surveys/{survey.slug}/rosters/new/",
                    {"file": SimpleUploadedFile("a-roster-file-with-a-rather-long-name.csv", content.encode())})
        client.post(f"/staff/surveys/{survey.slug}/rosters/{Roster.objects.latest('pk').pk}/apply/")
    job = export_job_start(scope=scope_of(user), survey=survey, format="csv", options=ExportOptions())
    export_job_task(job.pk)
    staff_file = ("username,email,name,role,district_codes,school_codes\n"
                  "a-coordinator-with-a-long-user-name,coordinator.of.the.north.side@example.org,"
                  "Maria José Pérez-Ruiz de la Torre,school,,LIN ADA\n")
    client.post("/staff/accounts/import/", {"file": SimpleUploadedFile("staff-of-the-state.csv", staff_file.encode())})
    coordinator = make_staff(StaffMember.Role.SCHOOL_COORDINATOR, username="another-coordinator-with-a-long-name")
    return {"user": user, "survey": survey, "roster": Roster.objects.latest("pk"), "job": job,
            "person": Respondent.objects.order_by("pk").first(), "coordinator": coordinator,
            "staff_upload": StaffUpload.objects.latest("pk")}


def staff_pages(world):
    slug, person = world["survey"].slug, world["person"]
    return [
        "/staff/", f"/staff/surveys/{slug}/", f"/staff/surveys/{slug}/monitoring/",
        f"/staff/surveys/{slug}/monitoring/?school=LIN", f"/staff/surveys/{slug}/schools/LIN/",
        f"/staff/surveys/{slug}/results/", f"/staff/surveys/{slug}/results/?school=lincoln&page=2",
        f"/staff/surveys/{slug}/results/?school=a", f"/staff/surveys/{slug}/results/texts/nickname/",
        f"/staff/surveys/{slug}/people/{person.pk}/", f"/staff/surveys/{slug}/rosters/{world['roster'].pk}/",
        f"/staff/surveys/{slug}/rosters/new/", f"/staff/surveys/{slug}/exports/",
        f"/staff/surveys/{slug}/exports/{world['job'].pk}/", f"/staff/surveys/{slug}/dates/",
        f"/staff/surveys/{slug}/people/withdraw/?respondent={person.pk}",
        f"/staff/surveys/{slug}/people/{person.pk}/reissue/", f"/staff/surveys/{slug}/publish/",
        "/staff/surveys/import/", "/staff/schools/import/", "/staff/accounts/", "/staff/accounts/new/",
        f"/staff/accounts/{world['user'].pk}/", "/staff/audit/", "/staff/no-such-page/",
        "/staff/accounts/import/", f"/staff/accounts/imports/{world['staff_upload'].pk}/",
        f"/staff/accounts/deactivate/?user={world['coordinator'].pk}",
    ]


def sign_in(page, base, username):
    page.goto(base + "/staff/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(base + "/staff/")


def overflow(page):
    """How far the page is wider than the screen (px), and the "Sign out" button's box."""
    return page.evaluate("""() => {
        const button = [...document.querySelectorAll("button")].find(b => b.textContent.trim() === "Sign out");
        const box = button && button.getBoundingClientRect();
        return {extra: document.documentElement.scrollWidth - window.innerWidth,
                signOut: box && {left: box.left, right: box.right, top: box.top, width: box.width},
                width: window.innerWidth};
    }""")


def test_no_staff_page_scrolls_sideways_on_a_phone_and_sign_out_is_fully_visible(browser, live_server, office):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    sign_in(page, live_server.url, office["user"].username)
    wrong = []
    for path in staff_pages(office):
        page.goto(live_server.url + path)
        seen = overflow(page)
        if seen["extra"] > 0:
            wrong.append(f"{path} is {seen['extra']} px wider than the screen")
        box = seen["signOut"]
        if not box or box["width"] == 0 or box["left"] < 0 or box["right"] > seen["width"] or box["top"] < 0:
            wrong.append(f"{path}: Sign out is not fully on the screen ({box})")
    context.close()
    assert not wrong, "\n".join(wrong)


def test_a_wide_table_scrolls_inside_its_own_box_on_a_phone(browser, live_server, office):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    sign_in(page, live_server.url, office["user"].username)
    page.goto(live_server.url + "/staff/audit/")
    box = page.locator("table.data").first.locator("xpath=..")
    assert box.evaluate("element => getComputedStyle(element).overflowX") == "auto"
    assert box.evaluate("element => element.scrollWidth > element.clientWidth")  # the table is wider: it scrolls
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    context.close()
