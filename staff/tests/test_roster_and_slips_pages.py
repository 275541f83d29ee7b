"""What the roster page says once a roster is applied, and how a slips job for people without a grade is named."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from respondents.models import Respondent
from respondents.tests.factories import make_respondents
from respondents.tests.factories import staff_signed_in as signed_in
from rosters.models import Roster

pytestmark = pytest.mark.django_db


def test_a_roster_page_after_apply_says_what_applying_did_not_what_the_file_would_do(
        client, survey, lincoln, coordinator):
    signed_in(client, coordinator)
    roster_csv = "external_id,school_code,grade,role\ns1,LIN,7,student\nt1,LIN,,teacher\n"
    checked = client.post(f"/staff/surveys/{survey.slug}/rosters/new/",
                          {"file": SimpleUploadedFile("roster.csv", roster_csv.encode())}, follow=True)
    assert "What the file would do, per school and role" in checked.content.decode()
    roster = Roster.objects.get()
    applied = client.post(f"/staff/surveys/{survey.slug}/rosters/{roster.pk}/apply/", follow=True).content.decode()
    assert Respondent.objects.count() == 2
    assert "What applying the file did, per school and role" in applied
    assert "would do" not in applied


def test_a_slips_job_for_people_without_a_grade_is_named_for_them(client, survey, lincoln, coordinator, settings):
    settings.SLIPS_INLINE_MAX = 1
    make_respondents(survey, 2, school=lincoln, role="teacher")
    signed_in(client, coordinator)
    page = client.post(f"/staff/surveys/{survey.slug}/schools/LIN/slips/", {"grade": ""}, follow=True)
    text = page.content.decode()
    assert "<h1>Code slips: Lincoln, people without a grade (teachers, parents, staff)</h1>" in text
    assert "grade (none)" not in text
