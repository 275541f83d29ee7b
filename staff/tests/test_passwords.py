"""Staff passwords by email, on the embedded default (Django's in-memory outbox): the "set your password" email of
a new account, the reset, their limits and audit entries. The same through a real SMTP server and a browser:
test_email_and_sign_on.py."""
import re

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import mail

from accounts.models import AuditEntry, StaffMember
from respondents.tests.factories import make_staff
from staff.tests.helpers import PASSWORD, office_signed_in

pytestmark = pytest.mark.django_db
Action = AuditEntry.Action
NEW_PASSWORD = "violet harbour lantern 42"


def link_in(message):
    return re.search(r"https?://\S+/staff/password/set/\S+/", message.body).group(0)


def path_of(link):
    return "/" + link.split("/", 3)[3]


def set_password(client, link, password=NEW_PASSWORD):
    page = client.get(path_of(link), follow=True)
    assert "Set your password" in page.content.decode()
    return client.post(page.redirect_chain[-1][0], {"new_password1": password, "new_password2": password},
                       follow=True)


def test_an_account_made_without_a_password_is_emailed_a_link_that_sets_one_once(
        client, django_capture_on_commit_callbacks):
    office_signed_in(client)
    with django_capture_on_commit_callbacks(execute=True):
        page = client.post("/staff/accounts/new/", {"username": "rivera", "email": "rivera@district.example", "is_active": "on",
                                                    "role": "analyst"}, follow=True)
    assert "The account rivera was saved." in page.content.decode()
    user = get_user_model().objects.get(username="rivera")
    assert not user.has_usable_password()
    [message] = mail.outbox
    assert message.to == ["rivera@district.example"] and "set your password" in message.subject
    assert "rivera" in message.body and f"{settings.STAFF_SITE_URL}/staff/password/set/" in message.body
    sent = AuditEntry.objects.get(action=Action.PASSWORD_MAIL_SENT)
    assert sent.username == "office" and "rivera <rivera@district.example>" in sent.detail

    client.logout()
    done = set_password(client, link_in(message))
    assert "Your password is set" in done.content.decode()
    assert AuditEntry.objects.filter(action=Action.PASSWORD_SET, username="rivera").exists()
    assert client.post("/staff/login/", {"username": "rivera", "password": NEW_PASSWORD}).status_code == 302
    client.logout()
    again = client.get(path_of(link_in(message)), follow=True)
    assert "This link does not work any more" in again.content.decode()


def test_a_new_account_needs_an_email_or_a_password(client):
    office_signed_in(client)
    page = client.post("/staff/accounts/new/", {"username": "nomail", "role": "analyst"})
    assert "A new account needs an email" in page.content.decode() and not get_user_model().objects.filter(
        username="nomail").exists()
    assert not mail.outbox


def test_an_account_made_with_a_password_gets_no_email(client, django_capture_on_commit_callbacks):
    office_signed_in(client)
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/staff/accounts/new/", {"username": "typed", "email": "typed@example.org",
                                             "password": PASSWORD, "role": "analyst"})
    assert get_user_model().objects.get(username="typed").check_password(PASSWORD) and not mail.outbox


def test_a_reset_goes_to_the_staff_account_with_the_address_and_the_answer_is_the_same_for_an_unknown_one(client):
    user = make_staff(StaffMember.Role.ANALYST, username="okafor")
    user.email = "Okafor@Agency.example"
    user.save()
    page = client.post("/staff/password/reset/", {"email": "okafor@agency.example"}, follow=True)
    assert "Check your email" in page.content.decode()
    [message] = mail.outbox
    assert message.to == ["okafor@agency.example"] and "okafor" in message.body  # stored normalised
    assert re.search(r"http://testserver/staff/password/set/", message.body)

    unknown = client.post("/staff/password/reset/", {"email": "nobody@agency.example"}, follow=True)
    assert unknown.content.decode() == page.content.decode().replace("okafor@agency.example", "nobody@agency.example")
    assert len(mail.outbox) == 1
    details = list(AuditEntry.objects.filter(action=Action.PASSWORD_RESET_ASKED).order_by("pk")
                   .values_list("detail", flat=True))
    assert details == ["reset asked for okafor@agency.example: sent to okafor",
                       "reset asked for nobody@agency.example: no active staff account has this address: nothing sent"]

    set_password(client, link_in(message))
    assert get_user_model().objects.get(username="okafor").check_password(NEW_PASSWORD)


def test_no_reset_for_a_deactivated_account_or_one_without_a_staff_role(client):
    gone = make_staff(StaffMember.Role.ANALYST, username="gone")
    gone.email, gone.is_active = "gone@agency.example", False
    gone.save()
    get_user_model().objects.create_user(username="plain", email="plain@agency.example", password=PASSWORD)
    for email in ("gone@agency.example", "plain@agency.example"):
        assert client.post("/staff/password/reset/", {"email": email}).status_code == 302
    assert not mail.outbox


def test_resets_for_one_address_stop_after_the_hourly_limit_and_say_so_only_in_the_audit_log(client, settings):
    settings.PASSWORD_RESET_RATE_PER_EMAIL = "2/h"
    user = make_staff(StaffMember.Role.ANALYST, username="many")
    user.email = "many@agency.example"
    user.save()
    for _ in range(3):
        assert client.post("/staff/password/reset/", {"email": "many@agency.example"}).status_code == 302
    assert len(mail.outbox) == 2
    assert AuditEntry.objects.filter(action=Action.PASSWORD_RESET_ASKED,
                                     detail__endswith="not sent: too many asked for this address").count() == 1


def test_a_reset_asked_for_any_form_of_the_address_reaches_the_account_and_one_limit_counts_them_all(
        client, settings):
    settings.PASSWORD_RESET_RATE_PER_EMAIL = "2/h"
    user = make_staff(StaffMember.Role.ANALYST, username="many")
    user.email = "many@bücher.example"
    user.save()
    for typed in ("MANY@XN--BCHER-KVA.example", "Many@Bücher.Example", "many@bu\u0308cher.example"):
        assert client.post("/staff/password/reset/", {"email": typed}).status_code == 302
    assert [message.to for message in mail.outbox] == [["many@bücher.example"]] * 2
    details = list(AuditEntry.objects.filter(action=Action.PASSWORD_RESET_ASKED).order_by("pk")
                   .values_list("detail", flat=True))
    assert details == ["reset asked for many@bücher.example: sent to many"] * 2 + [
        "reset asked for many@bücher.example: not sent: too many asked for this address"]


def test_a_reset_for_a_lookalike_of_an_address_is_refused_on_the_form_and_sends_nothing(client):
    user = make_staff(StaffMember.Role.ANALYST, username="liee")
    user.email = "liee@agency.example"
    user.save()
    page = client.post("/staff/password/reset/", {"email": "lıee@agency.example"})
    assert page.status_code == 200
    assert "This address has characters that stand for other letters (ı U+0131)" in page.content.decode()
    assert "liee@agency.example" not in page.content.decode()
    assert not mail.outbox and not AuditEntry.objects.exists()


def test_one_client_asking_too_often_is_told_to_wait(client, settings):
    settings.PASSWORD_RESET_RATE_PER_CLIENT = "3/h"
    for number in range(3):
        assert client.post("/staff/password/reset/", {"email": f"x{number}@agency.example"}).status_code == 302
    refused = client.post("/staff/password/reset/", {"email": "x9@agency.example"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many requests" in refused.content.decode()
    assert AuditEntry.objects.filter(action=Action.PASSWORD_RESET_ASKED).count() == 3


def test_a_bad_or_tampered_link_says_it_does_not_work(client):
    user = make_staff(StaffMember.Role.ANALYST, username="tamper")
    page = client.get(f"/staff/password/set/{user.pk}/not-a-token/", follow=True)
    assert "This link does not work any more" in page.content.decode()
    assert client.get("/staff/password/set/%%%/x/").status_code in (200, 404)


def test_a_bad_email_is_refused_with_its_reason(client):
    page = client.post("/staff/password/reset/", {"email": "not an address"})
    assert page.status_code == 200 and "Enter a valid email address." in page.content.decode()
    assert not AuditEntry.objects.exists()


def test_with_local_passwords_off_there_is_no_reset_no_password_sign_in_and_no_email(client, settings):
    settings.STAFF_LOCAL_PASSWORDS = False
    user = make_staff(StaffMember.Role.ANALYST, username="ssoonly")
    assert client.get("/staff/password/reset/").status_code == 404
    page = client.post("/staff/login/", {"username": "ssoonly", "password": PASSWORD}, follow=True)
    assert "Signing in with a password is turned off" in page.content.decode()
    assert not client.session.get("_auth_user_id")
    assert 'name="password"' not in client.get("/staff/login/").content.decode()
    assert user.is_active


def test_the_set_password_emails_skip_an_account_given_a_password_meanwhile_and_audit_one_without_an_address():
    from accounts.scopes import COMMAND_LINE
    from staff.password_mail import password_mails_send

    waiting = make_staff(StaffMember.Role.ANALYST, username="waiting", password=None)
    waiting.email = "waiting@agency.example"
    waiting.save()
    typed = make_staff(StaffMember.Role.ANALYST, username="typed-meanwhile")
    typed.email = "typed@agency.example"
    typed.save()
    no_address = make_staff(StaffMember.Role.ANALYST, username="no-address", password=None)
    assert password_mails_send(scope=COMMAND_LINE, user_ids=[waiting.pk, typed.pk, no_address.pk]) == 1
    assert [message.to for message in mail.outbox] == [["waiting@agency.example"]]
    assert sorted(AuditEntry.objects.filter(action=Action.PASSWORD_MAIL_SENT).values_list("detail", flat=True)) == [
        "no set-your-password email for no-address: no email address",
        "set-your-password email to waiting <waiting@agency.example>"]
