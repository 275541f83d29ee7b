"""Error pages under /staff/ (and /admin/) speak to staff and lead to the staff area's home; the respondents'
pages keep theirs, which lead to the login with an access code. Ajax gets JSON either way."""
import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import StaffMember
from respondents.tests.factories import make_staff

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
PASSWORD = "a long staff passphrase"
STAFF_HOME = """<a class="button primary" href="/staff/">Go to the staff area's home</a>"""
RESPONDENT_LOGIN = "log in with your access code"


def signed_in(user, **options):
    client = Client(**options)
    assert client.post("/staff/login/", {"username": user.username, "password": PASSWORD}).status_code == 302
    return client


def test_a_district_coordinator_on_the_exports_page_gets_the_staff_403_that_leads_to_the_staff_home(
        survey, lincoln):
    from respondents.models import District

    coordinator = make_staff(Role.DISTRICT_COORDINATOR, districts=[District.objects.get(code="D1")],
                             username="district")
    response = signed_in(coordinator).get(f"/staff/surveys/{survey.slug}/exports/")
    text = response.content.decode()
    assert response.status_code == 403 and "Your staff account cannot open this page" in text
    assert STAFF_HOME in text and RESPONDENT_LOGIN not in text and 'href="/"' not in text
    assert "Sign out" in text and "district · District coordinator" in text  # the staff header, as signed in
    assert "District coordinator may not do this" in text  # the reason, under the message


def test_an_account_without_a_staff_role_gets_the_staff_403_with_its_reason():
    get_user_model().objects.create_user(username="nobody", password=PASSWORD)
    client = Client()
    client.post("/staff/login/", {"username": "nobody", "password": PASSWORD})
    text = client.get("/staff/").content.decode()
    assert "This account has no staff role: ask a state administrator." in text and STAFF_HOME in text


def test_an_unknown_staff_address_gets_the_staff_404_and_an_unknown_respondent_address_keeps_the_respondents(
        survey, coordinator):
    client = signed_in(coordinator)
    for path in ("/staff/no-such-page/", f"/staff/surveys/{survey.slug}/people/999999/", "/staff/surveys/nope/"):
        response = client.get(path)
        text = response.content.decode()
        assert response.status_code == 404 and "Page not found" in text and STAFF_HOME in text, path
        assert "not in your schools" in text and "matches the given query" not in text, path
        assert "Sign out" in text, path
    respondent = Client().get("/no-such-page/")
    assert respondent.status_code == 404 and 'href="/staff/"' not in respondent.content.decode()
    assert "Back to the login page" in respondent.content.decode()


def test_an_expired_export_link_says_why_on_the_staff_404(survey):
    client = signed_in(make_staff(Role.STATE_ADMIN, username="office"))
    text = client.get("/staff/exports/file/not-a-signed-token/").content.decode()
    assert "This download link has expired: download the export again from its page." in text
    assert STAFF_HOME in text


def test_an_unknown_admin_address_gets_the_staff_404():
    get_user_model().objects.create_superuser(username="root", password=PASSWORD)
    client = Client()
    client.post("/admin/login/", {"username": "root", "password": PASSWORD})
    response = client.get("/admin/no-such-thing/")
    assert response.status_code == 404 and STAFF_HOME in response.content.decode()


@pytest.mark.urls("staff.tests.error_urls")
def test_a_staff_view_that_raises_gets_the_staff_500_and_a_respondent_page_the_respondents(coordinator):
    response = signed_in(coordinator, raise_request_exception=False).get("/staff/raises/")
    text = response.content.decode()
    assert response.status_code == 500 and "Something went wrong" in text and STAFF_HOME in text
    assert "tell the survey office" in text and "Your saved answers are safe" not in text
    respondent = Client(raise_request_exception=False).get("/raises/")
    assert respondent.status_code == 500 and "Your saved answers are safe" in respondent.content.decode()
    assert 'href="/staff/"' not in respondent.content.decode()


def test_an_ajax_request_of_a_staff_page_still_gets_json(survey, coordinator):
    response = signed_in(coordinator).get(f"/staff/surveys/{survey.slug}/rosters/999999/progress/",
                                          headers={"X-Requested-With": "XMLHttpRequest"})
    assert response.status_code == 404 and response.json()["saved"] is False
    assert "staff area" in response.json()["errors"]["__all__"][0]
