"""The staff screens through Django's test client: sign-in, roster import, people, codes, and scoping by URL."""
import csv
import html
import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import resolve

from accounts.models import AuditEntry, StaffMember
from respondents.models import Respondent
from respondents.tests.factories import make_respondents, make_staff
from respondents.tests.factories import staff_signed_in as signed_in
from rosters.models import Roster
from staff.tests.helpers import HEADER, PASSWORD, office_signed_in, staff_routes, upload

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
# ---------------------------------------------------------------- sign-in

def test_signing_in_and_a_failed_sign_in_are_audited_with_the_address(client, coordinator):
    refused = client.post("/staff/login/", {"username": "lin-coord", "password": "wrong"}, REMOTE_ADDR="192.0.2.9")
    assert refused.status_code == 200 and "Sign-in did not work" in refused.content.decode()
    response = client.post("/staff/login/", {"username": "lin-coord", "password": PASSWORD}, REMOTE_ADDR="192.0.2.9")
    assert response.status_code == 302 and response["Location"] == "/staff/"
    assert list(AuditEntry.objects.order_by("id").values_list("action", "username", "address")) == [
        ("sign_in_failed", "lin-coord", "192.0.2.9"), ("sign_in", "lin-coord", "192.0.2.9")]


def test_the_staff_area_asks_for_sign_in_and_refuses_an_account_without_a_role(client, survey):
    response = client.get(f"/staff/surveys/{survey.slug}/")
    assert response.status_code == 302 and response["Location"].startswith("/staff/login/?next=")
    get_user_model().objects.create_user(username="nobody", password=PASSWORD)
    client.post("/staff/login/", {"username": "nobody", "password": PASSWORD})
    assert client.get("/staff/").status_code == 403


def test_every_staff_url_but_signing_in_and_out_sends_a_visitor_who_is_not_signed_in_to_sign_in(client, survey):
    """``staff_view`` is the door of every view of the staff app (the survey preview beside it has a door of its
    own). A POST is sent: it reaches the door of every view, as none takes only GET."""
    urls = [re.sub(r"<str:\w+>", "LIN", re.sub(r"<id:\w+>", "1", route.replace("<slug:slug>", survey.slug)))
            for route in staff_routes() if route not in ("/staff/login/", "/staff/logout/")
            and not route.startswith(("/staff/password/", "/staff/sign-on/"))]
    urls = [url for url in urls if resolve(url).namespace == "staff"]
    assert len(urls) >= 40, urls
    for url in urls:
        response = client.post(url)
        assert response.status_code == 302 and response["Location"].startswith("/staff/login/?next="), url
        assert "no-store" in response["Cache-Control"], url


# ---------------------------------------------------------------- roster import

def test_a_coordinator_uploads_a_bad_roster_reads_the_problem_then_applies_the_fixed_one(
        client, survey, lincoln, coordinator):
    signed_in(client, coordinator)
    page = upload(client, survey, HEADER + "s1,LIN,7,student,en,Ana\ns2,LIN,7,pupil,en,Ben\n")
    text = page.content.decode()
    assert "The file has 1 problem: nothing was written" in text and "unknown role" in text and "pupil" in text
    roster = Roster.objects.get()
    problems = client.get(f"/staff/surveys/{survey.slug}/rosters/{roster.pk}/problems.csv")
    assert list(csv.reader(io.StringIO(problems.content.decode())))[1][:3] == ["3", "role", "pupil"]
    assert not Respondent.objects.exists()

    page = upload(client, survey, HEADER + "s1,LIN,7,student,en,Ana\ns2,LIN,7,student,en,Ben\n")
    assert "Dry run: nothing has been written yet." in page.content.decode() and not Respondent.objects.exists()
    roster = Roster.objects.latest("pk")
    page = client.post(f"/staff/surveys/{survey.slug}/rosters/{roster.pk}/apply/", follow=True)
    assert "Applied" in page.content.decode() and Respondent.objects.count() == 2
    progress = client.get(f"/staff/surveys/{survey.slug}/rosters/{roster.pk}/progress/").json()
    assert progress["status"] == "applied" and progress["finished"] and progress["percent"] == 100


def test_a_file_that_is_not_a_roster_gets_its_message_on_the_page(client, survey, lincoln, coordinator):
    signed_in(client, coordinator)
    page = upload(client, survey, b"\x89PNG\r\n\x1a\n\x00\x00", name="photo.csv")
    assert "This file cannot be imported" in page.content.decode()
    assert "not a CSV or XLSX file" in page.content.decode()
    empty = upload(client, survey, b"")
    assert empty.status_code == 200 and "The file was not accepted" in empty.content.decode()


def test_people_missing_from_a_new_roster_are_listed_and_can_be_withdrawn(client, survey, lincoln, coordinator):
    signed_in(client, coordinator)
    for content in (HEADER + "s1,LIN,7,student,en,\ns2,LIN,7,student,en,\n", HEADER + "s1,LIN,7,student,en,\n"):
        upload(client, survey, content)
        client.post(f"/staff/surveys/{survey.slug}/rosters/{Roster.objects.latest('pk').pk}/apply/")
    roster = Roster.objects.latest("pk")
    page = client.get(f"/staff/surveys/{survey.slug}/rosters/{roster.pk}/")
    s2 = Respondent.objects.get(external_id="s2")
    assert f'value="{s2.pk}"' in page.content.decode() and "1 person is in the survey" in page.content.decode()
    client.post(f"/staff/surveys/{survey.slug}/people/withdraw/", {"respondent": [s2.pk], "confirm": "on"})
    assert Respondent.objects.get(pk=s2.pk).is_withdrawn


# ---------------------------------------------------------------- people and codes

def test_a_reissued_code_is_shown_and_audited(client, survey, lincoln, coordinator):
    person = make_respondents(survey, external_id="s1", school=lincoln)
    signed_in(client, coordinator)
    page = client.post(f"/staff/surveys/{survey.slug}/people/{person.pk}/reissue/", {"confirm": "on"}, follow=True)
    person.refresh_from_db()
    assert person.formatted_access_code in page.content.decode() and "A new code was issued" in page.content.decode()
    entry = AuditEntry.objects.get(action="code_reissued")
    assert (entry.username, entry.school_id, entry.survey_id) == ("lin-coord", lincoln.pk, survey.pk)


def test_the_mail_merge_csv_has_every_code_of_the_school_and_is_audited(client, survey, lincoln, adams, coordinator):
    people = make_respondents(survey, 3, school=lincoln)
    make_respondents(survey, 2, school=adams)
    signed_in(client, coordinator)
    response = client.get(f"/staff/surveys/{survey.slug}/schools/LIN/codes.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert sorted(r["access_code"] for r in rows) == sorted(p.formatted_access_code for p in people)
    assert AuditEntry.objects.get(action="codes_downloaded").detail == "3 codes (mail-merge CSV)"


def test_the_slips_and_the_codes_file_name_the_survey_s_public_address_never_the_request_s(
        client, survey, lincoln, coordinator, settings):
    from pypdf import PdfReader

    settings.ALLOWED_HOSTS = ["*"]
    make_respondents(survey, 2, school=lincoln, grade="7")
    signed_in(client, coordinator)
    host = {"HTTP_HOST": "staff-intranet.example"}
    response = client.get(f"/staff/surveys/{survey.slug}/schools/LIN/codes.csv", **host)
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert settings.SURVEY_PUBLIC_URL.startswith("http")  # the embedded default's: its own login page
    assert {row["login_url"] for row in rows} == {settings.SURVEY_PUBLIC_URL}
    pdf = client.get(f"/staff/surveys/{survey.slug}/schools/LIN/slips.pdf", **host).content
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    assert settings.SURVEY_PUBLIC_URL in text and "staff-intranet" not in text


# ---------------------------------------------------------------- scoping, also by editing URLs and form fields

def test_a_school_coordinator_reaches_nobody_of_another_school(client, survey, lincoln, adams, coordinator):
    other = make_respondents(survey, external_id="a1", school=adams)
    code = other.access_code
    signed_in(client, coordinator)
    slug = survey.slug
    assert client.get(f"/staff/surveys/{slug}/schools/ADA/").status_code == 404
    assert client.get(f"/staff/surveys/{slug}/schools/ADA/codes.csv").status_code == 404
    assert client.get(f"/staff/surveys/{slug}/people/{other.pk}/").status_code == 404
    assert client.post(f"/staff/surveys/{slug}/people/{other.pk}/reissue/", {"confirm": "on"}).status_code == 404
    client.post(f"/staff/surveys/{slug}/people/withdraw/", {"respondent": [other.pk], "confirm": "on"})
    other.refresh_from_db()
    assert other.access_code == code and not other.is_withdrawn
    assert "Adams" not in client.get(f"/staff/surveys/{slug}/").content.decode()


def test_a_coordinator_cannot_open_or_apply_another_coordinators_roster(client, survey, lincoln, coordinator):
    signed_in(client, coordinator)
    upload(client, survey, HEADER + "s1,LIN,7,student,en,\n")
    roster = Roster.objects.get()
    other = make_staff(Role.SCHOOL_COORDINATOR, schools=[lincoln], username="other")
    client.logout()
    signed_in(client, other)
    for path in ("", "progress/", "problems.csv"):
        assert client.get(f"/staff/surveys/{survey.slug}/rosters/{roster.pk}/{path}").status_code == 404
    assert client.post(f"/staff/surveys/{survey.slug}/rosters/{roster.pk}/apply/").status_code == 404
    assert not Respondent.objects.exists()


def test_an_analyst_never_sees_a_code_and_changes_nothing(client, survey, lincoln):
    person = make_respondents(survey, external_id="s1", school=lincoln)
    signed_in(client, make_staff(Role.ANALYST, username="analyst"))
    slug = survey.slug
    page = client.get(f"/staff/surveys/{slug}/schools/LIN/").content.decode()
    assert "s1" in page and person.formatted_access_code not in page
    assert person.formatted_access_code not in client.get(f"/staff/surveys/{slug}/people/{person.pk}/").content.decode()
    assert client.get(f"/staff/surveys/{slug}/schools/LIN/codes.csv").status_code == 403
    assert client.get(f"/staff/surveys/{slug}/rosters/new/").status_code == 403
    assert client.post(f"/staff/surveys/{slug}/people/{person.pk}/reissue/").status_code == 403


# ---------------------------------------------------------------- query budgets

def test_the_survey_page_reads_a_fixed_number_of_queries_whatever_the_number_of_schools(
        client, survey, django_assert_max_num_queries):
    from rosters.directory import schools_ensure

    schools = schools_ensure([(f"D{n % 3}", f"District {n % 3}", f"S{n:03d}", f"School {n}") for n in range(30)])
    for school in list(schools.values())[:5]:
        make_respondents(survey, 2, school=school)
    state = make_staff(Role.STATE_ADMIN, username="state")
    signed_in(client, state)
    # session, user, staff member, survey, counts, schools, rosters (+ savepoints of the session's save)
    with django_assert_max_num_queries(8):
        page = client.get(f"/staff/surveys/{survey.slug}/")
    assert page.status_code == 200 and page.content.decode().count("/schools/S0") == 30


def test_the_school_page_reads_a_fixed_number_of_queries_whatever_the_number_of_people(
        client, survey, lincoln, coordinator, django_assert_max_num_queries):
    make_respondents(survey, 40, school=lincoln)
    signed_in(client, coordinator)
    with django_assert_max_num_queries(10):  # with the audit entry of the codes shown and the login limits read
        page = client.get(f"/staff/surveys/{survey.slug}/schools/LIN/")
    assert page.content.decode().count("/people/") == 40


def test_the_slips_pdf_of_a_school_and_of_a_grade_holds_their_codes(client, survey, lincoln, adams, coordinator):
    from pypdf import PdfReader

    sevens = make_respondents(survey, 3, school=lincoln, grade="7")
    eights = make_respondents(survey, 2, school=lincoln, grade="8")
    signed_in(client, coordinator)
    school_page = client.get(f"/staff/surveys/{survey.slug}/schools/LIN/").content.decode()
    assert "slips.pdf?grade=7" in school_page and "slips.pdf?grade=8" in school_page

    def text(response):
        assert response["Content-Type"] == "application/pdf"
        return "".join(page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages)

    whole = text(client.get(f"/staff/surveys/{survey.slug}/schools/LIN/slips.pdf"))
    assert all(p.formatted_access_code in whole for p in sevens + eights)
    grade = text(client.get(f"/staff/surveys/{survey.slug}/schools/LIN/slips.pdf?grade=8"))
    assert all(p.formatted_access_code in grade for p in eights)
    assert not any(p.formatted_access_code in grade for p in sevens)
    assert client.get(f"/staff/surveys/{survey.slug}/schools/ADA/slips.pdf").status_code == 404
    assert list(AuditEntry.objects.filter(action="slips_printed").values_list("detail", flat=True).order_by("id")) == [
        "5 slips", "2 slips, grade 8"]


def test_a_big_school_s_slips_are_prepared_by_a_task_then_downloaded_by_whoever_asked(
        client, survey, lincoln, coordinator, settings):
    from pypdf import PdfReader

    settings.SLIPS_INLINE_MAX = 2
    people = make_respondents(survey, 3, school=lincoln, grade="7")
    signed_in(client, coordinator)
    school_page = client.get(f"/staff/surveys/{survey.slug}/schools/LIN/").content.decode()
    assert "(3 slips, a cover sheet before each grade):" in school_page and "Prepare the PDF" in school_page
    assert "Code slips for grade 7 (3 slips, after a cover sheet):" in school_page
    redirected = client.get(f"/staff/surveys/{survey.slug}/schools/LIN/slips.pdf")
    assert redirected.status_code == 302 and redirected["Location"].endswith("/schools/LIN/")
    page = client.post(f"/staff/surveys/{survey.slug}/schools/LIN/slips/", {"grade": "7"}, follow=True)
    assert "Download the PDF (3 slips)" in page.content.decode()
    job_path = page.redirect_chain[-1][0]
    progress = client.get(job_path + "progress/").json()
    assert progress["finished"] and progress["percent"] == 100 and progress["text"] == "3 of 3 slips."
    pdf = b"".join(client.get(job_path + "download/").streaming_content)
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
    assert all(p.formatted_access_code in text for p in people)
    assert AuditEntry.objects.get(action="slips_printed").detail == "3 slips, grade 7 (prepared by Celery)"
    client.logout()
    signed_in(client, make_staff(Role.SCHOOL_COORDINATOR, schools=[lincoln], username="other"))
    assert client.get(job_path).status_code == 404 and client.get(job_path + "download/").status_code == 404


def test_a_roster_over_the_request_body_limit_uploads_and_other_staff_posts_keep_the_limit(
        client, survey, lincoln, coordinator, settings):
    settings.REQUEST_BODY_MAX_BYTES = 64 * 1024
    signed_in(client, coordinator)
    rows = "".join(f"s{n:06d},LIN,7,student,en,Person number {n}\n" for n in range(4000))
    assert len(HEADER + rows) > 2 * settings.REQUEST_BODY_MAX_BYTES
    page = upload(client, survey, HEADER + rows)
    assert "Dry run: nothing has been written yet." in page.content.decode()
    too_big = client.post(f"/staff/surveys/{survey.slug}/people/withdraw/",
                          {"respondent": ["1"] * 20000, "next": "x" * settings.REQUEST_BODY_MAX_BYTES})
    assert too_big.status_code == 413
    settings.UPLOAD_MAX_BYTES = 100 * 1024
    assert upload(client, survey, HEADER + rows).status_code == 413


def test_a_school_coordinator_s_completion_opens_on_their_school_by_grade_and_role_and_no_other_is_found(
        client, survey, lincoln, adams, coordinator):
    from django.utils import timezone

    people = make_respondents(survey, 4, school=lincoln, grade="7", role="student")
    make_respondents(survey, 3, school=adams, grade="8", role="student")
    Respondent.objects.filter(pk=people[0].pk).update(status="completed", last_saved_at=timezone.now(),
                                                      completed_at=timezone.now())
    Respondent.objects.filter(pk=people[1].pk).update(status="in_progress", current_page=2)
    signed_in(client, coordinator)
    base = f"/staff/surveys/{survey.slug}/monitoring/"
    page = client.get(base).content.decode()
    assert "Counts as of" in page and "Adams" not in page and "District Two" not in page
    assert "Lincoln: completion" in page and "grade 7 · student" in page and "25.0%" in page
    assert 'href="?district=D1"' not in page  # no level to click through to their school
    district = client.get(f"{base}?district=D1").content.decode()  # a district asked for by its code: theirs
    assert 'href="?school=LIN"' in district and "25.0%" in district
    school = client.get(f"{base}?school=LIN").content.decode()
    assert "grade 7 · student" in school and "25.0%" in school
    assert f'href="/staff/surveys/{survey.slug}/schools/LIN/"' in school
    assert f"/staff/surveys/{survey.slug}/schools/LIN/not-finished.pdf" in school
    # Another district's school or district is not found, not shown empty.
    assert client.get(f"{base}?school=ADA").status_code == 404
    assert client.get(f"{base}?district=D2").status_code == 404


def test_the_completion_table_sorts_and_filters_without_javascript_and_every_chart_has_its_table(
        client, survey, admin_user):
    from datetime import UTC, datetime

    from django.utils import timezone

    from respondents.tests.factories import make_school

    for code, name, done in (("A1", "Alder", 1), ("B1", "Birch", 3), ("C1", "Cedar", 0)):
        people = make_respondents(survey, 4, school=make_school(code, name, ("D1", "District One")))
        Respondent.objects.filter(pk__in=[p.pk for p in people[:done]]).update(
            status="completed", completed_at="2026-11-23T10:30:00Z")
    client.force_login(admin_user)
    base = f"/staff/surveys/{survey.slug}/monitoring/?district=D1"
    by_rate = client.get(f"{base}&sort=-rate").content.decode()
    table = by_rate[by_rate.index('class="data completion sortable"'):]
    assert table.index("Birch") < table.index("Alder") < table.index("Cedar")
    assert 'aria-sort="descending"' in table and 'href="?district=D1&amp;sort=rate"' in table
    filtered = client.get(f"{base}&below=30").content.decode()
    table = filtered[filtered.index('class="data completion sortable"'):]
    assert "Alder" in table and "Cedar" in table and "Birch" not in table and "2 of 3 shown" in table
    bad_filter = client.get(f"{base}&below=300")  # a bad filter is shown as an error, not a 500
    assert bad_filter.status_code == 200 and "less than or equal to 100" in bad_filter.content.decode()
    # Each chart: a canvas for the script, and its figures in a table readable without JavaScript.
    assert by_rate.count('<figure class="chart"') == 3 and by_rate.count('class="chart-data" open') == 3
    assert "<th scope=\"row\">Birch</th><td class=\"number\">75.0%</td>" in by_rate
    hour = timezone.localtime(datetime(2026, 11, 23, 10, tzinfo=UTC))  # in the site's time zone
    hour_cell = f'<time datetime="{hour.isoformat()}">{hour:%Y-%m-%d %H}:00 {hour:%Z}</time>'
    assert f'<th scope="row">{hour_cell}</th><td class="number">4</td>' in by_rate  # 1 + 3 + 0, its zone named
    assert 'id="monitoring-charts"' in by_rate and "vendor/chart.js/chart.umd.min" in by_rate  # hashed on S3


def test_the_not_finished_lists_name_those_left_with_codes_only_for_roles_that_may_see_them(
        client, survey, lincoln, adams, coordinator):
    from pypdf import PdfReader

    done, started, waiting = make_respondents(survey, 3, school=lincoln, grade="7", display_name="Ana")
    Respondent.objects.filter(pk=done.pk).update(status="completed")
    Respondent.objects.filter(pk=started.pk).update(status="in_progress", current_page=4)
    make_respondents(survey, 1, school=adams, grade="7")
    signed_in(client, coordinator)
    slug = survey.slug
    rows = list(csv.DictReader(io.StringIO(client.get(f"/staff/surveys/{slug}/schools/LIN/not-finished.csv")
                                           .content.decode())))
    assert sorted(r["access_code"] for r in rows) == sorted([started.formatted_access_code,
                                                             waiting.formatted_access_code])
    assert {r["status"] for r in rows} == {"in_progress", "not_started"} and rows[0]["display_name"] == "Ana"
    pdf = client.get(f"/staff/surveys/{slug}/schools/LIN/not-finished.pdf?grade=7")
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.content)).pages)
    assert waiting.formatted_access_code in text and done.formatted_access_code not in text
    assert "Lincoln (LIN) · Grade 7" in text
    assert client.get(f"/staff/surveys/{slug}/schools/ADA/not-finished.csv").status_code == 404
    assert AuditEntry.objects.filter(action="codes_downloaded").count() == 2
    client.logout()
    signed_in(client, make_staff(Role.ANALYST, username="analyst"))
    header = client.get(f"/staff/surveys/{slug}/schools/LIN/not-finished.csv").content.decode().splitlines()[0]
    assert header == "external_id,grade,role,status,current_page,current_page_name,last_saved_at"
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(
        client.get(f"/staff/surveys/{slug}/schools/LIN/not-finished.pdf").content)).pages)
    assert "Not started" in text and "In progress" in text  # the analyst still sees who has not finished
    assert waiting.formatted_access_code not in text and "Ana" not in text


def test_signing_out_is_audited(client, coordinator):
    signed_in(client, coordinator)
    assert client.post("/staff/logout/").status_code == 302
    assert list(AuditEntry.objects.order_by("id").values_list("action", "username")) == [
        ("sign_in", "lin-coord"), ("sign_out", "lin-coord")]


def test_a_withdrawn_person_is_restored_from_their_page_and_a_bad_id_list_gets_a_message(
        client, survey, lincoln, coordinator):
    person = make_respondents(survey, external_id="s1", school=lincoln)
    signed_in(client, coordinator)
    path = f"/staff/surveys/{survey.slug}/people/{person.pk}/"
    page = client.post(f"/staff/surveys/{survey.slug}/people/withdraw/",
                       {"respondent": [person.pk], "next": path, "confirm": "on"}, follow=True)
    assert page.redirect_chain[-1][0] == path and "1 withdrawn" in page.content.decode()
    assert "Restore" in page.content.decode()
    page = client.post(f"/staff/surveys/{survey.slug}/people/restore/", {"respondent": [person.pk], "next": path},
                       follow=True)
    assert "Restore 1 person?" in page.content.decode() and Respondent.objects.get(pk=person.pk).is_withdrawn
    page = client.post(f"/staff/surveys/{survey.slug}/people/restore/", {"respondent": [person.pk], "next": path,
                                                                        "confirm": "on"}, follow=True)
    assert "1 restored" in page.content.decode() and not Respondent.objects.get(pk=person.pk).is_withdrawn
    page = client.post(f"/staff/surveys/{survey.slug}/people/withdraw/", {"respondent": ["x1"], "next": path},
                       follow=True)
    assert "Select a valid choice" in page.content.decode() and not Respondent.objects.get(pk=person.pk).is_withdrawn
    away = client.post(f"/staff/surveys/{survey.slug}/people/withdraw/",
                       {"respondent": [person.pk], "next": "https://elsewhere.example/", "confirm": "on"})
    assert away["Location"] == f"/staff/surveys/{survey.slug}/"  # never sent off the site


def test_a_checked_roster_discarded_from_its_page_writes_nobody(client, survey, lincoln, coordinator):
    signed_in(client, coordinator)
    upload(client, survey, HEADER + "s1,LIN,7,student,en,\n")
    roster = Roster.objects.get()
    page = client.post(f"/staff/surveys/{survey.slug}/rosters/{roster.pk}/discard/", follow=True)
    assert "The roster was discarded: nothing was applied." in page.content.decode()
    assert Roster.objects.get().status == Roster.Status.DISCARDED and not Respondent.objects.exists()
    again = client.post(f"/staff/surveys/{survey.slug}/rosters/{roster.pk}/apply/", follow=True)
    assert "cannot be applied" in again.content.decode() and not Respondent.objects.exists()


# ---------------------------------------------------------------- exports

def ask_for_export(client, survey, **fields):
    data = {"format": "csv", "answers": "values", "multiple": "joined",
            "roster_fields": ["respondent_id", "school_code", "grade"], **fields}
    return client.post(f"/staff/surveys/{survey.slug}/exports/", data)


def test_an_analyst_asks_for_an_export_watches_it_and_downloads_it_through_a_short_lived_link(
        client, survey, lincoln, adams, settings):
    import zipfile

    from django.core.files.storage import FileSystemStorage, default_storage

    from exports.models import ExportJob
    from respondents.models import District

    make_respondents(survey, 2, school=lincoln, grade="7")
    make_respondents(survey, 3, school=adams, grade="8")
    analyst = make_staff(StaffMember.Role.ANALYST, districts=[District.objects.get(code="D1")], username="d1-analyst")
    signed_in(client, analyst)
    form = client.get(f"/staff/surveys/{survey.slug}/exports/").content.decode()
    assert 'value="spss"' in form and 'value="stata"' in form and 'value="display_name"' not in form
    response = ask_for_export(client, survey, format="xlsx", multiple="columns")
    job = ExportJob.objects.get()
    assert response.status_code == 302 and response.url == f"/staff/surveys/{survey.slug}/exports/{job.pk}/"
    progress = client.get(f"/staff/surveys/{survey.slug}/exports/{job.pk}/progress/").json()
    assert progress == {"status": "done", "status_display": "Ready to download", "percent": 100, "finished": True,
                        "text": "2 of 2 respondents."}  # the analyst's district only (Celery runs in-process here)
    assert "Download the export" in client.get(response.url).content.decode()
    link = client.get(f"/staff/surveys/{survey.slug}/exports/{job.pk}/download/")
    if not isinstance(default_storage, FileSystemStorage):
        # On the stack: a presigned S3 URL (infra/tests/test_stack_s3.py follows it into MinIO).
        assert link.status_code == 302 and link.url.startswith(settings.AWS_S3_PUBLIC_URL + "/")
        return
    assert link.status_code == 302 and link.url.startswith("/staff/exports/file/")
    download = client.get(link.url)
    assert download["Content-Disposition"] == 'attachment; filename="small-xlsx.zip"'
    bundle = zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content)))
    assert sorted(bundle.namelist()) == ["small-codebook.xlsx", "small.xlsx"]
    # The link is the analyst's only, and short-lived.
    other = make_staff(StaffMember.Role.ANALYST, username="other-analyst")
    assert signed_in(Client(), other).get(link.url).status_code == 404
    settings.EXPORT_LINK_SECONDS = -1
    assert client.get(link.url).status_code == 404


def test_coordinators_have_no_exports_and_nobody_reaches_another_person_s_export(client, survey, coordinator):
    from exports.models import ExportJob

    analyst = make_staff(StaffMember.Role.ANALYST, username="state-analyst")
    signed_in(client, analyst)
    ask_for_export(client, survey)
    job = ExportJob.objects.get()
    coordinator_client = signed_in(Client(), coordinator)
    assert coordinator_client.get(f"/staff/surveys/{survey.slug}/exports/").status_code == 403
    assert coordinator_client.get(f"/staff/surveys/{survey.slug}/exports/{job.pk}/download/").status_code == 403
    assert "Export the responses" not in coordinator_client.get(f"/staff/surveys/{survey.slug}/").content.decode()
    another = signed_in(Client(), make_staff(StaffMember.Role.ANALYST, username="another-analyst"))
    assert another.get(f"/staff/surveys/{survey.slug}/exports/{job.pk}/").status_code == 404
    assert another.get(f"/staff/surveys/{survey.slug}/exports/{job.pk}/download/").status_code == 404


def test_a_bad_export_form_is_answered_with_its_errors_and_queues_nothing(client, survey):
    from exports.models import ExportJob

    signed_in(client, make_staff(StaffMember.Role.ANALYST, username="analyst"))
    response = ask_for_export(client, survey, format="sas", roster_fields=["access_code"])
    page = response.content.decode()
    assert response.status_code == 400 and "Select a valid choice" in page and not ExportJob.objects.exists()


# ---------------------------------------------------------------- surveys: load, preview, publish

@pytest.fixture
def office(client):
    """A state administrator, signed in."""
    office_signed_in(client)
    return client


def xlsform(tmp_path, **changes):
    from surveys.tests.helpers import CHOICES, page, row, workbook

    rows = [*page(row("select_one role", "role", "Role?", "¿Rol?", required="yes")),
            *page(row("text", "lesson", "Your best lesson?", "¿Su mejor clase?"), relevant="${role} = 'teacher'"),
            *page(row("text", "more", "Anything else?", "¿Algo más?"))]
    rows = changes.get("rows", rows)
    return workbook(tmp_path / "form.xlsx", rows, CHOICES).read_bytes()


def test_the_survey_office_loads_an_xlsform_previews_it_and_publishes_it(office, tmp_path):
    from surveys.models import Survey

    file = SimpleUploadedFile("form.xlsx", xlsform(tmp_path))
    response = office.post("/staff/surveys/import/", {"file": file})
    assert (response.status_code, response["Location"]) == (302, "/staff/surveys/climate_xls/preview/")
    assert Survey.objects.get(slug="climate_xls").status == "draft"
    assert AuditEntry.objects.filter(action="survey_loaded", survey__slug="climate_xls").exists()

    page = office.get("/staff/surveys/climate_xls/preview/").content.decode()
    assert "Role?" in page and "Page 2</a> (not asked for these answers)" in page
    teacher = office.get("/staff/surveys/climate_xls/preview/?page=2&language=es&answer-role=teacher")
    page = teacher.content.decode()
    assert "¿Su mejor clase?" in page and 'lang="es"' in page and "Página 2 de 3" in page
    student = office.get("/staff/surveys/climate_xls/preview/?page=2&answer-role=student").content.decode()
    assert "This page does not apply to a respondent with these answers" in student

    response = office.post("/staff/surveys/climate_xls/publish/", {"confirm": "on"}, follow=True)
    assert "Published: respondents can take it." in response.content.decode()
    assert Survey.objects.get(slug="climate_xls").status == "open"
    assert AuditEntry.objects.filter(action="survey_published").count() == 1


def test_the_preview_lists_what_loading_a_form_noted_and_the_forms_own_version(office, tmp_path):
    from surveys.tests.helpers import workbook

    header = ["type", "name", "label", "media::image"]
    path = workbook(tmp_path / "Clinic visits.xlsx", [["text", "village", "Village", "v.png"]], None,
                    [["form_title", "version"], ["Clinic visits", "2026-11"]], survey_header=header)
    response = office.post("/staff/surveys/import/", {"file": SimpleUploadedFile(path.name, path.read_bytes())})
    assert response["Location"] == "/staff/surveys/Clinic_visits/preview/"
    page = html.unescape(office.get(response["Location"]).content.decode())
    assert "The form's own version: 2026-11." in page
    assert "What loading the form noted (3): nothing here was refused" in page
    for warning in ("survey sheet, column media::image: ignored: this survey system does not use it",
                    "settings sheet, column form_id: none given: 'Clinic_visits', from the file's name",
                    "survey sheet: page 1 made of questions outside any field-list group"):
        assert warning in page, warning


def test_the_preview_says_which_languages_the_interface_lacks(office, tmp_path):
    from surveys.tests.helpers import workbook

    header = ["type", "name", "label::English (en)", "label::Kiswahili (sw)"]
    path = workbook(tmp_path / "ustawi.xlsx", [["text", "village", "Village", "Kijiji"]], None, False,
                    survey_header=header)
    office.post("/staff/surveys/import/", {"file": SimpleUploadedFile(path.name, path.read_bytes())})
    page = html.unescape(office.get("/staff/surveys/ustawi/preview/?language=sw").content.decode())
    assert "Offered in English (en), Swahili (sw)." in page and "Kijiji" in page
    assert "Swahili (sw): the site's interface has no catalogue in it. Respondents read the survey's own texts in " \
           "Swahili, and the interface's words (buttons, messages) in English." in page
    assert "English (en): the site's interface" not in page


def test_a_workbook_with_problems_lists_every_one_and_writes_nothing(office, tmp_path):
    from surveys.models import Survey
    from surveys.tests.helpers import page, row

    rows = [*page(row("select_one role", "role", "Role?", "¿Rol?"), row("geoshape", "x", "X", "X"),
                  row("text", "t", "T", "T", relevant="${nobody} = 'a'"))]
    file = SimpleUploadedFile("form.xlsx", xlsform(tmp_path, rows=rows))
    response = office.post("/staff/surveys/import/", {"file": file})
    page_html = response.content.decode()
    assert response.status_code == 400 and "The survey has 2 problems: nothing was written" in page_html
    assert "survey sheet, row 4, column type: &#x27;geoshape&#x27;: not supported (location capture" in page_html
    assert "survey sheet, row 5, column relevant: there is no question &#x27;nobody&#x27;" in page_html
    assert not Survey.objects.exists()


def test_publishing_a_survey_lacking_a_translation_lists_what_is_missing(office, tmp_path):
    from surveys.models import Survey
    from surveys.tests.helpers import page, row

    rows = [*page(row("text", "t", "Tell us", ""))]
    office.post("/staff/surveys/import/", {"file": SimpleUploadedFile("form.xlsx", xlsform(tmp_path, rows=rows))})
    response = office.post("/staff/surveys/climate_xls/publish/", {"confirm": "on"}, follow=True)
    assert "Not published" in response.content.decode()
    assert "page 1, question &#x27;t&#x27;, prompt: no Spanish (es) text" in response.content.decode()
    assert Survey.objects.get().status == "draft"


def test_a_new_version_from_the_staff_area_refuses_what_would_strand_answers(office, tmp_path):
    from respondents.tests.factories import login, save_page
    from surveys.models import Survey
    from surveys.services import status_open
    from surveys.tests.helpers import page, row

    office.post("/staff/surveys/import/", {"file": SimpleUploadedFile("form.xlsx", xlsform(tmp_path))})
    survey = status_open(survey=Survey.objects.get())
    taker = Client()
    login(taker, make_respondents(survey))
    save_page(taker, 1, {"q-role": "teacher"})
    rows = [*page(row("select_one role", "role", "Who are you?", "¿Quién es?", required="yes")),
            *page(row("text", "more", "Anything else?", "¿Algo más?"))]
    # The lesson question (no answers yet) goes; the role question gets new words: version 2.
    response = office.post("/staff/surveys/import/", {"file": SimpleUploadedFile(
        "form.xlsx", xlsform(tmp_path, rows=rows)), "new_version": "on"})
    assert response.status_code == 302 and Survey.objects.get().version == 2
    assert "Who are you?" in taker.get("/take/page/1/").content.decode()
    rows = [*page(row("text", "more", "Anything else?", "¿Algo más?"))]
    response = office.post("/staff/surveys/import/", {"file": SimpleUploadedFile(
        "form.xlsx", xlsform(tmp_path, rows=rows)), "new_version": "on"})
    assert response.status_code == 400
    assert "question &#x27;role&#x27; has answers: it cannot be removed" in response.content.decode()
    assert Survey.objects.get().version == 2


@pytest.mark.parametrize("role", [Role.DISTRICT_COORDINATOR, Role.SCHOOL_COORDINATOR, Role.ANALYST])
def test_only_the_state_office_loads_previews_and_publishes_surveys(client, role, survey):
    signed_in(client, make_staff(role))
    assert client.get("/staff/surveys/import/").status_code == 403
    assert client.get(f"/staff/surveys/{survey.slug}/preview/").status_code == 403
    assert client.post(f"/staff/surveys/{survey.slug}/publish/").status_code == 403
    assert Client().get(f"/staff/surveys/{survey.slug}/preview/")["Location"].startswith("/staff/login/")


def test_a_roster_whose_survey_changed_since_the_check_says_so_and_offers_to_apply_again(
        client, survey, lincoln, coordinator):
    signed_in(client, coordinator)
    upload(client, survey, HEADER + "s1,LIN,7,student,en,Ana\n")
    first = Roster.objects.latest("pk")
    upload(client, survey, HEADER + "s1,LIN,7,student,en,Ana\ns2,LIN,7,student,en,Ben\n")
    second = Roster.objects.latest("pk")
    client.post(f"/staff/surveys/{survey.slug}/rosters/{first.pk}/apply/")
    page = client.post(f"/staff/surveys/{survey.slug}/rosters/{second.pk}/apply/", follow=True).content.decode()
    assert "Nothing was applied" in page and "the counts below are new" in page and "Apply this roster" in page
    assert Respondent.objects.count() == 1
    client.post(f"/staff/surveys/{survey.slug}/rosters/{second.pk}/apply/")
    assert Respondent.objects.count() == 2
