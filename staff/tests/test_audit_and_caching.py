"""What the staff audit log records beyond the services' own entries (codes shown on a page, a roster discarded,
changes made in /admin/), and that no staff answer may be kept by a browser or a proxy."""
import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from accounts.models import AuditEntry, StaffMember
from respondents.tests.factories import make_respondents, make_staff
from respondents.tests.factories import staff_signed_in as signed_in
from rosters.models import Roster
from staff.tests.helpers import HEADER, PASSWORD, upload

pytestmark = pytest.mark.django_db


def entries(action):
    return list(AuditEntry.objects.filter(action=action).order_by("id"))


def test_the_codes_a_school_page_shows_are_audited_and_an_analyst_who_sees_none_is_not(
        client, survey, lincoln, coordinator):
    make_respondents(survey, 3, school=lincoln)
    signed_in(client, coordinator)
    client.get(f"/staff/surveys/{survey.slug}/schools/LIN/", REMOTE_ADDR="198.51.100.8")
    (entry,) = entries("codes_shown")
    assert (entry.username, entry.address, entry.school, entry.survey) == (
        "lin-coord", "198.51.100.8", lincoln, survey)
    assert entry.detail.startswith("3 codes: ")
    analyst = make_staff(StaffMember.Role.ANALYST)
    client.logout()
    signed_in(client, analyst)
    client.get(f"/staff/surveys/{survey.slug}/schools/LIN/")
    assert len(entries("codes_shown")) == 1


def test_the_code_a_respondent_page_shows_is_audited_by_external_id_not_by_the_code(
        client, survey, lincoln, coordinator):
    person = make_respondents(survey, school=lincoln, external_id="stu-9")
    signed_in(client, coordinator)
    client.get(f"/staff/surveys/{survey.slug}/people/{person.pk}/")
    (entry,) = entries("codes_shown")
    assert entry.detail == "1 code: stu-9" and person.access_code not in entry.detail


def test_discarding_a_roster_is_audited(client, survey, lincoln, coordinator):
    signed_in(client, coordinator)
    upload(client, survey, HEADER + "s1,LIN,7,student,en,Ana\n")
    roster = Roster.objects.get()
    client.post(f"/staff/surveys/{survey.slug}/rosters/{roster.pk}/discard/", REMOTE_ADDR="198.51.100.9")
    (entry,) = entries("roster_discarded")
    assert (entry.username, entry.address, entry.survey) == ("lin-coord", "198.51.100.9", survey)
    assert "nothing applied" in entry.detail


def test_changes_made_in_admin_are_audited_with_who_and_from_where_bulk_deletions_too(client):
    admin = get_user_model().objects.create_superuser("root", "root@example.org", PASSWORD)
    client.force_login(admin)
    client.post("/admin/auth/group/add/", {"name": "Readers"}, REMOTE_ADDR="198.51.100.10")
    readers = Group.objects.get(name="Readers")
    client.post(f"/admin/auth/group/{readers.pk}/change/", {"name": "Analysts"}, REMOTE_ADDR="198.51.100.10")
    other = Group.objects.create(name="Others")
    client.post("/admin/auth/group/", {"action": "delete_selected", "_selected_action": [readers.pk, other.pk],
                                       "post": "yes"}, REMOTE_ADDR="198.51.100.10")
    assert not Group.objects.exists()
    recorded = [(e.username, e.address, e.detail) for e in entries("admin_changed")]
    assert recorded[:2] == [
        ("root", "198.51.100.10", "added group 'Readers': Added."),
        ("root", "198.51.100.10", "changed group 'Analysts': Changed Name."),
    ]
    assert sorted(detail for _, _, detail in recorded[2:]) == ["deleted group 'Analysts'", "deleted group 'Others'"]


def test_signing_out_of_admin_signs_out_and_audits_the_sign_out(client):
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.org", PASSWORD))
    assert client.post("/admin/logout/").status_code == 200
    assert client.get("/admin/").status_code == 302  # to the sign-in page
    assert [(e.action, e.username) for e in AuditEntry.objects.exclude(action="sign_in")] == [("sign_out", "root")]


def test_reading_admin_pages_writes_nothing_to_the_audit_log(client):
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.org", PASSWORD))
    assert client.get("/admin/auth/group/").status_code == 200
    assert not AuditEntry.objects.exclude(action="sign_in").exists()


@pytest.mark.parametrize("path", [
    "schools/LIN/", "people/{person}/", "schools/LIN/codes.csv", "schools/LIN/slips.pdf", "", "monitoring/",
])
def test_no_staff_answer_may_be_stored_by_a_browser_or_a_proxy(client, survey, lincoln, coordinator, path):
    person = make_respondents(survey, school=lincoln)
    signed_in(client, coordinator)
    response = client.get(f"/staff/surveys/{survey.slug}/" + path.format(person=person.pk))
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]
