"""The staff account form: every problem in one round trip (the form's own and the service's), the password kept
only when nothing is wrong with it, and its inputs styled as the area's others."""
import re

import pytest

from accounts.models import StaffMember
from respondents.tests.factories import make_school, make_staff
from staff.tests.helpers import office_signed_in

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
PASSWORD = "a long staff passphrase"
GOOD_PASSWORD = "Another long passphrase 7"


@pytest.fixture
def office(client):
    office_signed_in(client, username="state")
    return client


def errors_of(page):
    """The error summary's items, as shown."""
    text = page.content.decode()
    summary = text[text.index('id="error-summary"'):]
    return summary[:summary.index("</ul>")]


def test_a_new_account_with_a_bad_email_unknown_schools_and_a_weak_password_shows_every_problem_at_once(office):
    make_school("LIN", "Lincoln")
    page = office.post("/staff/accounts/new/", {
        "username": "state", "email": "not-an-address", "password": "password", "role": Role.SCHOOL_COORDINATOR,
        "school_codes": "LIN, NOPE", "district_codes": "D9", "is_active": "on"})
    summary = errors_of(page)
    for problem in ("Enter a valid email address.", "This user name is taken.", "This password is too common.",
                    "Not in the school directory: NOPE.", "Not in the school directory: D9."):
        assert problem in summary, problem
    assert not StaffMember.objects.filter(user__email="not-an-address").exists()


def test_a_coordinator_without_schools_and_a_missing_user_name_are_listed_together(office):
    page = office.post("/staff/accounts/new/", {"username": "", "password": GOOD_PASSWORD,
                                                "role": Role.DISTRICT_COORDINATOR})
    summary = errors_of(page)
    assert "User name: This field is required." in summary
    assert "A district coordinator needs at least one district." in summary


def test_a_good_password_is_kept_when_another_field_is_refused_and_a_refused_one_is_not(office):
    page = office.post("/staff/accounts/new/", {"username": "coord", "email": "nope", "password": GOOD_PASSWORD,
                                                "role": Role.ANALYST}).content.decode()
    assert f'value="{GOOD_PASSWORD}"' in page and 'autocomplete="new-password"' in page
    page = office.post("/staff/accounts/new/", {"username": "coord", "email": "nope", "password": "password",
                                                "role": Role.ANALYST}).content.decode()
    assert 'value="password"' not in page and "This password is too common." in page


def test_an_administrator_taking_away_their_own_role_sees_it_with_the_forms_own_errors(office):
    from django.contrib.auth import get_user_model

    me = get_user_model().objects.get(username="state")
    page = office.post(f"/staff/accounts/{me.pk}/", {"role": Role.ANALYST, "email": "bad", "is_active": "on"})
    summary = errors_of(page)
    assert "You cannot take away your own administrator role or account." in summary
    assert "Enter a valid email address." in summary
    assert StaffMember.objects.get(user=me).role == Role.STATE_ADMIN


def test_another_state_administrators_email_role_and_sign_in_are_shown_fixed_and_a_forged_post_changes_only_the_name(
        office):
    peer = make_staff(Role.STATE_ADMIN, username="peer")
    peer.email = "peer@agency.example"
    peer.save()
    page = office.get(f"/staff/accounts/{peer.pk}/").content.decode()
    assert "Only a superuser changes another state administrator's email, role, sign-in" in page
    for field in ("email", "role", "is_active", "name"):
        [tag] = re.findall(f'<(?:input|select)[^>]*id="id_{field}"[^>]*>', page)
        assert ("disabled" in tag) == (field != "name"), tag
    office.post(f"/staff/accounts/{peer.pk}/", {"email": "peer@attacker.example", "role": Role.ANALYST,
                                               "is_active": "", "name": "Pat Peer"})
    peer.refresh_from_db()
    assert (peer.email, peer.is_active, peer.staff_member.role, peer.staff_member.name) == (
        "peer@agency.example", True, Role.STATE_ADMIN, "Pat Peer")


def test_a_superusers_account_page_says_why_it_cannot_be_changed_and_a_post_is_refused(office):
    from django.contrib.auth import get_user_model

    root = get_user_model().objects.create_superuser(username="root", email="root@agency.example", password="x" * 20)
    StaffMember.objects.create(user=root, role=Role.STATE_ADMIN)
    page = office.get(f"/staff/accounts/{root.pk}/").content.decode()
    assert "root is a superuser: only a superuser changes it, in /admin/." in page and "<form method=\"post\" novalidate>" not in page
    refused = office.post(f"/staff/accounts/{root.pk}/", {"email": "root@attacker.example", "role": Role.STATE_ADMIN,
                                                         "is_active": "on"})
    assert refused.status_code == 403 and "only a superuser changes it, in /admin/" in refused.content.decode()
    assert get_user_model().objects.get(pk=root.pk).email == "root@agency.example"
    plain = get_user_model().objects.create_user(username="plain")
    assert office.get(f"/staff/accounts/{plain.pk}/").status_code == 404  # no staff role: no staff account page


def test_an_email_is_saved_in_its_normal_form_and_a_lookalike_is_a_field_error_naming_no_other_address(office):
    office.post("/staff/accounts/new/", {"username": "lee", "email": "Lee@BÜCHER.example", "role": Role.ANALYST,
                                         "is_active": "on"})
    assert StaffMember.objects.get(user__username="lee").user.email == "lee@bücher.example"
    page = office.post("/staff/accounts/new/", {"username": "lee2", "email": "lıee@bücher.example",
                                                "role": Role.ANALYST, "is_active": "on"})
    summary = errors_of(page)
    assert "Email: This address has characters that stand for other letters (ı U+0131)" in summary
    assert "lee@" not in summary and "another account" not in summary
    page = office.post("/staff/accounts/new/", {"username": "lee3", "email": "LEE@xn--bcher-kva.example",
                                                "role": Role.ANALYST, "is_active": "on"})
    assert "Email: This email is another account&#x27;s: lee." in errors_of(page)
    assert not StaffMember.objects.filter(user__username__in=["lee2", "lee3"]).exists()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_account_forms_inputs_look_like_the_areas_text_inputs(page, live_server):
    make_staff(Role.STATE_ADMIN, username="state")
    page.goto(live_server.url + "/staff/login/")
    page.get_by_label("User name").fill("state")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.goto(live_server.url + "/staff/accounts/new/")
    look = """element => { const s = getComputedStyle(element);
        return [s.borderTopWidth, s.borderTopColor, s.borderRadius, s.paddingLeft, s.fontSize, s.fontFamily]; }"""
    text_input = page.locator("#id_username").evaluate(look)
    for field in ("#id_email", "#id_password", "#id_role", "#id_school_codes"):
        assert page.locator(field).evaluate(look) == text_input, field
    page.get_by_role("button", name="Save").click()  # no user name, no email for the password link: both red
    red = "rgb(185, 28, 28)"
    for field in ("#id_username", "#id_email"):
        assert page.locator(field).evaluate("element => getComputedStyle(element).borderTopColor") == red, field
