"""Staff passwords by email, on the embedded default (Django's in-memory outbox, Celery in-process): the "set your
password" email of a new account, the reset (asked in the request, answered by a task), the two kinds of link and
their lifetimes, their limits and audit entries. The same through a real SMTP server and a browser:
staff/tests/test_stack_email_and_sign_on.py."""
import re
from datetime import datetime, timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.db import connection
from django.test import TestCase
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts.models import AuditEntry, SignOnIdentity, StaffMember
from respondents.tests.factories import make_staff
from staff.tests.helpers import PASSWORD, office_signed_in

pytestmark = pytest.mark.django_db
Action = AuditEntry.Action
NEW_PASSWORD = "violet harbour lantern 42"


def link_in(message):
    return re.search(r"https?://\S+/staff/password/(set|reset)/\S+/", message.body).group(0)


def path_of(link):
    return "/" + link.split("/", 3)[3]


def uid_of(user):
    return urlsafe_base64_encode(force_bytes(user.pk))


def staff_with_email(username, email, **kwargs):
    user = make_staff(StaffMember.Role.ANALYST, username=username, **kwargs)
    user.email = email
    user.save()
    return user


def ask_reset(client, email, **extra):
    """Ask for a reset as a browser would; the task it queues runs (in-process) once the request is answered."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return client.post("/staff/password/reset/", {"email": email}, follow=True, **extra)


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
    staff_with_email("okafor", "Okafor@Agency.example")
    page = ask_reset(client, "okafor@agency.example")
    assert "Check your email" in page.content.decode()
    [message] = mail.outbox
    assert message.to == ["okafor@agency.example"] and "okafor" in message.body  # stored normalised
    assert f"{settings.STAFF_SITE_URL}/staff/password/reset/" in message.body

    unknown = ask_reset(client, "nobody@agency.example")
    assert unknown.content.decode() == page.content.decode().replace("okafor@agency.example", "nobody@agency.example")
    assert len(mail.outbox) == 1
    details = list(AuditEntry.objects.filter(action=Action.PASSWORD_RESET_ASKED).order_by("pk")
                   .values_list("detail", flat=True))
    assert details == ["reset asked for okafor@agency.example: sent to okafor",
                       "reset asked for nobody@agency.example: no active staff account has this address: nothing sent"]

    set_password(client, link_in(message))
    assert get_user_model().objects.get(username="okafor").check_password(NEW_PASSWORD)


def test_a_reset_link_names_the_staff_site_never_the_host_the_request_gave(client, settings):
    settings.ALLOWED_HOSTS = ["*"]
    staff_with_email("okafor", "okafor@agency.example")
    ask_reset(client, "okafor@agency.example", HTTP_HOST="attacker.example")
    [message] = mail.outbox
    assert link_in(message).startswith(f"{settings.STAFF_SITE_URL}/staff/password/reset/")
    assert "attacker.example" not in message.body


def test_the_reset_request_reads_no_account_and_queues_the_same_work_whether_the_address_has_one_or_not(client):
    """The answer takes as long either way: the lookup and the email are the task's (run here once each request is
    answered), so neither request reads the users' table, and both queue one task."""
    staff_with_email("okafor", "okafor@agency.example")
    queries, queued = {}, {}
    for email in ("okafor@agency.example", "nobody@agency.example"):
        before = (len(mail.outbox), AuditEntry.objects.count())
        with TestCase.captureOnCommitCallbacks() as callbacks, CaptureQueriesContext(connection) as seen:
            assert client.post("/staff/password/reset/", {"email": email}).status_code == 302
        assert (len(mail.outbox), AuditEntry.objects.count()) == before  # nothing sent or audited by the request
        queries[email], queued[email] = [query["sql"] for query in seen.captured_queries], len(callbacks)
        for callback in callbacks:
            callback()
    users = get_user_model()._meta.db_table  # auth_user_groups too
    assert not any(users in sql for sqls in queries.values() for sql in sqls), queries
    assert queries["okafor@agency.example"] == queries["nobody@agency.example"]
    assert queued == {"okafor@agency.example": 1, "nobody@agency.example": 1}
    assert [message.to for message in mail.outbox] == [["okafor@agency.example"]]
    assert sorted(AuditEntry.objects.filter(action=Action.PASSWORD_RESET_ASKED).values_list("detail", flat=True)) == [
        "reset asked for nobody@agency.example: no active staff account has this address: nothing sent",
        "reset asked for okafor@agency.example: sent to okafor"]


def test_the_task_audits_the_ask_at_the_time_it_was_asked_from_the_asker_s_address():
    from staff.tasks import password_reset_send_task

    staff_with_email("okafor", "okafor@agency.example")
    asked = timezone.now() - timedelta(minutes=3)
    assert password_reset_send_task.delay(email="okafor@agency.example", address="198.51.100.4",
                                          asked_at=asked.isoformat()).get() == 1
    entry = AuditEntry.objects.get(action=Action.PASSWORD_RESET_ASKED)
    assert (entry.at, entry.address, entry.username) == (asked, "198.51.100.4", "okafor@agency.example")


def test_no_reset_for_a_deactivated_account_or_one_without_a_staff_role(client):
    gone = staff_with_email("gone", "gone@agency.example")
    gone.is_active = False
    gone.save()
    get_user_model().objects.create_user(username="plain", email="plain@agency.example", password=PASSWORD)
    for email in ("gone@agency.example", "plain@agency.example"):
        assert ask_reset(client, email).status_code == 200
    assert not mail.outbox


def test_resets_for_one_address_stop_after_the_hourly_limit_and_say_so_only_in_the_audit_log(client, settings):
    settings.PASSWORD_RESET_RATE_PER_EMAIL = "2/h"
    staff_with_email("many", "many@agency.example")
    for _ in range(3):
        assert "Check your email" in ask_reset(client, "many@agency.example").content.decode()
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
        assert ask_reset(client, typed).redirect_chain[-1][1] == 302
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
        assert "Check your email" in ask_reset(client, f"x{number}@agency.example").content.decode()
    with TestCase.captureOnCommitCallbacks() as callbacks:
        refused = client.post("/staff/password/reset/", {"email": "x9@agency.example"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0 and not callbacks
    assert "Too many requests" in refused.content.decode()
    assert AuditEntry.objects.filter(action=Action.PASSWORD_RESET_ASKED).count() == 3


# ---------------------------------------------------------------- two kinds of link, each with its lifetime

@pytest.fixture
def set_tokens():
    from accounts.passwords import password_set_tokens

    return password_set_tokens


@pytest.fixture
def reset_tokens():
    from accounts.passwords import password_reset_tokens

    return password_reset_tokens


def later(tokens, monkeypatch, **delta):
    """Make ``tokens`` see the clock ``delta`` ahead (Django's own tests move a generator's ``_now``)."""
    monkeypatch.setattr(tokens, "_now", lambda: datetime.now() + timedelta(**delta))


def test_a_reset_link_works_for_an_hour_and_a_set_your_password_link_for_a_week(
        client, monkeypatch, django_capture_on_commit_callbacks, set_tokens, reset_tokens):
    office_signed_in(client)
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/staff/accounts/new/", {"username": "rivera", "email": "rivera@district.example",
                                             "is_active": "on", "role": "analyst"})
    client.logout()
    staff_with_email("okafor", "okafor@agency.example")
    ask_reset(client, "okafor@agency.example")
    invitation, reset = mail.outbox
    assert "the link works once, for 7 days" in invitation.body and "a reset link works for\n1 hour" in invitation.body
    assert "the link works once, for 1 hour" in reset.body

    later(reset_tokens, monkeypatch, minutes=61)
    later(set_tokens, monkeypatch, days=6, hours=23)
    assert "This link does not work any more" in client.get(path_of(link_in(reset)), follow=True).content.decode()
    assert "older than 1 hour" in client.get(path_of(link_in(reset)), follow=True).content.decode()
    assert "Your password is set" in set_password(client, link_in(invitation)).content.decode()

    monkeypatch.undo()
    ask_reset(client, "okafor@agency.example")
    later(reset_tokens, monkeypatch, minutes=59)
    assert "Your password is set" in set_password(client, link_in(mail.outbox[-1])).content.decode()


def test_a_reset_link_s_lifetime_is_a_setting_and_its_email_says_it(client, settings):
    settings.PASSWORD_RESET_LINK_SECONDS = 30 * 60
    staff_with_email("okafor", "okafor@agency.example")
    ask_reset(client, "okafor@agency.example")
    assert "the link works once, for 30 minutes" in mail.outbox[0].body


def test_each_page_takes_only_its_own_kind_of_link(client, set_tokens):
    user = staff_with_email("okafor", "okafor@agency.example", password=None)
    ask_reset(client, "okafor@agency.example")
    reset_path = path_of(link_in(mail.outbox[0]))
    uid, reset_token = reset_path.rstrip("/").split("/")[-2:]
    assert uid == uid_of(user)
    set_token = set_tokens.make_token(user)
    for path in (f"/staff/password/set/{uid}/{reset_token}/", f"/staff/password/reset/{uid}/{set_token}/"):
        assert "This link does not work any more" in client.get(path, follow=True).content.decode(), path
    # Nor through the session's token: a set-your-password link opened first does not open the reset page.
    client.get(f"/staff/password/set/{uid}/{set_token}/")
    page = client.get(f"/staff/password/reset/{uid}/set-password/")
    assert "This link does not work any more" in page.content.decode()
    assert "Set your password" in client.get(reset_path, follow=True).content.decode()


def test_a_link_stops_working_once_the_account_is_deactivated(client, set_tokens, reset_tokens):
    user = staff_with_email("okafor", "okafor@agency.example")
    ask_reset(client, "okafor@agency.example")
    invitation = set_tokens.make_token(user)
    user.is_active = False
    user.save()
    reset = path_of(link_in(mail.outbox[0]))
    for path in (reset, f"/staff/password/set/{uid_of(user)}/{invitation}/"):
        assert "This link does not work any more" in client.get(path, follow=True).content.decode(), path
    assert not reset_tokens.check_token(user, reset.rstrip("/").split("/")[-1])


def test_an_account_linked_to_single_sign_on_gets_no_local_reset_unless_a_setting_allows_it(
        client, settings, reset_tokens):
    user = staff_with_email("okafor", "okafor@agency.example")
    staff_with_email("okafor-local", "okafor@agency.example")
    SignOnIdentity.objects.create(user=user, issuer="https://login.agency.example", subject="s-1",
                                  linked_at=timezone.now())
    page = ask_reset(client, "okafor@agency.example")
    assert "Check your email" in page.content.decode()
    assert [message.body.count("okafor-local") for message in mail.outbox] == [1]
    assert AuditEntry.objects.get(action=Action.PASSWORD_RESET_ASKED).detail == (
        "reset asked for okafor@agency.example: sent to okafor-local; not sent to okafor: signs in with single sign-on")
    # A link made before the account was linked opens nothing either.
    page = client.get(f"/staff/password/reset/{uid_of(user)}/{reset_tokens.make_token(user)}/", follow=True)
    assert "This link does not work any more" in page.content.decode()

    settings.PASSWORD_RESET_SIGN_ON_ACCOUNTS = True
    mail.outbox.clear()
    ask_reset(client, "okafor@agency.example")
    assert sorted(message.body.count("account okafor-local") for message in mail.outbox) == [0, 1]
    assert len(mail.outbox) == 2


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
