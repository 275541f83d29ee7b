"""The not-finished lists: CSV and PDF, pages named, grade by grade, names in any script, times as exports write
them."""
import csv
import io
from datetime import UTC, datetime

import pytest
from pypdf import PdfReader

from accounts.scopes import COMMAND_LINE
from fileformats.tables import moment_text
from monitoring.selectors import non_responders
from monitoring.tests.helpers import set_state
from monitoring.writers import non_responders_write_csv, non_responders_write_pdf
from respondents.models import Respondent
from respondents.tests.factories import make_respondents
from surveys.tests.factories import make_demo_survey, make_survey

pytestmark = pytest.mark.django_db


def test_the_not_finished_lists_name_the_page_and_put_people_without_a_grade_under_their_role(lincoln):
    survey = make_demo_survey()
    students = make_respondents(survey, 2, school=lincoln, grade="7", role="student", display_name="Ana")
    teachers = make_respondents(survey, 2, school=lincoln, role="teacher", display_name="Mr Reyes")
    make_respondents(survey, 1, school=lincoln, role="parent", display_name="Ms Ortiz")
    set_state(teachers[:1], Respondent.Status.IN_PROGRESS, 5)
    set_state(students[:1], Respondent.Status.IN_PROGRESS, 6)
    people = non_responders(scope=COMMAND_LINE, survey=survey, school=lincoln)
    stream = io.StringIO()
    non_responders_write_csv(scope=COMMAND_LINE, survey=survey, school=lincoln, people=people, stream=stream)
    rows = {row["external_id"] or row["access_code"]: row for row in csv.DictReader(io.StringIO(stream.getvalue()))}
    assert rows[teachers[0].formatted_access_code]["current_page_name"] == "Page 5 — Your teaching (conditional)"
    assert rows[students[0].formatted_access_code]["current_page_name"] == "Page 6 — Classmates"
    pdf = io.BytesIO()
    non_responders_write_pdf(scope=COMMAND_LINE, survey=survey, school=lincoln, people=people, stream=pdf)
    pages = [page.extract_text() for page in PdfReader(io.BytesIO(pdf.getvalue())).pages]
    assert len(pages) == 3  # grade 7, parents, teachers (no grade sorts last): a page each
    assert "Lincoln (LIN) · Grade 7" in pages[0] and "Page 6 — Classmates" in pages[0]
    assert "Lincoln (LIN) · Parents" in pages[1] and "Ms Ortiz" in pages[1]
    assert "Lincoln (LIN) · Teachers" in pages[2] and "Page 5 — Your teaching (conditional)" in pages[2]
    assert "grade —" not in "".join(pages)


def test_the_not_finished_list_prints_names_in_any_script(lincoln, slip_fonts):
    survey = make_demo_survey()
    make_respondents(survey, 1, school=lincoln, role="parent", display_name="Анна Иванова")
    make_respondents(survey, 1, school=lincoln, role="parent", display_name="王芳")
    pdf = io.BytesIO()
    non_responders_write_pdf(scope=COMMAND_LINE, survey=survey, school=lincoln,
                             people=non_responders(scope=COMMAND_LINE, survey=survey, school=lincoln), stream=pdf)
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf.getvalue())).pages)
    assert "Анна Иванова" in text and "王芳" in text and "Lincoln (LIN) · Parents" in text


def test_the_not_finished_lists_go_grade_by_grade_in_grade_order(lincoln):
    survey = make_survey()
    for grade in ("10", "9", "K", ""):
        make_respondents(survey, 1, school=lincoln, grade=grade, role="teacher" if not grade else "student")
    people = non_responders(scope=COMMAND_LINE, survey=survey, school=lincoln)
    stream = io.StringIO()
    non_responders_write_csv(scope=COMMAND_LINE, survey=survey, school=lincoln, people=people, stream=stream)
    assert [row["grade"] for row in csv.DictReader(io.StringIO(stream.getvalue()))] == ["K", "9", "10", ""]
    pdf = io.BytesIO()
    non_responders_write_pdf(scope=COMMAND_LINE, survey=survey, school=lincoln, people=people, stream=pdf)
    headers = [page.extract_text().splitlines()[1].split(" · ")[1] for page in PdfReader(io.BytesIO(pdf.getvalue())).pages]
    assert headers == ["Grade K", "Grade 9", "Grade 10", "Teachers"]


def test_the_not_finished_csv_writes_times_in_the_deployment_s_zone_with_the_offset_as_exports_do(
        lincoln, settings):
    settings.TIME_ZONE = "America/Chicago"
    survey = make_survey()
    person = make_respondents(survey, 1, school=lincoln, grade="7")
    saved = datetime(2026, 12, 2, 15, 15, 0, 250_000, tzinfo=UTC)
    Respondent.objects.filter(pk=person.pk).update(status=Respondent.Status.IN_PROGRESS, last_saved_at=saved)
    stream = io.StringIO()
    non_responders_write_csv(scope=COMMAND_LINE, survey=survey, school=lincoln,
                             people=non_responders(scope=COMMAND_LINE, survey=survey, school=lincoln), stream=stream)
    [row] = csv.DictReader(io.StringIO(stream.getvalue()))
    assert row["last_saved_at"] == "2026-12-02T09:15:00-06:00" == moment_text(saved)
