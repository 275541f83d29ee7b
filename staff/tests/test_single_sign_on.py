"""The staff area's side of single sign-on without a provider: its pages when it is off, the sign-in page's button
when it is on, and signing out of the provider after a single sign-on. Signing in at a real provider (Keycloak on
the stack) is staff/tests/test_stack_email_and_sign_on.py."""
from urllib.parse import parse_qs, urlsplit

import pytest

from accounts.models import StaffMember
from respondents.tests.factories import make_staff, staff_signed_in

pytestmark = pytest.mark.django_db
LOGOUT = "https://login.agency.example/realms/staff/protocol/openid-connect/logout"


def test_without_a_client_id_the_sign_on_pages_do_not_exist_and_the_sign_in_page_offers_none(client, settings):
    settings.SINGLE_SIGN_ON = False
    assert client.get("/staff/sign-on/").status_code == 404
    assert client.get("/staff/sign-on/callback/?code=x&state=y").status_code == 404
    assert "Sign in with" not in client.get("/staff/login/").content.decode()


def test_the_sign_in_page_offers_the_provider_by_name_keeping_where_to_go(client, settings):
    settings.SINGLE_SIGN_ON, settings.OIDC_PROVIDER_NAME = True, "Agency sign-in"
    page = client.get("/staff/login/?next=/staff/schools/").content.decode()
    assert 'href="/staff/sign-on/?next=/staff/schools/"' in page and "Sign in with Agency sign-in" in page


def test_signing_out_after_a_single_sign_on_leads_out_of_the_provider_and_back_to_sign_in_on_the_staff_site(
        client, settings):
    settings.SINGLE_SIGN_ON, settings.OIDC_RP_CLIENT_ID, settings.OIDC_OP_LOGOUT_ENDPOINT = True, "survey", LOGOUT
    settings.ALLOWED_HOSTS = ["*"]
    staff_signed_in(client, make_staff(StaffMember.Role.ANALYST))
    session = client.session
    session["oidc_id_token"] = "header.claims.signature"
    session.save()
    # The way back is the address registered with the provider, whatever Host the request named.
    response = client.post("/staff/logout/", HTTP_HOST="intranet-name.example:8443")
    where = urlsplit(response["Location"])
    assert response.status_code == 302 and f"{where.scheme}://{where.netloc}{where.path}" == LOGOUT
    assert parse_qs(where.query) == {"id_token_hint": ["header.claims.signature"], "client_id": ["survey"],
                                     "post_logout_redirect_uri": [f"{settings.STAFF_SITE_URL}/staff/login/"]}
    assert "_auth_user_id" not in client.session


def test_signing_out_after_a_password_sign_in_stays_in_the_staff_area(client, settings):
    settings.SINGLE_SIGN_ON, settings.OIDC_OP_LOGOUT_ENDPOINT = True, LOGOUT
    staff_signed_in(client, make_staff(StaffMember.Role.ANALYST))
    assert client.post("/staff/logout/")["Location"] == "/staff/login/"


def test_a_role_mapping_that_would_make_coordinators_stops_the_app_at_its_checks(settings):
    from django.core import checks

    settings.SINGLE_SIGN_ON, settings.OIDC_ROLE_MAPPING = True, {"principals": "school"}
    [error] = [message for message in checks.run_checks() if message.id == "staff.E001"]
    assert "a coordinator's schools come from the state office" in error.msg
    settings.OIDC_ROLE_MAPPING = {"survey-office": "state_admin"}
    assert not [message for message in checks.run_checks() if message.id == "staff.E001"]
