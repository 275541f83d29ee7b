"""The staff accounts' pages: a staff file uploaded, its problems listed with their lines or its counts and changes,
applied or discarded; the list found, filtered and paged; accounts deactivated and reactivated in bulk, after a
confirm page, never the administrator's own; who never set a password, and their invitation sent again; an email
changed told to the old address; an account's single sign-on links listed and unlinked."""
import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from accounts.models import AuditEntry, SignOnIdentity, StaffMember, StaffUpload
from respondents.tests.factories import make_school, make_staff
from staff.tests.helpers import office_signed_in
from staff.views.lists import PAGE_SIZE

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
User = get_user_model()
HEADER = "username,email,name,role,district_codes,school_codes\n"
GOOD = HEADER + "ana,ana@example.org,Ana Ruiz,school,,LIN\nbo,bo@example.org,Bo Li,district,D1,\n"
PASSWORD_ROOT = "a superuser's long passphrase"


@pytest.fixture
def office(client):
    make_school("LIN", "Lincoln")
    office_signed_in(client, username="office")
    return client


def upload(client, text, name="staff.csv"):
    return client.post("/staff/accounts/import/", {"file": SimpleUploadedFile(name, text.encode())}, follow=True)


def test_a_file_with_problems_lists_every_one_with_its_row_and_writes_no_account(office):
    page = upload(office, GOOD + "ANA,x@example.org,,school,,NOPE\ncy,,Cy,boss,,\n").content.decode()
    assert "The file has 4 problems: nothing was written" in page, page[page.find("<tbody"):page.find("</tbody")]
    for text in ("listed twice (first on row 2)", "Not in the school directory: NOPE", "not a role",
                 "A new account needs an email"):
        assert text in page, text
    assert not User.objects.filter(username="ana").exists()
    assert AuditEntry.objects.filter(action="staff_import_checked").count() == 1


def test_a_good_file_shows_its_counts_and_changes_then_applies_and_again_changes_nothing(
        office, django_capture_on_commit_callbacks):
    page = upload(office, GOOD)
    upload_id = StaffUpload.objects.get().pk
    text = page.content.decode()
    assert "Checked: nothing has been written yet." in text and "new: School coordinator (LIN)" in text
    assert not User.objects.filter(username="ana").exists()
    with django_capture_on_commit_callbacks(execute=True):
        applied = office.post(f"/staff/accounts/imports/{upload_id}/apply/", follow=True).content.decode()
    assert ("Applied: 2 new, 0 changed, 0 unchanged. 2 new accounts were emailed a link to set their password."
            in applied)
    assert sorted(to for message in mail.outbox for to in message.to) == sorted(
        User.objects.filter(username__in=["ana", "bo"]).values_list("email", flat=True))
    assert all("/staff/password/set/" in message.body for message in mail.outbox)
    assert StaffMember.objects.get(user__username="bo").role == Role.DISTRICT_COORDINATOR
    again = upload(office, GOOD).content.decode()
    assert "Every account in the file is as it is already: applying it changes nothing." in again
    twice = office.post(f"/staff/accounts/imports/{upload_id}/apply/", follow=True)
    assert twice.status_code == 200
    assert "This file is applied: it cannot be applied." in twice.content.decode()
    assert User.objects.filter(username__in=["ana", "bo"]).count() == 2 and len(mail.outbox) == 2
    assert "It cannot be applied" not in again
    refused = office.post(f"/staff/accounts/imports/{upload_id}/discard/")
    assert refused["Location"] == f"/staff/accounts/imports/{upload_id}/"
    assert "This file is applied: it cannot be discarded." in office.get(refused["Location"]).content.decode()


def test_a_discarded_file_writes_nothing_and_a_file_that_is_no_table_is_refused_on_the_form(office):
    upload(office, GOOD)
    upload_id = StaffUpload.objects.get().pk
    page = office.post(f"/staff/accounts/imports/{upload_id}/discard/", follow=True).content.decode()
    assert "The file was discarded: nothing was applied." in page
    assert not User.objects.filter(username="ana").exists()
    page = upload(office, "just,some\ntext,here\n")
    assert page.status_code == 400 and "Missing required columns" in page.content.decode()


def test_the_list_finds_by_user_name_email_or_name_filters_and_pages(office):
    upload(office, GOOD)
    office.post(f"/staff/accounts/imports/{StaffUpload.objects.get().pk}/apply/")
    page = office.get("/staff/accounts/", {"q": "ruiz"}).content.decode()
    assert "ana@example.org" in page and "bo@example.org" not in page and "1 account." in page
    page = office.get("/staff/accounts/", {"q": "bo@example"}).content.decode()
    assert "Bo Li" in page and "Ana Ruiz" not in page
    page = office.get("/staff/accounts/", {"role": Role.DISTRICT_COORDINATOR}).content.decode()
    assert "Bo Li" in page and "Ana Ruiz" not in page
    for n in range(PAGE_SIZE + 5):
        make_staff(Role.ANALYST, username=f"analyst{n:03d}")
    first = office.get("/staff/accounts/", {"role": Role.ANALYST}).content.decode()
    assert f"{PAGE_SIZE + 5} accounts." in first and "Page 1 of 2" in first
    assert "analyst099" in first and "analyst100" not in first and "role=analyst&amp;" in first
    second = office.get("/staff/accounts/", {"role": Role.ANALYST, "page": "2"}).content.decode()
    assert "analyst104" in second and "analyst099" not in second and "Bo Li" not in second


def test_bulk_deactivation_confirms_leaves_out_the_administrators_own_account_and_reactivation_undoes_it(office):
    me = User.objects.get(username="office")
    a, b = make_staff(Role.ANALYST, username="a"), make_staff(Role.ANALYST, username="b")
    page = office.post("/staff/accounts/deactivate/", {"user": [a.pk, b.pk, me.pk]}).content.decode()
    assert "Deactivate 2 accounts?" in page and "Your own account is left out" in page
    assert User.objects.get(pk=a.pk).is_active  # nothing until confirmed
    page = office.post("/staff/accounts/deactivate/", {"user": [a.pk, b.pk], "confirm": "on",
                                                       "next": "/staff/accounts/?active=no"}, follow=True)
    assert "2 accounts deactivated: they can no longer sign in." in page.content.decode()
    assert not User.objects.filter(pk__in=[a.pk, b.pk], is_active=True).exists() and User.objects.get(pk=me.pk).is_active
    assert page.redirect_chain[-1][0] == "/staff/accounts/?active=no"
    page = office.post("/staff/accounts/deactivate/", {"user": [me.pk]}).content.decode()
    assert "No account to deactivate" in page and "Your own account is left out" in page
    office.post("/staff/accounts/deactivate/", {"user": [me.pk], "confirm": "on"})
    assert User.objects.get(pk=me.pk).is_active
    office.post("/staff/accounts/reactivate/", {"user": [a.pk], "confirm": "on"})
    assert User.objects.get(pk=a.pk).is_active and not User.objects.get(pk=b.pk).is_active
    details = list(AuditEntry.objects.filter(action="staff_changed").order_by("id").values_list("detail", flat=True))
    assert details == ["a deactivated", "b deactivated", "a reactivated"]


def test_choosing_no_account_says_so(office):
    page = office.post("/staff/accounts/deactivate/", {}, follow=True).content.decode()
    assert "Choose at least one account." in page


def test_the_name_is_shown_and_saved_on_the_account_form(office):
    office.post("/staff/accounts/new/", {"username": "cy", "email": "cy@example.org", "name": "Cy Pérez",
                                         "password": "Another long passphrase 7", "role": Role.ANALYST,
                                         "is_active": "on"})
    member = StaffMember.objects.get(user__username="cy")
    assert member.name == "Cy Pérez"
    assert 'value="Cy Pérez"' in office.get(f"/staff/accounts/{member.user_id}/").content.decode()


@pytest.mark.parametrize("role", [Role.DISTRICT_COORDINATOR, Role.SCHOOL_COORDINATOR, Role.ANALYST])
def test_only_a_state_administrator_reaches_the_staff_file_and_bulk_pages(client, role):
    lincoln = make_school("LIN", "Lincoln")
    user = make_staff(role, username="someone", schools=[lincoln], districts=[lincoln.district])
    client.post("/staff/login/", {"username": "someone", "password": "a long staff passphrase"})
    for path in ("/staff/accounts/import/", "/staff/accounts/deactivate/", "/staff/accounts/reactivate/"):
        assert client.post(path, {"user": [user.pk], "confirm": "on"}).status_code == 403, path
    assert User.objects.get(pk=user.pk).is_active


# ---------------------------------------------------------------- who never set a password, and their invitation

def account(username, *, email=True, password=None, active=True, linked=False):
    """A school coordinator's account: without a password (waiting for its first) unless ``password``."""
    user = make_staff(Role.ANALYST, username=username, password=password)
    user.email, user.is_active = f"{username}@example.org" if email else "", active
    user.save()
    if linked:
        SignOnIdentity.objects.create(user=user, issuer="https://login.agency.example", subject=username,
                                      linked_at=timezone.now())
    return user


@pytest.fixture
def accounts(office):
    return {"waiting": account("waiting"), "typed": account("typed", password="Another long passphrase 7"),
            "sso": account("sso", linked=True), "sso-and-password": account("sso-pw", linked=True,
                                                                              password="Another long passphrase 8"),
            "gone": account("gone", active=False), "nomail": account("nomail", email=False)}


def sign_in_cell(page, username):
    row = re.search(rf'<tr>\s*<td><input[^>]*aria-label="Choose {username}">.*?</tr>', page, re.S).group(0)
    return re.sub(r"\s+", " ", re.findall(r"<td>(.*?)</td>", row, re.S)[-2]).strip()


def test_the_list_shows_who_never_set_a_password_and_finds_them_with_the_filter(office, accounts):
    page = office.get("/staff/accounts/").content.decode()
    assert '<th scope="col">Sign-in</th>' in page
    assert sign_in_cell(page, "office") == "Password" and sign_in_cell(page, "typed") == "Password"
    assert sign_in_cell(page, "sso") == "Single sign-on"
    assert sign_in_cell(page, "sso-pw") == "Single sign-on and a password"
    waiting = accounts["waiting"].pk
    assert sign_in_cell(page, "waiting") == (
        f'Never set a password <button type="submit" class="button" formaction="/staff/accounts/{waiting}/invite/" '
        f'aria-label="Send the invitation again to waiting">Send the invitation again</button>')
    # Deactivated, or without an address: the email could not be sent, so no button.
    assert sign_in_cell(page, "gone") == "Never set a password" == sign_in_cell(page, "nomail")
    assert 'formaction="/staff/accounts/invite/">Send the invitation again to those selected</button>' in page

    never = office.get("/staff/accounts/", {"sign_in": "never_set"}).content.decode()
    assert "3 accounts." in never and all(f"Choose {name}" in never for name in ("waiting", "gone", "nomail"))
    assert '<option value="never_set" selected>Never set a password</option>' in never
    active = office.get("/staff/accounts/", {"sign_in": "never_set", "active": "yes"}).content.decode()
    assert "2 accounts." in active and "Choose gone" not in active
    linked = office.get("/staff/accounts/", {"sign_in": "sign_on"}).content.decode()
    assert "2 accounts." in linked and "Choose sso-pw" in linked
    with_password = office.get("/staff/accounts/", {"sign_in": "password"}).content.decode()
    assert "3 accounts." in with_password and "Choose sso-pw" in with_password and "Choose typed" in with_password
    assert "Choose office" in with_password


def test_an_account_s_invitation_is_sent_again_from_its_row_with_a_new_link_and_audited(office, accounts):
    waiting = accounts["waiting"]
    # The row's button posts the list's form: the boxes ticked on the page are not its business.
    page = office.post(f"/staff/accounts/{waiting.pk}/invite/", {
        "user": [accounts["typed"].pk, accounts["nomail"].pk], "next": "/staff/accounts/?sign_in=never_set"},
        follow=True)
    assert page.redirect_chain[-1][0] == "/staff/accounts/?sign_in=never_set"
    assert "The invitation to set a password was sent again to waiting." in page.content.decode()
    [message] = mail.outbox
    assert message.to == ["waiting@example.org"] and "set your password" in message.subject
    assert "the link works once, for 7 days" in message.body
    entry = AuditEntry.objects.get(action="password_mail_sent")
    assert (entry.username, entry.detail) == ("office", "set-your-password email sent again to waiting "
                                                        "<waiting@example.org>")
    office.logout()
    link = re.search(r"http://\S+(/staff/password/set/\S+/)", message.body).group(1)
    chosen = office.get(link, follow=True)
    assert "Set your password" in chosen.content.decode()
    office.post(chosen.redirect_chain[-1][0], {"new_password1": "violet harbour lantern 42",
                                               "new_password2": "violet harbour lantern 42"})
    assert User.objects.get(pk=waiting.pk).check_password("violet harbour lantern 42")


def test_the_account_s_page_says_it_never_set_a_password_and_sends_the_invitation_again(office, accounts):
    waiting = accounts["waiting"]
    page = office.get(f"/staff/accounts/{waiting.pk}/").content.decode()
    assert '<p id="sign-in">Never set a password.</p>' in page
    assert f'action="/staff/accounts/{waiting.pk}/invite/"' in page and "works for 7 days" in page
    sent = office.post(f"/staff/accounts/{waiting.pk}/invite/", follow=True)
    assert sent.redirect_chain[-1][0] == f"/staff/accounts/{waiting.pk}/"
    assert "was sent again to waiting" in sent.content.decode() and len(mail.outbox) == 1
    typed = office.get(f"/staff/accounts/{accounts['typed'].pk}/").content.decode()
    assert '<p id="sign-in">Password.</p>' in typed and "/invite/" not in typed


def test_sent_again_in_bulk_only_those_waiting_get_it_and_the_others_are_named_with_why(office, accounts):
    office.post("/staff/accounts/new/", {"username": "second", "email": "second@example.org", "is_active": "on",
                                         "role": Role.ANALYST})
    mail.outbox.clear()
    chosen = [user.pk for user in accounts.values()] + [User.objects.get(username="second").pk, 10 ** 9]
    page = office.post("/staff/accounts/invite/", {"user": chosen, "next": "/staff/accounts/"}, follow=True)
    text = page.content.decode()
    assert "The invitation to set a password was sent again to 2 accounts: second, waiting." in text
    assert ("Not sent to gone (deactivated); nomail (has no email address); sso, sso-pw (signs in with single "
            "sign-on); typed (has a password).") in text
    assert sorted(to for message in mail.outbox for to in message.to) == ["second@example.org", "waiting@example.org"]
    assert AuditEntry.objects.filter(action="password_mail_sent", detail__startswith="set-your-password email sent "
                                                                                     "again").count() == 2
    nobody = office.post("/staff/accounts/invite/", {}, follow=True).content.decode()
    assert "Choose at least one account." in nobody


def test_an_invitation_is_sent_again_at_most_the_limit_per_account_and_the_refusal_is_audited(office, accounts,
                                                                                             settings):
    settings.STAFF_INVITATION_RATE_PER_ACCOUNT = "2/h"
    waiting = accounts["waiting"]
    for _ in range(2):
        office.post(f"/staff/accounts/{waiting.pk}/invite/")
    page = office.post("/staff/accounts/invite/", {"user": [waiting.pk, accounts["typed"].pk]}, follow=True)
    assert "Not sent again to waiting: it was sent too often just now. Try again in" in page.content.decode()
    assert len(mail.outbox) == 2
    assert AuditEntry.objects.filter(action="password_mail_sent").order_by("id").last().detail == (
        "set-your-password email not sent again to waiting: sent too often (STAFF_INVITATION_RATE_PER_ACCOUNT 2/h)")
    # Another account's invitations are counted apart.
    second = account("second")
    office.post(f"/staff/accounts/{second.pk}/invite/")
    assert mail.outbox[-1].to == ["second@example.org"]


def test_with_local_passwords_off_the_list_shows_single_sign_on_and_sends_no_invitation(office, accounts, settings):
    settings.STAFF_LOCAL_PASSWORDS = False
    page = office.get("/staff/accounts/").content.decode()
    assert sign_in_cell(page, "sso") == "Single sign-on" == sign_in_cell(page, "sso-pw")
    assert sign_in_cell(page, "waiting") == "Not signed in yet" == sign_in_cell(page, "typed")
    assert "Send the invitation again" not in page and "never_set" not in page
    assert '<option value="not_signed_on">Not signed in yet</option>' in page
    not_yet = office.get("/staff/accounts/", {"sign_in": "not_signed_on"}).content.decode()
    assert "5 accounts." in not_yet and "Choose sso" not in not_yet
    assert office.post(f"/staff/accounts/{accounts['waiting'].pk}/invite/").status_code == 404
    assert office.post("/staff/accounts/invite/", {"user": [accounts["waiting"].pk]}).status_code == 404
    assert not mail.outbox


@pytest.mark.parametrize("role", [Role.DISTRICT_COORDINATOR, Role.SCHOOL_COORDINATOR, Role.ANALYST])
def test_only_a_state_administrator_sends_an_invitation_again(client, role):
    lincoln = make_school("LIN", "Lincoln")
    waiting = account("waiting")
    make_staff(role, username="someone", schools=[lincoln], districts=[lincoln.district])
    client.post("/staff/login/", {"username": "someone", "password": "a long staff passphrase"})
    assert client.post(f"/staff/accounts/{waiting.pk}/invite/").status_code == 403
    assert client.post("/staff/accounts/invite/", {"user": [waiting.pk]}).status_code == 403
    assert not mail.outbox


def linked(user, subject):
    from django.utils import timezone

    from accounts.models import SignOnIdentity

    return SignOnIdentity.objects.create(user=user, issuer="https://idp.agency.example/realms/staff", subject=subject,
                                         linked_at=timezone.now())


def test_changing_an_accounts_email_tells_the_old_address_what_by_whom_and_when_and_removes_its_sign_on_links(
        office, settings, django_capture_on_commit_callbacks):
    from accounts.models import SignOnIdentity

    lee = make_staff(Role.ANALYST, username="lee")
    lee.email = "lee@agency.example"
    lee.save()
    linked(lee, "sub-1")
    with django_capture_on_commit_callbacks(execute=True):
        page = office.post(f"/staff/accounts/{lee.pk}/", {"email": "Lee.Moved@Elsewhere.example",
                                                         "role": Role.ANALYST, "is_active": "on"}, follow=True)
    assert "The account lee was saved." in page.content.decode()
    [message] = mail.outbox
    assert message.to == ["lee@agency.example"] and "email address of your staff account" in message.subject
    body = " ".join(message.body.split())
    assert "The email address of the staff account lee in the state survey's staff area was changed" in body
    assert "from lee@agency.example to lee.moved@elsewhere.example by office, on " in body
    assert re.search(r"on \d{4}-\d\d-\d\d \d\d:\d\d [A-Z]{3,4}\.", body), body  # when, with the zone named
    assert "single sign-on link to an identity provider was removed" in body
    assert "If you did not expect this change, tell the survey office at once" in body
    assert not SignOnIdentity.objects.exists()
    told = AuditEntry.objects.get(action="email_change_told")
    assert told.username == "office" and told.detail == (
        "lee: lee@agency.example told its email changed to lee.moved@elsewhere.example")
    assert AuditEntry.objects.filter(action="sign_on_unlinked", detail__startswith="lee: ").exists()
    with django_capture_on_commit_callbacks(execute=True):  # the name alone: nobody is told
        office.post(f"/staff/accounts/{lee.pk}/", {"email": "lee.moved@elsewhere.example", "name": "Lee",
                                                   "role": Role.ANALYST, "is_active": "on"})
    assert len(mail.outbox) == 1


def test_a_staff_file_that_changes_emails_tells_each_old_address(office, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        upload(office, GOOD)
        office.post(f"/staff/accounts/imports/{StaffUpload.objects.get().pk}/apply/")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        upload(office, GOOD.replace("ana@example.org", "ana@new.example"))
        office.post(f"/staff/accounts/imports/{StaffUpload.objects.latest('pk').pk}/apply/")
    [message] = mail.outbox
    assert message.to == ["ana@example.org"] and "to ana@new.example by office" in " ".join(message.body.split())


def test_the_account_page_lists_its_sign_on_identities_and_unlinks_one_after_a_confirm_page(office):
    from accounts.models import SignOnIdentity

    ana = make_staff(Role.ANALYST, username="ana")
    first, second = linked(ana, "subject-one"), linked(ana, "subject-two")
    page = office.get(f"/staff/accounts/{ana.pk}/").content.decode()
    assert "https://idp.agency.example/realms/staff" in page and "subject-one" in page and "subject-two" in page
    unlink = f"/staff/accounts/{ana.pk}/sign-on/{first.pk}/unlink/"
    assert f'href="{unlink}"' in page
    confirm = office.get(unlink).content.decode()
    assert "Unlink this single sign-on from ana?" in confirm and "subject-one" in confirm
    assert office.post(unlink, {}).status_code == 200 and SignOnIdentity.objects.count() == 2  # no confirm: nothing
    done = office.post(unlink, {"confirm": "on"}, follow=True).content.decode()
    assert "The single sign-on link of ana to https://idp.agency.example/realms/staff was removed." in done
    assert list(SignOnIdentity.objects.all()) == [second]
    entry = AuditEntry.objects.get(action="sign_on_unlinked")
    assert entry.username == "office" and "ana: single sign-on link removed (subject-one at" in entry.detail
    assert office.post(unlink, {"confirm": "on"}).status_code == 404  # gone
    other = make_staff(Role.ANALYST, username="other")
    assert office.get(f"/staff/accounts/{other.pk}/sign-on/{second.pk}/unlink/").status_code == 404


def test_only_a_superuser_unlinks_another_state_administrators_sign_on_and_coordinators_never_do(office, client):
    from django.test import Client

    from accounts.models import SignOnIdentity
    from respondents.tests.factories import staff_signed_in

    peer = make_staff(Role.STATE_ADMIN, username="peer")
    identity = linked(peer, "peer-subject")
    unlink = f"/staff/accounts/{peer.pk}/sign-on/{identity.pk}/unlink/"
    page = office.get(f"/staff/accounts/{peer.pk}/").content.decode()
    assert "peer-subject" in page and unlink not in page
    refused = office.post(unlink, {"confirm": "on"})
    assert refused.status_code == 403 and "Only a superuser changes another state administrator" in (
        refused.content.decode())
    coordinator = Client()
    staff_signed_in(coordinator, make_staff(Role.SCHOOL_COORDINATOR, username="coord"))
    assert coordinator.post(unlink, {"confirm": "on"}).status_code == 403
    assert SignOnIdentity.objects.count() == 1
    root = Client()
    User.objects.create_superuser(username="root", password=PASSWORD_ROOT)
    root.post("/staff/login/", {"username": "root", "password": PASSWORD_ROOT})
    assert root.post(unlink, {"confirm": "on"}).status_code == 302 and not SignOnIdentity.objects.exists()


def test_bulk_deactivation_leaves_out_other_state_administrators_and_superusers_and_says_why(office):
    peer, analyst = make_staff(Role.STATE_ADMIN, username="peer"), make_staff(Role.ANALYST, username="analyst")
    root = User.objects.create_superuser(username="root", password=PASSWORD_ROOT)
    StaffMember.objects.create(user=root, role=Role.STATE_ADMIN)
    page = office.post("/staff/accounts/deactivate/", {"user": [peer.pk, analyst.pk, root.pk]}).content.decode()
    assert "Deactivate 1 account?" in page and "2 of those chosen are left out: only a superuser changes" in page
    office.post("/staff/accounts/deactivate/", {"user": [peer.pk, analyst.pk, root.pk], "confirm": "on"})
    assert list(User.objects.filter(is_active=False).values_list("username", flat=True)) == ["analyst"]
