"""Staff accounts in bulk (accounts/staff_import.py): every kind of problem with its line, the upsert by user name
without case, a second import changing nothing, a dry run writing only its audit entry, the check → apply flow, the
command line; and bulk deactivation (accounts/staff_accounts.py)."""
import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.models import AuditEntry, StaffMember, StaffUpload
from accounts.scopes import COMMAND_LINE
from accounts.staff_accounts import StaffAccount, staff_account_save, staff_accounts_set_active
from accounts.staff_import import (
    StaffImportNotReady,
    staff_import,
    staff_upload_apply,
    staff_upload_check,
    staff_upload_discard,
)
from respondents.tests.factories import make_school, make_staff, scope_of

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
User = get_user_model()
HEADER = "username,email,name,role,district_codes,school_codes\n"
GOOD = HEADER + (
    "ana,ana@example.org,Ana Ruiz,school,,LIN ADA\n"
    "dist1,d1@example.org,Dee Strict,district,D1,\n"
    "state2,s2@example.org,Sam State,state_admin,,\n"
    "analyst,an@example.org,An Alyst,analyst,D2,\n"
)


@pytest.fixture
def directory():
    make_school("LIN", "Lincoln")  # district D1
    make_school("ADA", "Adams", ("D2", "District Two"))


@pytest.fixture
def office(directory):
    return scope_of(make_staff(Role.STATE_ADMIN, username="office"))


def write(tmp_path, text, name="staff.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def coverage(username):
    member = StaffMember.objects.get(user__username=username)
    return (member.role, member.name, member.user.email, sorted(d.code for d in member.districts.all()),
            sorted(s.code for s in member.schools.all()))


def test_a_file_applied_creates_every_account_with_no_usable_password_and_audits_each(tmp_path, office):
    result = staff_import(scope=office, path=write(tmp_path, GOOD))
    assert result.applied and str(result.counts) == "4 new, 0 changed, 0 unchanged"
    assert coverage("ana") == (Role.SCHOOL_COORDINATOR, "Ana Ruiz", "ana@example.org", [], ["ADA", "LIN"])
    assert coverage("dist1") == (Role.DISTRICT_COORDINATOR, "Dee Strict", "d1@example.org", ["D1"], [])
    assert coverage("analyst")[3] == ["D2"]
    created = User.objects.filter(pk__in=result.created_user_ids)
    assert sorted(created.values_list("username", flat=True)) == ["ana", "analyst", "dist1", "state2"]
    assert all(not user.has_usable_password() and user.is_active for user in created)
    changed = AuditEntry.objects.filter(action="staff_changed").values_list("detail", flat=True)
    assert sorted(changed)[0] == "ana new: School coordinator (ADA, LIN) (staff file " + str(tmp_path / "staff.csv") + ")"
    assert len(changed) == 4
    assert AuditEntry.objects.get(action="staff_imported").detail.endswith("4 new, 0 changed, 0 unchanged")


def test_the_same_file_again_changes_nothing_and_says_so(tmp_path, office):
    path = write(tmp_path, GOOD)
    staff_import(scope=office, path=path)
    users = list(User.objects.order_by("pk").values())
    entries = AuditEntry.objects.filter(action="staff_changed").count()
    again = staff_import(scope=office, path=path)
    assert str(again.counts) == "0 new, 0 changed, 4 unchanged" and again.counts.nothing_to_change
    assert again.created_user_ids == [] and again.changed_user_ids == []
    assert list(User.objects.order_by("pk").values()) == users
    assert AuditEntry.objects.filter(action="staff_changed").count() == entries


def test_accounts_are_matched_by_user_name_without_case_and_only_what_differs_changes(tmp_path, office):
    old = make_staff(Role.SCHOOL_COORDINATOR, username="Ana", schools=[make_school("OLD", "Old school")])
    untouched = make_staff(Role.ANALYST, username="bystander")
    result = staff_import(scope=office, path=write(tmp_path, GOOD))
    assert str(result.counts) == "3 new, 1 changed, 0 unchanged"
    assert result.changed_user_ids == [old.pk]
    assert coverage("Ana") == (Role.SCHOOL_COORDINATOR, "Ana Ruiz", "ana@example.org", [], ["ADA", "LIN"])
    assert not User.objects.filter(username="ana").exists()  # the stored name's case is kept
    assert User.objects.get(pk=old.pk).has_usable_password()  # a changed account keeps its password
    detail = AuditEntry.objects.get(action="staff_changed", detail__startswith="Ana ").detail
    assert "email (none) → ana@example.org" in detail and "name (none) → Ana Ruiz" in detail
    assert "schools +ADA, +LIN, −OLD" in detail
    assert coverage("bystander")[0] == Role.ANALYST  # an account the file does not name is left alone
    assert StaffMember.objects.filter(user=untouched).exists()


def test_a_row_naming_a_superuser_or_a_user_without_a_staff_role_is_a_problem_with_its_line_and_writes_nothing(
        tmp_path, office):
    User.objects.create_user(username="ana", email="plain@example.org", password="x")  # row 2
    root = User.objects.create_superuser(username="Dist1", email="root@example.org", password="x" * 20)  # row 3
    StaffMember.objects.create(user=root, role=Role.STATE_ADMIN)
    for scope in (office, COMMAND_LINE):  # a superuser's powers at the command line do not change superusers either
        result = staff_import(scope=scope, path=write(tmp_path, GOOD))
        assert not result.applied
        assert [(p.row, p.column) for p in result.problems] == [(2, "username"), (3, "username")]
        assert "ana has no staff role: the staff area does not change it" in result.problems[0].reason
        assert "Dist1 is a superuser: only a superuser changes it, in /admin/" in result.problems[1].reason
    assert User.objects.get(username="ana").email == "plain@example.org" and not StaffMember.objects.filter(
        user__username="ana").exists()
    assert User.objects.get(username="Dist1").email == "root@example.org"
    assert User.objects.count() == 3


def test_every_kind_of_problem_is_named_with_its_line_and_nothing_is_written(tmp_path, office):
    make_staff(Role.ANALYST, username="taken-mail")
    User.objects.filter(username="taken-mail").update(email="used@example.org")
    bad = HEADER + (
        "ana,ana@example.org,Ana,school,,LIN\n"  # 2: fine
        ",x@example.org,No Name,school,,LIN\n"  # 3: no user name
        "bob,bob@example.org,Bob,,,\n"  # 4: no role
        "carl,carl@example.org,Carl,teacher,,\n"  # 5: not a role
        "ANA,ana2@example.org,Ana again,school,,LIN\n"  # 6: user name twice (case)
        "dan,ana@example.org,Dan,school,,LIN\n"  # 7: email twice
        "eve,not-an-email,Eve,school,,NOPE\n"  # 8: bad email, unknown school
        "fay,,Fay,school,,LIN\n"  # 9: a new account with no email
        "gus,gus@example.org,=HYPERLINK(1),analyst,,\n"  # 10: a formula
        "hal,hal@example.org,Hal,district,,\n"  # 11: a district coordinator without districts
        "ivy,ivy@example.org,Ivy,state_admin,D1,LIN\n"  # 12: codes a state administrator does not keep
        "jo hn,jo@example.org,John,analyst,,\n"  # 13: not a user name
        "kim,used@example.org,Kim,analyst,,\n"  # 14: another account's email
        "office,office@example.org,Me,analyst,,\n"  # 15: my own role taken away
        "lee,lee@example.org," + "L" * 201 + ",analyst,,\n"  # 16: a name too long
    )
    upload = staff_upload_check(scope=office, path=write(tmp_path, bad))
    assert upload.status == StaffUpload.Status.REFUSED and upload.account_rows == []
    found = {(p.row, p.column) for p in upload.problems()}
    assert found == {(3, "username"), (4, "role"), (5, "role"), (6, "username"), (7, "email"), (8, "email"),
                     (8, "school_codes"), (9, "email"), (10, "name"), (11, "district_codes"), (12, "district_codes"),
                     (12, "school_codes"), (13, "username"), (14, "email"), (15, "role"), (16, "name")}
    text = [str(p) for p in upload.problems()]
    assert "row 6, column username: listed twice (first on row 2) (value: 'ANA')" in text
    assert "row 8, column school_codes: Not in the school directory: NOPE (value: 'NOPE')" in text
    assert "row 14, column email: This email is another account's: taken-mail (value: 'used@example.org')" in text
    assert "row 15, column role: You cannot take away your own administrator role or account (value: 'analyst')" in text
    assert [p.row for p in upload.problems()] == sorted(p.row for p in upload.problems())
    assert not User.objects.filter(username__in=["ana", "bob", "kim"]).exists()
    assert AuditEntry.objects.get(action="staff_import_checked").detail.endswith("16 problems")


def test_a_file_with_problems_applied_from_the_command_line_writes_nothing(tmp_path, office):
    path = write(tmp_path, GOOD + "zed,zed@example.org,Zed,school,,NOPE\n")
    result = staff_import(scope=COMMAND_LINE, path=path)
    assert not result.applied and len(result.problems) == 1 and result.problems[0].row == 6
    assert not StaffMember.objects.filter(user__username="ana").exists()
    assert not AuditEntry.objects.exists()


def test_a_dry_run_writes_nothing_but_its_audit_entry(tmp_path, office):
    users, members, uploads = User.objects.count(), StaffMember.objects.count(), StaffUpload.objects.count()
    result = staff_import(scope=office, path=write(tmp_path, GOOD), dry_run=True)
    assert not result.applied and str(result.counts) == "4 new, 0 changed, 0 unchanged"
    assert (User.objects.count(), StaffMember.objects.count(), StaffUpload.objects.count()) == (users, members, uploads)
    entry = AuditEntry.objects.get()
    assert entry.action == "staff_import_checked" and entry.username == "office"


def test_a_checked_file_is_applied_on_confirmation_and_cannot_be_applied_twice(tmp_path, office):
    upload = staff_upload_check(scope=office, path=write(tmp_path, GOOD), filename="staff.csv")
    assert upload.status == StaffUpload.Status.CHECKED and upload.counts == {"new": 4, "changed": 0, "unchanged": 0}
    assert [line for line, _, _ in upload.changes] == [2, 3, 4, 5]
    assert not StaffMember.objects.filter(user__username="ana").exists()
    result = staff_upload_apply(scope=office, upload_id=upload.pk)
    assert result.applied and len(result.created_user_ids) == 4
    assert StaffUpload.objects.get(pk=upload.pk).status == StaffUpload.Status.APPLIED
    with pytest.raises(StaffImportNotReady):
        staff_upload_apply(scope=office, upload_id=upload.pk)
    with pytest.raises(StaffImportNotReady):
        staff_upload_discard(scope=office, upload_id=upload.pk)


def test_accounts_changed_since_the_check_give_new_counts_to_confirm_not_an_apply(tmp_path, office):
    upload = staff_upload_check(scope=office, path=write(tmp_path, GOOD))
    staff_account_save(scope=office, account=StaffAccount(username="ana", role=Role.ANALYST),
                       password="Another long passphrase 7")
    result = staff_upload_apply(scope=office, upload_id=upload.pk)
    assert not result.applied and "changed since this file was checked" in result.note
    upload.refresh_from_db()
    assert upload.status == StaffUpload.Status.CHECKED and upload.counts == {"new": 3, "changed": 1, "unchanged": 0}
    assert staff_upload_apply(scope=office, upload_id=upload.pk).applied


def test_a_file_that_has_problems_by_the_time_it_is_applied_is_refused(tmp_path, office):
    upload = staff_upload_check(scope=office, path=write(tmp_path, GOOD))
    User.objects.create_user(username="someone", email="an@example.org")
    result = staff_upload_apply(scope=office, upload_id=upload.pk)
    assert not result.applied and [(p.row, p.column) for p in result.problems] == [(5, "email")]
    assert StaffUpload.objects.get(pk=upload.pk).status == StaffUpload.Status.REFUSED
    assert not StaffMember.objects.filter(user__username="ana").exists()


def test_another_administrators_upload_is_not_found_and_a_discarded_one_is_not_applied(tmp_path, office):
    upload = staff_upload_check(scope=office, path=write(tmp_path, GOOD))
    other = scope_of(make_staff(Role.STATE_ADMIN, username="other"))
    with pytest.raises(StaffUpload.DoesNotExist):
        staff_upload_apply(scope=other, upload_id=upload.pk)
    staff_upload_discard(scope=office, upload_id=upload.pk)
    with pytest.raises(StaffImportNotReady):
        staff_upload_apply(scope=office, upload_id=upload.pk)
    assert not StaffMember.objects.filter(user__username="ana").exists()


@pytest.mark.parametrize("role", [Role.DISTRICT_COORDINATOR, Role.SCHOOL_COORDINATOR, Role.ANALYST])
def test_only_a_state_administrator_imports_staff(tmp_path, directory, role):
    scope = scope_of(make_staff(role, username="someone"))
    with pytest.raises(PermissionDenied):
        staff_upload_check(scope=scope, path=write(tmp_path, GOOD))
    with pytest.raises(PermissionDenied):
        staff_import(scope=scope, path=write(tmp_path, GOOD), dry_run=True)
    with pytest.raises(PermissionDenied):
        staff_accounts_set_active(scope=scope, user_ids=[1], active=False)
    assert not AuditEntry.objects.exists()


def test_an_xlsx_file_is_read_as_a_csv_is(tmp_path, office):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    for line in GOOD.splitlines():
        sheet.append(line.split(","))
    book.save(tmp_path / "staff.xlsx")
    result = staff_import(scope=office, path=tmp_path / "staff.xlsx")
    assert result.described == "XLSX" and str(result.counts) == "4 new, 0 changed, 0 unchanged"
    assert coverage("ana")[4] == ["ADA", "LIN"]


def test_the_command_prints_counts_and_problems_and_exits_non_zero_on_any(tmp_path, directory, capsys):
    path = write(tmp_path, GOOD)
    call_command("import_staff", str(path), "--dry-run")
    out = capsys.readouterr().out
    assert "accounts: 4 new, 0 changed, 0 unchanged" in out and "Dry run: nothing was written." in out
    assert not StaffMember.objects.exists()
    assert AuditEntry.objects.get().username == "manage.py"
    call_command("import_staff", str(path))
    assert "4 new accounts were emailed a link to set a password" in capsys.readouterr().out
    call_command("import_staff", str(path))
    assert "Nothing to change" in capsys.readouterr().out
    bad = write(tmp_path, GOOD + "zed,,Zed,school,,NOPE\n", name="bad.csv")
    with pytest.raises(CommandError) as error:
        call_command("import_staff", str(bad))
    assert error.value.returncode == 1 and "2 problems; nothing was written" in str(error.value)
    err = capsys.readouterr().err
    assert "row 6, column email: A new account needs an email" in err and "row 6, column school_codes" in err
    assert not User.objects.filter(username="zed").exists()
    with pytest.raises(CommandError, match="Missing required column"):
        call_command("import_staff", str(write(tmp_path, "username,role\nx,school\n", name="short.csv")))


def test_bulk_deactivation_refuses_the_administrators_own_account_and_changes_nothing_then(office):
    me = User.objects.get(username="office")
    a, b = make_staff(Role.ANALYST, username="a"), make_staff(Role.ANALYST, username="b")
    with pytest.raises(ValidationError, match="your own account"):
        staff_accounts_set_active(scope=office, user_ids=[a.pk, me.pk], active=False)
    assert User.objects.filter(is_active=True).count() == 3
    assert staff_accounts_set_active(scope=office, user_ids=[a.pk, b.pk], active=False) == ["a", "b"]
    assert staff_accounts_set_active(scope=office, user_ids=[a.pk, b.pk], active=False) == []  # already
    assert list(AuditEntry.objects.filter(action="staff_changed").order_by("id").values_list("detail", flat=True)) == [
        "a deactivated", "b deactivated"]
    assert staff_accounts_set_active(scope=office, user_ids=[a.pk, me.pk], active=True) == ["a"]
    assert User.objects.get(pk=a.pk).is_active and not User.objects.get(pk=b.pk).is_active


def test_a_user_name_held_by_two_accounts_that_differ_only_in_case_is_a_problem_and_nothing_is_written(
        tmp_path, office):
    make_staff(Role.ANALYST, username="Lee")
    make_staff(Role.ANALYST, username="lee")
    result = staff_import(scope=office, path=write(tmp_path, HEADER + "LEE,lee@example.org,Lee,analyst,,\n"))
    assert not result.applied
    [problem] = result.problems
    assert (problem.row, problem.column) == (2, "username") and "differ only in case (Lee, lee)" in problem.reason
    assert not User.objects.filter(email="lee@example.org").exists()


def test_two_accounts_of_one_file_may_swap_their_emails(tmp_path, office):
    staff_import(scope=office, path=write(tmp_path, GOOD))
    swapped = GOOD.replace("ana,ana@example.org", "ana,d1@example.org").replace("dist1,d1@example.org",
                                                                                "dist1,ana@example.org")
    result = staff_import(scope=office, path=write(tmp_path, swapped))
    assert result.applied and not result.problems and str(result.counts) == "0 new, 2 changed, 2 unchanged"
    assert User.objects.get(username="ana").email == "d1@example.org"
    assert User.objects.get(username="dist1").email == "ana@example.org"


def test_a_row_changing_another_state_administrators_email_or_role_is_a_problem_unless_a_superuser_applies_it(
        tmp_path, office):
    peer = make_staff(Role.STATE_ADMIN, username="state2")
    User.objects.filter(pk=peer.pk).update(email="s2@example.org")
    path = write(tmp_path, HEADER + "state2,taken@attacker.example,Sam State,state_admin,,\n"
                                    "STATE2,s2@example.org,Sam State,analyst,,\n")
    result = staff_import(scope=office, path=path)
    assert not result.applied
    assert [(p.row, p.column, p.reason) for p in result.problems if "superuser" in p.reason] == [
        (2, "email", "Only a superuser changes another state administrator's email"),
        (3, "role", "Only a superuser changes another state administrator's role")]
    renamed = staff_import(scope=office, path=write(tmp_path, HEADER + "state2,S2@Example.org,Sam State,state_admin,,\n"))
    assert renamed.applied and str(renamed.counts) == "0 new, 1 changed, 0 unchanged"  # a name: any administrator's
    assert coverage("state2")[:3] == (Role.STATE_ADMIN, "Sam State", "s2@example.org")
    root = User.objects.create_superuser(username="root", password="x" * 20)
    for scope in (scope_of(root), COMMAND_LINE):
        applied = staff_import(scope=scope, path=write(tmp_path, HEADER + "state2,new@example.org,,analyst,,\n"))
        assert applied.applied and coverage("state2")[0] == Role.ANALYST
        StaffMember.objects.filter(user=peer).update(role=Role.STATE_ADMIN)


def test_a_file_checked_before_an_account_became_an_administrator_is_refused_at_apply(tmp_path, office):
    make_staff(Role.ANALYST, username="ana")
    upload = staff_upload_check(scope=office, path=write(tmp_path, HEADER + "ana,ana@attacker.example,,analyst,,\n"))
    StaffMember.objects.filter(user__username="ana").update(role=Role.STATE_ADMIN)
    result = staff_upload_apply(scope=office, upload_id=upload.pk)
    assert not result.applied and [p.column for p in result.problems] == ["email", "role"]
    assert User.objects.get(username="ana").email == ""


def test_emails_are_stored_normalised_compared_so_across_rows_and_a_change_of_case_changes_nothing(tmp_path, office):
    staff_import(scope=office, path=write(tmp_path, HEADER + "ana,Ana@BÜCHER.example,,analyst,,\n"))
    assert User.objects.get(username="ana").email == "ana@bücher.example"
    again = staff_import(scope=office, path=write(tmp_path, HEADER + "ana,ANA@xn--bcher-kva.example,,analyst,,\n"))
    assert str(again.counts) == "0 new, 0 changed, 1 unchanged"
    twice = staff_import(scope=office, path=write(tmp_path, HEADER + "bo,Bo@Example.org,,analyst,,\n"
                                                                     "cy,bo@example.ORG,,analyst,,\n"))
    [problem] = twice.problems
    assert (problem.row, problem.column, problem.reason) == (3, "email", "listed twice (first on row 2)")


def test_a_file_changing_emails_removes_their_sign_on_links_and_says_so_once_it_commits(
        tmp_path, office, django_capture_on_commit_callbacks):
    from django.utils import timezone

    from accounts.models import SignOnIdentity
    from accounts.staff_accounts import staff_emails_changed

    staff_import(scope=office, path=write(tmp_path, GOOD))
    for number, username in enumerate(("ana", "dist1", "analyst")):
        SignOnIdentity.objects.create(user=User.objects.get(username=username), issuer="https://idp.example",
                                      subject=f"s{number}", linked_at=timezone.now())
    swapped = GOOD.replace("ana,ana@example.org", "ana,d1@example.org").replace("dist1,d1@example.org",
                                                                                "dist1,ana@example.org")
    seen = []
    staff_emails_changed.connect(lambda sender, scope, changes, **kw: seen.extend(changes), weak=False,
                                 dispatch_uid="t")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            staff_import(scope=office, path=write(tmp_path, swapped))
    finally:
        staff_emails_changed.disconnect(dispatch_uid="t")
    assert sorted((c["username"], c["old"], c["new"], c["unlinked"]) for c in seen) == [
        ("ana", "ana@example.org", "d1@example.org", 1), ("dist1", "d1@example.org", "ana@example.org", 1)]
    assert list(SignOnIdentity.objects.values_list("user__username", flat=True)) == ["analyst"]
    assert AuditEntry.objects.filter(action="sign_on_unlinked").count() == 2


def test_a_staff_file_s_codes_may_be_separated_by_commas_spaces_or_new_lines_and_are_shown_with_commas(
        tmp_path, office):
    mixed = HEADER + 'ana,ana@example.org,Ana,school,,"LIN,ADA"\nbo,bo@example.org,Bo,school,,"ADA\nLIN"\n'
    result = staff_import(scope=office, path=write(tmp_path, mixed))
    assert str(result.counts) == "2 new, 0 changed, 0 unchanged"
    assert coverage("ana")[4] == coverage("bo")[4] == ["ADA", "LIN"]
    assert AuditEntry.objects.filter(action="staff_changed", detail__contains="(ADA, LIN)").count() == 2
    bad = HEADER + "cy,cy@example.org,Cy,school,,NOPE ZZZ LIN\n"
    upload = staff_upload_check(scope=office, path=write(tmp_path, bad))
    assert [str(p) for p in upload.problems()] == [
        "row 2, column school_codes: Not in the school directory: NOPE, ZZZ (value: 'LIN, NOPE, ZZZ')"]
