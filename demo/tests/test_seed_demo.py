"""make demo's data: a survey, codes to try, and a school coordinator to try the staff area with."""
import io
import re

import pytest
from django.core.management import call_command
from django.test import Client

from respondents.models import Respondent
from surveys.models import Survey

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


def seed(*args):
    out = io.StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


def test_seed_demo_creates_the_survey_once_and_prints_codes_that_log_in(client):
    output = seed()
    codes = re.findall(r"^  ([2-9A-Z]{5}-[2-9A-Z]{5})$", output, re.M)
    assert len(codes) == 5
    assert Survey.objects.get().is_open()
    assert Respondent.objects.count() == 30
    assert client.post("/", {"access_code": codes[0]})["Location"] == "/take/"

    seed()
    assert Survey.objects.count() == 1 and Respondent.objects.count() == 30


def test_seed_demo_adds_respondents_when_the_unused_codes_run_out():
    seed("--respondents", "3", "--show", "3")
    Respondent.objects.update(status=Respondent.Status.COMPLETED)
    output = seed("--respondents", "3", "--show", "3")
    assert "Created 3 demo respondents." in output
    assert Respondent.objects.filter(status=Respondent.Status.NOT_STARTED).count() == 3
