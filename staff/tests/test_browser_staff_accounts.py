"""What a state administrator sees loading staff in bulk: headless Chromium (Debian's) driven by Playwright.

A staff file with problems shows every one at once with its row; the fixed file shows its counts, is applied,
and its accounts are on the paged list, where two are chosen and deactivated after a confirm page, and one that has
not set its password yet is found with the filter and sent its invitation again.
"""
import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from playwright.sync_api import expect

from accounts.models import StaffMember
from respondents.tests.factories import make_school, make_staff
from staff.tests.test_browser import sign_in
from staff.views.lists import PAGE_SIZE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
HEADER = "username,email,name,role,district_codes,school_codes\n"
COUNT = PAGE_SIZE + 5  # two pages of accounts with the administrator's own
FIXED = HEADER + "".join(f"coord{n:03d},coord{n:03d}@example.org,Coordinator {n},school,,LIN\n" for n in range(COUNT))
BAD = (FIXED.replace("coord001,coord001@example.org,Coordinator 1,school,,LIN", "coord001,,Coordinator 1,school,,NOPE")
       .replace("coord002,coord002@example.org,Coordinator 2,school", "coord002,coord002@example.org,Coordinator 2,teacher")
       + "COORD003,other@example.org,Again,school,,LIN\n")


def upload_staff_file(page, content):
    page.get_by_label("Staff file (CSV or XLSX)").set_input_files(
        {"name": "staff.csv", "mimeType": "text/csv", "buffer": content.encode()})
    page.get_by_role("button", name="Check the file").click()


def test_a_state_administrator_loads_staff_sees_every_problem_applies_the_fixed_file_and_deactivates_two(
        page, live_server):
    make_school("LIN", "Lincoln Middle")
    make_staff(StaffMember.Role.STATE_ADMIN, username="office")
    sign_in(page, live_server.url, "office")
    page.get_by_role("link", name="Staff accounts").first.click()
    page.get_by_role("link", name="Load a staff file").click()

    upload_staff_file(page, BAD)
    expect(page.get_by_role("alert")).to_contain_text("The file has 4 problems: nothing was written")
    problems = page.locator("table.problems tbody tr")
    expect(problems).to_have_count(4)
    expect(problems.nth(0)).to_contain_text("A new account needs an email")
    expect(problems.nth(1)).to_contain_text("NOPE")
    expect(problems.nth(2)).to_contain_text("teacher")
    expect(problems.nth(3)).to_contain_text(f"{COUNT + 2}")
    expect(problems.nth(3)).to_contain_text("listed twice (first on row 5)")
    assert not get_user_model().objects.filter(username__startswith="coord").exists()

    page.get_by_role("link", name="Upload the corrected file").click()
    upload_staff_file(page, FIXED)
    expect(page.get_by_text("Checked: nothing has been written yet.")).to_be_visible()
    expect(page.locator("#staff-counts tbody td").first).to_have_text(str(COUNT))
    page.get_by_role("button", name="Apply this file").click()
    expect(page.locator("#upload-status")).to_have_text("Applied")
    expect(page.get_by_role("status")).to_contain_text(f"{COUNT} new accounts were emailed a link to set their password")

    page.get_by_role("link", name="See the staff accounts").click()
    expect(page.get_by_text(f"{COUNT + 1} accounts.")).to_be_visible()
    expect(page.get_by_text("Page 1 of 2")).to_be_visible()
    page.get_by_role("link", name="Next").click()
    expect(page.get_by_role("link", name=f"coord{COUNT - 1:03d}")).to_be_visible()

    page.get_by_label("Find by user name, email or name").fill("Coordinator 1")
    page.get_by_role("button", name="Find").click()
    page.get_by_label("Choose coord010").check()
    page.get_by_label("Choose coord011").check()
    page.get_by_role("button", name="Deactivate selected").click()
    expect(page.get_by_role("heading", name="Deactivate 2 accounts?")).to_be_visible()
    expect(page.locator("table.data tbody tr")).to_have_count(2)
    page.get_by_role("button", name="Deactivate 2 accounts").click()
    expect(page.get_by_role("status")).to_contain_text("2 accounts deactivated: they can no longer sign in.")
    row = page.get_by_role("row").filter(has=page.get_by_role("link", name="coord010"))
    expect(row.locator("td").last).to_have_text("No")
    assert set(get_user_model().objects.filter(is_active=False).values_list("username", flat=True)) == {
        "coord010", "coord011"}

    # None of them has set a password yet: one of them is sent the invitation again from its row.
    page.get_by_label("Sign-in").select_option("Never set a password")
    page.get_by_role("button", name="Find").click()
    expect(row.locator("td").nth(-2)).to_have_text("Never set a password")  # deactivated: no button
    mail.outbox.clear()
    page.get_by_role("button", name="Send the invitation again to coord012").click()
    expect(page.get_by_role("status")).to_contain_text("The invitation to set a password was sent again to coord012.")
    assert [message.to for message in mail.outbox] == [["coord012@example.org"]]
    expect(page.get_by_label("Sign-in")).to_have_value("never_set")
