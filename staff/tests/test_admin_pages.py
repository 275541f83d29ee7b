"""The state administrator's pages: the school directory, staff accounts, the audit log (append-only)."""
import csv
import io

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from accounts.models import AuditEntry, AuditLogIsAppendOnly, StaffMember
from respondents.models import School
from respondents.tests.factories import make_school, make_staff
from rosters.models import DirectoryUpload
from staff.tests.helpers import office_signed_in

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
PASSWORD = "a long staff passphrase"


@pytest.fixture
def state(client):
    return office_signed_in(client, username="state")


def test_the_directory_is_checked_then_applied_from_its_page_without_a_second_upload(client, state):
    text = "district_code,district_name,school_code,school_name\nD1,One,LIN,Lincoln\nD1,One,ADA,Adams\n"
    page = client.post("/staff/schools/import/", {"file": SimpleUploadedFile("d.csv", text.encode())}, follow=True)
    html = page.content.decode()
    assert "Checked: nothing has been written yet." in html and "Apply this directory" in html
    assert not School.objects.exists()
    upload = DirectoryUpload.objects.get()
    assert all(f'action="/staff/schools/imports/{upload.pk}/{step}/"' in html for step in ("apply", "discard"))
    page = client.post(f"/staff/schools/imports/{upload.pk}/apply/", follow=True).content.decode()
    assert "Applied" in page and "What applying it did" in page and School.objects.count() == 2
    assert AuditEntry.objects.get(action="schools_imported").detail.startswith("d.csv: districts 1 new")
    bad = client.post("/staff/schools/import/", {"file": SimpleUploadedFile("d.csv", b"school_code\nX\n")})
    assert "Missing required columns" in bad.content.decode()


def test_a_directory_file_with_problems_lists_them_and_cannot_be_applied(client, state):
    text = "district_code,district_name,school_code,school_name\nD1,One,LIN,Lincoln\nD1,One,LIN,Again\n"
    page = client.post("/staff/schools/import/", {"file": SimpleUploadedFile("d.csv", text.encode())}, follow=True)
    assert "The file has 1 problem: nothing was written" in page.content.decode()
    assert "listed twice (first on row 2)" in page.content.decode()
    upload = DirectoryUpload.objects.get()
    page = client.post(f"/staff/schools/imports/{upload.pk}/apply/", follow=True).content.decode()
    assert "cannot be applied" in page and not School.objects.exists()


def test_a_directory_file_checked_before_another_was_applied_is_checked_again_not_applied(client, state):
    header = "district_code,district_name,school_code,school_name\n"
    client.post("/staff/schools/import/", {"file": SimpleUploadedFile("a.csv", (header + "D1,One,LIN,Lincoln\n").encode())})
    stale = DirectoryUpload.objects.get()
    client.post("/staff/schools/import/", {"file": SimpleUploadedFile("b.csv", (header + "D1,One,LIN,Lincoln High\n").encode())})
    other = DirectoryUpload.objects.exclude(pk=stale.pk).get()
    client.post(f"/staff/schools/imports/{other.pk}/apply/")
    page = client.post(f"/staff/schools/imports/{stale.pk}/apply/", follow=True).content.decode()
    assert "Nothing was applied" in page and "the counts below are new" in page
    assert School.objects.get().name == "Lincoln High"
    stale.refresh_from_db()
    assert stale.status == DirectoryUpload.Status.CHECKED and stale.counts["schools"] == {
        "new": 0, "updated": 1, "unchanged": 0}
    client.post(f"/staff/schools/imports/{stale.pk}/apply/")
    assert School.objects.get().name == "Lincoln"


def test_a_directory_file_can_be_discarded_and_only_its_uploader_sees_it(client, state):
    header = "district_code,district_name,school_code,school_name\n"
    client.post("/staff/schools/import/", {"file": SimpleUploadedFile("a.csv", (header + "D1,One,LIN,Lincoln\n").encode())})
    upload = DirectoryUpload.objects.get()
    other = Client()
    make_staff(Role.STATE_ADMIN, username="state2")
    other.post("/staff/login/", {"username": "state2", "password": PASSWORD})
    assert other.get(f"/staff/schools/imports/{upload.pk}/").status_code == 404
    assert other.post(f"/staff/schools/imports/{upload.pk}/apply/").status_code == 404
    client.post(f"/staff/schools/imports/{upload.pk}/discard/")
    upload.refresh_from_db()
    assert upload.status == DirectoryUpload.Status.DISCARDED and not School.objects.exists()


def test_the_directory_is_browsed_and_searched_within_the_scope(client, state):
    make_school("LIN", "Lincoln Elementary")
    make_school("ADA", "Adams Middle", ("D2", "District Two"))
    page = client.get("/staff/schools/?q=adams").content.decode()
    assert "Adams Middle" in page and "Lincoln Elementary" not in page and "1 school matching" in page
    assert "Lincoln Elementary" in client.get("/staff/schools/?q=d1").content.decode()
    coordinator = Client()
    make_staff(Role.SCHOOL_COORDINATOR, schools=[School.objects.get(code="LIN")], username="coord")
    coordinator.post("/staff/login/", {"username": "coord", "password": PASSWORD})
    page = coordinator.get("/staff/schools/").content.decode()
    assert "Lincoln Elementary" in page and "Adams Middle" not in page and "Load the school directory" not in page
    assert coordinator.get("/staff/schools/import/").status_code == 403


def test_a_state_administrator_creates_and_changes_a_coordinator_and_it_is_audited(client, state):
    lincoln = make_school("LIN", "Lincoln")
    form = {"username": "coord", "password": "Another long passphrase 7", "role": Role.SCHOOL_COORDINATOR,
            "school_codes": "LIN, NOPE", "is_active": "on"}
    page = client.post("/staff/accounts/new/", form)
    assert "Not in the school directory: NOPE." in page.content.decode()
    assert not get_user_model().objects.filter(username="coord").exists()
    client.post("/staff/accounts/new/", {**form, "school_codes": "LIN"})
    member = StaffMember.objects.get(user__username="coord")
    assert list(member.schools.all()) == [lincoln]
    client.post(f"/staff/accounts/{member.user_id}/", {"role": Role.ANALYST, "email": "", "is_active": ""})
    member.refresh_from_db()
    assert member.role == Role.ANALYST and not member.user.is_active and not member.schools.exists()
    details = list(AuditEntry.objects.filter(action="staff_changed").order_by("id").values_list("detail", flat=True))
    assert details == ["coord created: School coordinator (LIN)", "coord changed: Analyst (all schools), deactivated"]


def test_an_analyst_named_to_a_district_reads_only_its_schools_and_one_named_to_none_the_state(client, state):
    from accounts.scopes import staff_scope

    lincoln = make_school("LIN", "Lincoln")
    make_school("ADA", "Adams", ("D2", "District Two"))
    form = {"username": "analyst", "password": "Another long passphrase 7", "role": Role.ANALYST,
            "district_codes": "D1", "is_active": "on"}
    client.post("/staff/accounts/new/", form)
    member = StaffMember.objects.get(user__username="analyst")
    assert [d.code for d in member.districts.all()] == ["D1"]
    scope = staff_scope(user=member.user)
    assert scope.school_ids == {lincoln.pk} and not scope.can_see_codes
    client.post(f"/staff/accounts/{member.user_id}/", {**form, "password": "", "district_codes": ""})
    assert staff_scope(user=member.user).all_schools


def test_a_weak_password_is_refused_with_its_reason(client, state):
    page = client.post("/staff/accounts/new/", {"username": "weak", "password": "password", "role": Role.ANALYST})
    assert "This password is too common." in page.content.decode()


def test_the_audit_log_is_filtered_and_downloaded_and_other_roles_cannot_read_it(client, state):
    Client().post("/staff/login/", {"username": "nobody", "password": "x"})
    page = client.get("/staff/audit/", {"action": "sign_in_failed"}).content.decode()
    assert "nobody" in page and "1 entry" in page
    rows = list(csv.reader(io.StringIO(client.get("/staff/audit/", {"format": "csv"}).content.decode())))
    assert rows[0] == ["at", "username", "action", "survey", "school", "address", "detail"]
    assert {row[2] for row in rows[1:]} == {"sign_in", "sign_in_failed"}
    client.logout()
    make_staff(Role.DISTRICT_COORDINATOR, username="district")
    client.post("/staff/login/", {"username": "district", "password": PASSWORD})
    for path in ("/staff/audit/", "/staff/accounts/", "/staff/accounts/new/", "/staff/schools/import/"):
        assert client.get(path).status_code == 403


def test_nothing_in_the_app_changes_or_deletes_an_audit_entry(client, state):
    entry = AuditEntry.objects.get()
    with pytest.raises(AuditLogIsAppendOnly):
        AuditEntry.objects.update(detail="edited")
    with pytest.raises(AuditLogIsAppendOnly):
        AuditEntry.objects.all().delete()
    entry.detail = "edited"
    with pytest.raises(AuditLogIsAppendOnly):
        entry.save()
    with pytest.raises(AuditLogIsAppendOnly):
        entry.delete()
    assert AuditEntry.objects.get().detail == ""


def test_a_state_administrator_cannot_take_away_their_own_role(client, state):
    page = client.post(f"/staff/accounts/{state.pk}/", {"role": Role.ANALYST, "email": "", "is_active": "on"})
    assert "You cannot take away your own administrator role or account." in page.content.decode()
    assert StaffMember.objects.get(user=state).role == Role.STATE_ADMIN


def test_the_audit_log_csv_writes_times_in_the_deployment_s_zone_with_the_offset(client, state, settings,
                                                                                 monkeypatch):
    from datetime import UTC, datetime
    from types import SimpleNamespace

    from accounts import audit
    from accounts.scopes import COMMAND_LINE

    settings.TIME_ZONE = "America/Chicago"
    monkeypatch.setattr(audit, "timezone", SimpleNamespace(now=lambda: datetime(2026, 7, 1, 14, 0, 5, 999, UTC)))
    audit.audit_record(scope=COMMAND_LINE, action=AuditEntry.Action.SURVEY_LOADED, detail="in summer")
    monkeypatch.setattr(audit, "timezone", SimpleNamespace(now=lambda: datetime(2026, 12, 2, 15, 15, tzinfo=UTC)))
    audit.audit_record(scope=COMMAND_LINE, action=AuditEntry.Action.SURVEY_LOADED, detail="in winter")
    rows = list(csv.DictReader(io.StringIO(client.get("/staff/audit/", {"format": "csv", "action": "survey_loaded"})
                                           .content.decode())))
    assert [(row["at"], row["detail"]) for row in rows] == [("2026-12-02T09:15:00-06:00", "in winter"),
                                                          ("2026-07-01T09:00:05-05:00", "in summer")]
