"""XLSForm import: workbooks built here with openpyxl, read through pyxform's reader, taken as a respondent would."""
import html
import zipfile

import pytest
from django.core.management import CommandError, call_command

from respondents.models import Answer
from respondents.tests.factories import login, make_respondents, save_page
from surveys.documents import DocumentError
from surveys.models import Page, Question, Survey
from surveys.services import survey_check, survey_import, survey_publish
from surveys.tests.factories import DEMO_DOCUMENT
from surveys.tests.helpers import CHOICES, ROLE, SURVEY_HEADER, page, problems_of, row, workbook

pytestmark = pytest.mark.django_db



def sixty_pages():
    """A realistic form: a first page about the person, then 59 pages of a grid, choices, numbers and texts;
    every fifth page only for teachers; a why? after disagreeing; constraints on earlier answers."""
    rows = [
        row("begin group", "about", "About you", "Sobre usted", appearance="field-list"),
        row("note", "welcome", "There are no right or wrong answers.", "No hay respuestas correctas ni incorrectas."),
        row("select_one role", "role", "Which best describes you?", "¿Qué le describe mejor?", required="yes",
            required_message=("Please say who you are.", "Diga quién es.")),
        row("integer", "age", "How old are you?", "¿Cuántos años tiene?", constraint=". >= 5 and . <= 99",
            constraint_message=("An age from 5 to 99.", "Una edad de 5 a 99.")),
        row("integer", "years", "Years at this school?", "¿Años en esta escuela?",
            hint=("Count this year.", "Cuente este año."), constraint=". >= 0 and . <= ${age}",
            constraint_message=("No more years than your age.", "No más años que su edad.")),
        row("decimal", "hours", "Hours of sleep?", "¿Horas de sueño?", constraint=". >= 0 and . <= 24"),
        row("date", "arrived", "When did you arrive?", "¿Cuándo llegó?"),
        row("end group"),
    ]
    for n in range(2, 61):
        teachers = n % 5 == 0
        rows += [
            row("begin group", f"page{n}", f"Section {n}", f"Sección {n}", appearance="field-list",
                relevant="${role} = 'teacher'" if teachers else ""),
            row("begin group", f"grid{n}", "How much do you agree?", "¿Cuánto está de acuerdo?",
                appearance="table-list"),
            row("select_one agree", f"g{n}_a", f"Statement {n}a", f"Afirmación {n}a", required="yes"),
            row("select_one agree", f"g{n}_b", f"Statement {n}b", f"Afirmación {n}b"),
            row("end group"),
            row("select_multiple pets", f"pets{n}", "Which pets?", "¿Qué mascotas?",
                constraint="not(selected(., 'none') and count-selected(.) > 1)",
                constraint_message=("'None' goes alone.", "'Ninguno' va solo.")),
            row("text", f"why{n}", "Why do you disagree?", "¿Por qué no está de acuerdo?",
                relevant=f"${{g{n}_a}} = '1'", appearance="multiline"),
            row("text", f"word{n}", "One word about it", "Una palabra al respecto"),
            row("end group"),
        ]
    return rows


def test_a_sixty_page_workbook_with_grids_conditions_constraints_and_two_languages_becomes_a_survey(tmp_path):
    path = workbook(tmp_path / "climate.xlsx", sixty_pages(), CHOICES)
    survey = survey_import(source=str(path), filename="climate.xlsx")
    assert (survey.slug, survey.title, survey.status, survey.languages) == (
        "climate_xls", "School climate", "draft", ["en", "es"])
    assert survey.translations == {"es": {"title": "Clima escolar"}}
    pages = list(Page.objects.filter(survey=survey).order_by("position"))
    assert len(pages) == 60 and pages[0].intro == "There are no right or wrong answers."
    assert pages[4].show_if == {"op": "equals", "q": "role", "value": "teacher"} and pages[3].show_if is None
    role = Question.objects.get(survey=survey, code="role")
    assert role.required and role.translated("required_message", "es") == "Diga quién es."
    age = Question.objects.get(survey=survey, code="age")
    assert (age.kind, age.min_value, age.max_value, age.constraint) == ("integer", 5, 99, None)
    years = Question.objects.get(survey=survey, code="years")
    assert (years.min_value, years.constraint) == (0, {"op": "le", "q": ".", "value": {"q": "age"}})
    assert years.translated("help_text", "es") == "Cuente este año."
    assert Question.objects.get(survey=survey, code="hours").kind == "decimal"
    grid = Question.objects.get(survey=survey, code="grid7")
    assert grid.kind == "grid" and [r.code for r in grid.rows.order_by("position")] == ["g7_a", "g7_b"]
    assert [c.translated("label", "es") for c in grid.choices.order_by("position")] == [
        "En desacuerdo", "De acuerdo", "Muy de acuerdo"]
    why = Question.objects.get(survey=survey, code="why7")
    assert (why.kind, why.show_if) == ("long_text", {"op": "equals", "q": "g7_a", "value": "1"})
    assert Question.objects.get(survey=survey, code="pets7").constraint == {"op": "not", "rule": {
        "op": "and", "rules": [{"op": "selected", "q": ".", "value": "none"},
                               {"op": "count", "q": ".", "cmp": "gt", "value": 1}]}}
    assert Question.objects.filter(survey=survey).exclude(kind="grid").count() == 5 + 59 * 5


def test_what_the_respondent_sees_matches_the_workbook(tmp_path, client):
    path = workbook(tmp_path / "climate.xlsx", sixty_pages(), CHOICES)
    survey = survey_publish(survey=survey_import(source=str(path), filename="climate.xlsx"))
    respondent = make_respondents(survey, language="es")
    login(client, respondent)
    page = html.unescape(client.get("/take/").content.decode())
    for text in ("Sobre usted", "No hay respuestas correctas ni incorrectas.", "¿Qué le describe mejor?",
                 "Estudiante", "Maestro", "¿Años en esta escuela?", "Cuente este año.", "Página 1 de 48"):
        assert text in page, text
    body = save_page(client, 1, {"q-role": "student", "q-age": "12", "q-years": "13"}).json()
    assert body["errors"] == {"q-years": ["No más años que su edad."]}
    body = save_page(client, 1, {"q-role": "student", "q-age": "120"}).json()
    assert body["errors"] == {"q-age": ["Una edad de 5 a 99."]}
    assert save_page(client, 1, {"q-role": "student", "q-age": "12", "q-years": "3"}).json()["next_page"] == 2
    # A student skips the teachers' pages (every fifth).
    assert save_page(client, 4, {"q-g4_a": "2"}).json()["next_page"] == 6
    page = html.unescape(client.get("/take/page/7/").content.decode())
    assert "Afirmación 7a" in page and "¿Por qué no está de acuerdo?" in page
    assert "Responda si eligió «En desacuerdo» en «Afirmación 7a»." in page
    assert save_page(client, 7, {"q-pets7": ["none", "cat"]}).json()["errors"] == {"q-pets7": ["'Ninguno' va solo."]}
    save_page(client, 7, {"q-g7_a": "3", "q-why7": "ignored"})
    assert not Answer.objects.filter(respondent=respondent, question__code="why7").exists()


def test_a_dry_run_checks_and_writes_nothing(tmp_path):
    path = workbook(tmp_path / "climate.xlsx", sixty_pages(), CHOICES)
    document = survey_check(source=str(path), filename="climate.xlsx")
    assert len(document["pages"]) == 60 and not Survey.objects.exists()


@pytest.mark.parametrize(("rows", "expected"), [
    (page(ROLE, row("calculate", "total", "Total", "Total")),
     "survey sheet, row 4, column type: 'calculate' is not supported (types read: select_one, select_multiple, "
     "integer, decimal, text, date, note, begin/end group)"),
    (page(ROLE, row("geopoint", "where", "Where?", "¿Dónde?")), "survey sheet, row 4, column type: 'geopoint' is not "
                                                              "supported"),
    ([ROLE, *page(row("text", "t", "T", "T"))], "survey sheet, row 2, column type: 'select_one role' is outside any "
                                                "page: put every question in a group with appearance field-list"),
    (page(row("select_one colours", "c", "Colour?", "¿Color?")),
     "survey sheet, row 3, column type: no choice list named 'colours'"),
    (page(ROLE, row("text", "t", "T", "T", relevant="${role} == 'teacher'")),
     "survey sheet, row 4, column relevant: expected ${question}, '.', a text or a number, found '='"),
    (page(ROLE, row("text", "t", "T", "T", relevant="string-length(${role}) > 3")),
     "survey sheet, row 4, column relevant: 'string-length' is not supported"),
    (page(row("text", "t", "T", "T", relevant="${role} = 'teacher'"), ROLE),
     "survey sheet, row 3, column relevant: 'role' does not come before this rule: a rule reads only earlier answers"),
    (page(ROLE, row("text", "t", "T", "T", relevant="${nobody} = 'x'")),
     "survey sheet, row 4, column relevant: there is no question 'nobody'"),
    (page(ROLE, row("text", "t", "T", "T", relevant="${role} = 'pilot'")),
     "survey sheet, row 4, column relevant: 'pilot' is not a choice of 'role'"),
    (page(ROLE, row("text", "role", "Again", "Otra vez")),
     "survey sheet, row 4, column name: 'role' is already used at pages[1].questions[1]"),
    (page(ROLE, row("integer", "n", "N", "N", required="maybe")),
     "survey sheet, row 4, column required: 'maybe' is not yes or no"),
    (page(row("begin group", "g", "Grid", "Cuadrícula", appearance="table-list"),
          row("select_one agree", "a", "A", "A"), row("select_one role", "b", "B", "B"), row("end group")),
     "survey sheet, row 5, column type: every row of a grid shares one list: this one is 'role', the grid's is 'agree'"),
    (page(row("begin group", "g", "Group", "Grupo", appearance="minimal"), ROLE, row("end group")),
     "survey sheet, row 3, column appearance: a group inside a page must be a grid (appearance table-list) of "
     "select_one rows"),
    (page(ROLE)[:-1], "survey sheet, row 2, column type: this group is never ended (end group)"),
    (page(ROLE, row("note", "n", "A note", "Una nota")),
     "survey sheet, row 4, column type: a note is shown as its page's introduction: put it before the page's first "
     "question"),
    (page(ROLE, row("integer", "n", "N", "N", constraint=". > 'ten'")),
     "survey sheet, row 4, column constraint: must be a whole number, as 'n' is an integer question"),
    (page(ROLE, row("text", "t", "", "")), "survey sheet, row 4, column label: is required"),
    (page(ROLE, row("text", "t", "T", "")), "page 1, question 't', prompt: no Spanish (es) text"),
    (page(ROLE, row("text", "bad-name", "T", "T")),
     "survey sheet, row 4, column name: starts with a letter and holds only letters, digits and '_' (at most 64)"),
    (page(ROLE, row("text", "t", "T", "T", appearance="minimal")),
     "survey sheet, row 4, column appearance: 'minimal' is not supported here"),
])
def test_every_kind_of_problem_is_reported_by_sheet_row_and_column_and_nothing_is_written(tmp_path, rows, expected):
    if "no Spanish" in expected:
        # Missing translations refuse publishing, not a draft.
        path = workbook(tmp_path / "draft.xlsx", rows, CHOICES)
        survey = survey_import(source=str(path), filename="draft.xlsx")
        with pytest.raises(DocumentError) as refused:
            survey_publish(survey=survey)
        assert refused.value.problems == [expected]
        return
    problems = problems_of(tmp_path, rows)
    assert any(problem.startswith(expected) for problem in problems), problems


def test_unsupported_columns_sheets_and_languages_are_reported(tmp_path):
    header = [*SURVEY_HEADER, "choice_filter", "label::Deutsch (de)"]
    rows = [[*r, "", ""] for r in page(ROLE)]
    problems = problems_of(tmp_path, rows, survey_header=header)
    assert "survey sheet, row 1, column choice_filter: is not supported (columns read: appearance, constraint, " \
           "constraint_message, hint, label, name, relevant, required, required_message, type)" in problems
    assert "survey sheet, row 1, column label::Deutsch (de): 'Deutsch (de)' is not a language of this site: write " \
           "it 'Name (code)' with a code of en, es" in problems


def test_a_default_language_on_two_lines_is_a_problem_reported_not_a_crash(tmp_path):
    settings = [["form_id", "form_title::English (en)", "default_language"],
                ["climate_xls", "School climate", "English (en)\nSpanish (es)"]]
    problems = problems_of(tmp_path, page(ROLE), settings=settings)
    assert "settings sheet, row 2, column default_language: 'English (en)\\nSpanish (es)' is not a language of " \
           "this site: write it 'Name (code)' with a code of en, es" in problems


def test_choice_problems_point_at_the_choices_sheet(tmp_path):
    choices = [*CHOICES, ["role", "student", "Student again", "Estudiante otra vez"], ["", "x", "X", "X"]]
    problems = problems_of(tmp_path, page(ROLE), choices)
    assert "choices sheet, row 10, column name: 'student' appears twice" in problems
    assert "choices sheet, row 11, column list_name: is empty" in problems


def test_a_file_that_is_not_a_workbook_is_refused(tmp_path):
    path = tmp_path / "survey.xlsx"
    path.write_text("not a workbook")
    with pytest.raises(DocumentError) as refused:
        survey_import(source=str(path), filename="survey.xlsx")
    assert refused.value.problems[0].startswith("workbook: cannot be read as an XLSForm (.xlsx)")


def with_parts(path, parts):
    """The workbook at ``path`` with ``parts`` replaced or added ({name: function of the part's text or None})."""
    with zipfile.ZipFile(path) as original:
        kept = {info.filename: original.read(info).decode() for info in original.infolist()}
    for name, change in parts.items():
        kept[name] = change(kept.get(name))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as changed:
        for name, text in kept.items():
            changed.writestr(name, text)
    return path


@pytest.mark.parametrize("parts, problem", [
    # 1.2 million shared texts: some 40 KB deflated, 20 MB unpacked (openpyxl: some 100 MB).
    ({"xl/sharedStrings.xml": lambda _: '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                                        + "<si><t>a</t></si>" * 1_200_000 + "</sst>"},
     "The workbook is 20 MB unpacked; the largest accepted is 16 MB."),
    # 20,001 cell styles (openpyxl: some 600 bytes each).
    ({"xl/styles.xml": lambda _: '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                                 '<cellXfs>' + "<xf/>" * 20_001 + "</cellXfs></styleSheet>"},
     "The workbook's styles hold more entries than the 20,000 accepted."),
    ({"[Content_Types].xml": lambda text: text[:150]},
     "The workbook is damaged: [Content_Types].xml is not well-formed XML (unclosed token at line 1, column"),
    ({"xl/worksheets/sheet1.xml": lambda text: "<!-- a comment -->" + text},
     "The workbook cannot be read: xl/worksheets/sheet1.xml holds a DTD, a comment or a processing instruction"),
])
def test_a_workbook_past_the_limits_or_damaged_is_refused_before_pyxform_reads_it(tmp_path, parts, problem):
    path = with_parts(workbook(tmp_path / "survey.xlsx", page(ROLE), CHOICES), parts)
    with pytest.raises(DocumentError) as refused:
        survey_import(source=str(path), filename="survey.xlsx")
    [only] = refused.value.problems
    assert only.startswith(f"workbook: cannot be read as an XLSForm (.xlsx): {problem}")
    assert not Survey.objects.exists()


def test_the_command_imports_a_workbook_or_a_json_document_and_prints_every_problem(tmp_path, capsys):
    path = workbook(tmp_path / "climate.xlsx", sixty_pages(), CHOICES)
    call_command("import_survey", str(path), "--dry-run")
    assert "'climate_xls', 60 pages" in capsys.readouterr().out and not Survey.objects.exists()
    call_command("import_survey", str(path), "--publish")
    assert Survey.objects.get(slug="climate_xls").status == "open"
    call_command("import_survey", str(DEMO_DOCUMENT))
    assert Survey.objects.filter(slug="school-climate-demo").exists()
    broken = workbook(tmp_path / "broken.xlsx", page(ROLE, row("calculate", "x", "X", "X")), CHOICES)
    with pytest.raises(CommandError, match="1 problem; nothing was written"):
        call_command("import_survey", str(broken))
    assert "survey sheet, row 4, column type: 'calculate' is not supported" in capsys.readouterr().err
