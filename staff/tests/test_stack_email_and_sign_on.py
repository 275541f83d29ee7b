"""Staff email and single sign-on on the live stack, in a browser: the "set your password" and reset emails sent by
the app (its Celery worker for the first) through SMTP to Mailpit, whose API the test reads to click the link in
the email itself; and signing in with Keycloak, the stack's OpenID Connect provider, through nginx and gunicorn.

This drives the stack's own app and database: accounts are made with manage.py as the app runs, and the
provider's users through Keycloak's admin API.
"""
import json
import re
import time
import urllib.parse
import urllib.request
import uuid

import pytest
from playwright.sync_api import expect

from deploy.keycloak_realm import KeycloakAdmin
from deploy.tests import stack

pytestmark = [pytest.mark.stack, pytest.mark.browser]

PASSWORD = "stack test passphrase 1"
STAFF = """
from django.contrib.auth import get_user_model
from accounts.models import StaffMember
user = get_user_model().objects.create_user(username="{username}", email="{email}", password={password!r})
StaffMember.objects.create(user=user, role=StaffMember.Role.{role})
"""
AUDIT = """
from accounts.models import AuditEntry
for entry in AuditEntry.objects.filter(username__in={names!r}).order_by("pk"):
    print(entry.action, "|", entry.detail)
"""


@pytest.fixture
def app_url():
    stack.forget_login_failures()
    return f"http://127.0.0.1:{stack.conf()['STACK_NGINX_PORT']}"


def mailpit_message(to, *, after=0, timeout=60):
    """The text of the newest email to ``to`` that Mailpit received (the ``after``-th and later), once it has."""
    base = f"http://127.0.0.1:{stack.conf()['STACK_MAILPIT_HTTP_PORT']}/api/v1"
    query = urllib.parse.urlencode({"query": f'to:"{to}"'})
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"{base}/search?{query}", timeout=10) as response:
            found = json.load(response)["messages"]
        if len(found) > after:
            with urllib.request.urlopen(f"{base}/message/{found[0]['ID']}", timeout=10) as response:
                message = json.load(response)
            return message["Subject"], message["Text"]
        time.sleep(0.5)
    raise AssertionError(f"no email to {to} reached Mailpit within {timeout} s")


def link_in(text):
    return re.search(r"http://\S+/staff/password/(set|reset)/\S+/", text).group(0)


def sign_in(page, app_url, username, password):
    page.goto(app_url + "/staff/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in", exact=True).click()


def set_password_from(page, link, password):
    page.goto(link)
    expect(page.get_by_role("heading", name="Set your password")).to_be_visible()
    page.get_by_label("New password", exact=True).fill(password)
    page.get_by_label("New password confirmation").fill(password)
    page.get_by_role("button", name="Set the password").click()
    expect(page.get_by_role("heading", name="Your password is set")).to_be_visible()


def test_a_new_account_sets_its_password_from_the_email_and_resets_it_later_from_another(page, app_url):
    tag = uuid.uuid4().hex[:8]
    stack.app_manage("shell", "--no-imports", "-c", STAFF.format(username=f"office-{tag}", email="",
                                                                 password=PASSWORD, role="STATE_ADMIN"))
    email = f"new-{tag}@district.survey.test"
    sign_in(page, app_url, f"office-{tag}", PASSWORD)
    page.goto(app_url + "/staff/accounts/new/")
    page.get_by_label("User name").fill(f"new-{tag}")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Role").select_option("analyst")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text(f"The account new-{tag} was saved.")).to_be_visible()
    page.get_by_role("button", name="Sign out").click()

    subject, text = mailpit_message(email)  # sent by the stack's Celery worker
    assert "set your password" in subject and f"new-{tag}" in text
    set_password_from(page, link_in(text), "first chosen passphrase 7")
    sign_in(page, app_url, f"new-{tag}", "first chosen passphrase 7")
    expect(page.locator(".who")).to_contain_text(f"new-{tag}")
    page.get_by_role("button", name="Sign out").click()

    page.goto(link_in(text))  # a link works once
    expect(page.get_by_role("heading", name="This link does not work any more")).to_be_visible()

    page.goto(app_url + "/staff/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_label("Email").fill(email.upper())
    page.get_by_role("button", name="Email me a link").click()
    expect(page.get_by_role("heading", name="Check your email")).to_be_visible()
    subject, text = mailpit_message(email, after=1)
    assert subject.startswith("Reset your password")
    set_password_from(page, link_in(text), "second chosen passphrase 8")
    sign_in(page, app_url, f"new-{tag}", "second chosen passphrase 8")
    expect(page.locator(".who")).to_contain_text(f"new-{tag}")

    audit = stack.app_manage("shell", "--no-imports", "-c", AUDIT.format(names=[f"new-{tag}", email]))
    assert "password_set | password set from an emailed link" in audit
    # (asked for in capitals: recorded, limited and looked up as the one normal form, accounts/emails.py)
    assert f"password_reset_asked | reset asked for {email}: sent to new-{tag}" in audit


def test_staff_sign_in_with_keycloak_and_someone_without_a_staff_account_is_turned_away(page, app_url):
    tag = uuid.uuid4().hex[:8]
    values = stack.conf()
    keycloak = KeycloakAdmin(f"http://127.0.0.1:{values['STACK_KEYCLOAK_PORT']}", stack.password("keycloak-admin"))
    realm = values["STACK_KEYCLOAK_REALM"]
    email = f"sso-{tag}@agency.survey.test"
    stack.app_manage("shell", "--no-imports", "-c", STAFF.format(username=f"analyst-{tag}", email=email,
                                                                 password=None, role="ANALYST"))
    keycloak.user_create(realm, username=f"kc-{tag}", email=email, password=PASSWORD, first_name="Ada",
                         last_name="Obi")
    keycloak.user_create(realm, username=f"stranger-{tag}", email=f"stranger-{tag}@agency.survey.test",
                         password=PASSWORD, first_name="Sam", last_name="Stranger")

    page.goto(app_url + "/staff/login/")
    page.get_by_role("link", name="Sign in with Keycloak").click()
    page.locator("#username").fill(f"kc-{tag}")  # Keycloak's own sign-in page
    page.locator("#password").fill(PASSWORD)
    page.locator("#kc-login").click()
    expect(page).to_have_url(re.compile(r"/staff/$"))
    expect(page.locator(".who")).to_contain_text(f"analyst-{tag} · Analyst")
    page.get_by_role("button", name="Sign out").click()  # out of Keycloak too, and back to the sign-in page
    expect(page).to_have_url(re.compile(r"/staff/login/$"))

    # The next person at this computer: Keycloak asks again instead of signing the last one in.
    page.get_by_role("link", name="Sign in with Keycloak").click()
    expect(page.locator("#username")).to_be_visible()
    page.locator("#username").fill(f"stranger-{tag}")
    page.locator("#password").fill(PASSWORD)
    page.locator("#kc-login").click()
    expect(page).to_have_url(re.compile(r"/staff/login/$"))
    expect(page.get_by_text(f"No staff account matches stranger-{tag}@agency.survey.test")).to_be_visible()
    expect(page.locator(".who")).to_have_count(0)

    audit = stack.app_manage("shell", "--no-imports", "-c", AUDIT.format(
        names=[f"analyst-{tag}", f"stranger-{tag}@agency.survey.test"]))
    assert f"sign_in | single sign-on linked to analyst-{tag} by verified email" in audit
    assert "sign_in_failed | single sign-on refused" in audit and "No staff account matches" in audit
