"""make demo's data: a survey, codes to try, and a school coordinator to try the staff area with."""
import io
import re

import pytest
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_demo_prints_codes_and_a_coordinator_who_can_sign_in_to_the_staff_area():
    out = io.StringIO()
    call_command("seed_demo", "--respondents", "6", "--show", "2", stdout=out)
    password = re.search(r"as demo-coordinator, password (\S+) ", out.getvalue()).group(1)
    assert len(re.findall(r"^  [A-Z0-9]{5}-[A-Z0-9]{5}$", out.getvalue(), re.MULTILINE)) == 2
    client = Client()
    assert client.post("/staff/login/", {"username": "demo-coordinator", "password": password}).status_code == 302
    page = client.get("/staff/surveys/school-climate-demo/").content.decode()
    assert "Lincoln Elementary" in page and "Roosevelt High" not in page
    again = io.StringIO()
    call_command("seed_demo", stdout=again)
    assert "password shown when it was created" in again.getvalue()
