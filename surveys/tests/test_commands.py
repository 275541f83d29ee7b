import io
import re

import pytest
from django.core.management import call_command

from respondents.models import Respondent
from surveys.models import Survey

pytestmark = pytest.mark.django_db


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
