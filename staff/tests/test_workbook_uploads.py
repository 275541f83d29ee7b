"""Damaged or hostile XLSX uploads get their message on the page, never a 500: the directory, a roster, a survey."""
import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from openpyxl import Workbook

from accounts.models import StaffMember
from respondents.models import Respondent, School
from respondents.tests.factories import make_staff
from respondents.tests.factories import staff_signed_in as signed_in
from rosters.models import Roster

pytestmark = pytest.mark.django_db


def workbook(rows, **parts):
    """An XLSX of ``rows`` (saved by openpyxl) with some parts changed: {name: function of its text}."""
    book = Workbook()
    for values in rows:
        book.active.append(values)
    saved, changed = io.BytesIO(), io.BytesIO()
    book.save(saved)
    with zipfile.ZipFile(saved) as original, zipfile.ZipFile(changed, "w", zipfile.ZIP_DEFLATED) as out:
        for info in original.infolist():
            text = original.read(info).decode()
            out.writestr(info.filename, parts.get(info.filename, lambda same: same)(text))
    return changed.getvalue()


def broken_content_types(rows):
    return workbook(rows, **{"[Content_Types].xml": lambda text: text[:150]})


def test_a_directory_workbook_with_a_broken_content_types_part_gets_its_message(client):
    signed_in(client, make_staff(StaffMember.Role.STATE_ADMIN, username="state"))
    file = SimpleUploadedFile("schools.xlsx", broken_content_types(
        [["district_code", "district_name", "school_code", "school_name"], ["D1", "North", "S1", "Alpha"]]))
    page = client.post("/staff/schools/import/", {"file": file}, follow=True)
    assert page.status_code == 400  # refused, as a staff file and a roster are
    assert "The workbook is damaged: [Content_Types].xml is not well-formed XML" in page.content.decode()
    assert not School.objects.exists()


def test_a_roster_workbook_nested_past_the_limit_is_refused_with_its_message(client, survey, lincoln, coordinator):
    signed_in(client, coordinator)
    sheet = "xl/worksheets/sheet1.xml"
    nested = workbook([["external_id", "school_code"], ["s1", "LIN"]],
                      **{sheet: lambda text: text.replace("</sheetData>", "<row r=\"3\">" + "<x>" * 100 + "</x>" * 100
                                                                              + "</row></sheetData>")})
    page = client.post(f"/staff/surveys/{survey.slug}/rosters/new/",
                       {"file": SimpleUploadedFile("roster.xlsx", nested)}, follow=True)
    assert page.status_code == 200 and "nests its elements more than 64 deep" in page.content.decode()
    assert Roster.objects.get().status == Roster.Status.REFUSED and not Respondent.objects.exists()


def test_a_survey_workbook_with_a_broken_content_types_part_is_listed_as_a_problem(client):
    signed_in(client, make_staff(StaffMember.Role.STATE_ADMIN, username="office"))
    file = SimpleUploadedFile("form.xlsx", broken_content_types([["type", "name", "label"]]))
    page = client.post("/staff/surveys/import/", {"file": file})
    assert page.status_code == 400
    assert "workbook: cannot be read as an XLSForm (.xlsx): The workbook is damaged: [Content_Types].xml" in \
        page.content.decode()
