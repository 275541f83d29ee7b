"""The page of a background job while it runs (a roster's check or apply, a big school's slips, an export): a
progress bar, and the small JSON its script polls. The workers are held back (``delay`` does nothing) so that the
jobs stay queued or half done."""
import pytest

from accounts.models import StaffMember
from exports.models import ExportJob
from exports.tasks import export_job_task
from respondents.tests.factories import make_respondents, make_staff
from respondents.tests.factories import staff_signed_in as signed_in
from rosters.models import Roster, SlipsJob
from rosters.tasks import roster_apply_task, roster_check_task, slips_job_task
from staff.tests.helpers import HEADER, upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_worker(monkeypatch):
    for task in (roster_check_task, roster_apply_task, slips_job_task, export_job_task):
        monkeypatch.setattr(task, "delay", lambda *args: None)


def start(kind, client, survey):
    """Start a job of ``kind`` (its URL's word) through the page that asks for it; return the job and its page's
    path."""
    if kind == "rosters":
        upload(client, survey, HEADER + "s1,LIN,7,student,en,Ana\n")
        job = Roster.objects.latest("pk")
    elif kind == "slips":
        client.post(f"/staff/surveys/{survey.slug}/schools/LIN/slips/", {"grade": "7"})
        job = SlipsJob.objects.get()
    else:
        client.post(f"/staff/surveys/{survey.slug}/exports/", {
            "format": "csv", "answers": "values", "multiple": "joined", "roster_fields": ["grade"]})
        job = ExportJob.objects.get()
    return job, f"/staff/surveys/{survey.slug}/{kind}/{job.pk}/"


def page_and_poll(client, path):
    """Return a job's page, which must poll ``path`` + progress/, and what that poll answers."""
    page = client.get(path).content.decode()
    assert f'data-progress-url="{path}progress/"' in page
    return page, client.get(path + "progress/").json()


def test_a_roster_being_checked_shows_how_many_rows_are_read_and_its_poll_says_the_same(
        client, survey, lincoln, coordinator, no_worker):
    signed_in(client, coordinator)
    roster, path = start("rosters", client, survey)
    Roster.objects.filter(pk=roster.pk).update(rows_expected=400, rows_read=100)  # the check, a quarter through
    page, progress = page_and_poll(client, path)
    assert "Checking the file" in page and 'max="100" value="25"' in page and "100 of about 400 rows read." in page
    assert progress == {
        "status": "checking", "status_display": "Checking the file", "percent": 25, "finished": False,
        "text": "100 of about 400 rows read.", "rows_read": 100, "rows_expected": 400}


def test_a_roster_being_applied_shows_a_bar_without_steps_and_its_poll_has_no_text(
        client, survey, lincoln, coordinator, no_worker):
    signed_in(client, coordinator)
    roster, path = start("rosters", client, survey)
    roster_check_task(roster.pk)
    assert client.post(path + "apply/")["Location"] == path
    page, progress = page_and_poll(client, path)
    assert "Applying the roster" in page and "Writing every person in one transaction: all or nothing." in page
    assert 'max="100" >0%</progress>' in page  # no value: the bar moves without counting
    assert progress == {
        "status": "applying", "status_display": "Applying", "percent": 0, "finished": False, "text": "",
        "rows_read": 1, "rows_expected": 1}


def test_big_school_slips_waiting_for_the_worker_show_their_count_and_their_poll_says_the_same(
        client, survey, lincoln, coordinator, settings, no_worker):
    settings.SLIPS_INLINE_MAX = 1
    make_respondents(survey, 3, school=lincoln, grade="7")
    signed_in(client, coordinator)
    _, path = start("slips", client, survey)
    page, progress = page_and_poll(client, path)
    assert "Printing the slips" in page and 'max="100" value="0"' in page and "0 of 3 slips." in page
    assert progress == {"status": "queued", "status_display": "Waiting to start", "percent": 0, "finished": False,
                        "text": "0 of 3 slips."}
    assert client.get(path + "download/")["Location"] == path  # not ready: back to its page


def test_an_export_waiting_for_the_worker_shows_its_count_and_its_poll_says_the_same(
        client, survey, lincoln, no_worker):
    make_respondents(survey, 2, school=lincoln, grade="7")
    signed_in(client, make_staff(StaffMember.Role.STATE_ADMIN, username="office"))
    _, path = start("exports", client, survey)
    page, progress = page_and_poll(client, path)
    assert "Exporting the responses" in page and 'max="100" value="0"' in page and "0 of 2 respondents." in page
    assert progress == {"status": "queued", "status_display": "Waiting to start", "percent": 0, "finished": False,
                        "text": "0 of 2 respondents."}
    download = client.get(path + "download/")
    assert download.status_code == 302 and download["Location"] == path


@pytest.mark.parametrize("kind", ["rosters", "slips", "exports"])
def test_a_job_of_another_survey_is_not_found_under_this_one(client, survey, lincoln, no_worker, kind):
    from surveys.tests.factories import make_survey

    other = make_survey(slug="other")
    make_respondents(survey, 2, school=lincoln, grade="7")
    signed_in(client, make_staff(StaffMember.Role.STATE_ADMIN, username="office"))
    job, path = start(kind, client, survey)
    assert client.get(path).status_code == 200
    for tail in ("", "progress/"):
        assert client.get(f"/staff/surveys/{other.slug}/{kind}/{job.pk}/{tail}").status_code == 404, tail
