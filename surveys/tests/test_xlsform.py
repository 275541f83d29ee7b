"""XLSForm import: workbooks built here with openpyxl, read through pyxform's reader, taken as a respondent would."""
import html
import zipfile

import pytest
from django.core.management import CommandError, call_command

from respondents.models import Answer
from respondents.tests.factories import login, make_respondents, save_page
from surveys.documents import DocumentError
from surveys.models import Page, Question, Survey
from surveys.services import document_check, status_open, survey_create_from_file
from surveys.tests.factories import DEMO_DOCUMENT
from surveys.tests.helpers import CHOICES, ROLE, SURVEY_HEADER, page, problems_of, row, sheet_rows, workbook

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
    survey = survey_create_from_file(source=str(path), filename="climate.xlsx")
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
    survey = status_open(survey=survey_create_from_file(source=str(path), filename="climate.xlsx"))
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
    document = document_check(source=str(path), filename="climate.xlsx")
    assert len(document["pages"]) == 60 and not Survey.objects.exists()


@pytest.mark.parametrize(("rows", "expected"), [
    (page(ROLE, row("geopoint", "where", "Where?", "¿Dónde?")),
     "survey sheet, row 4, column type: 'geopoint': not supported (location capture; docs/xlsform.md lists what is "
     "not)"),
    (page(ROLE, row("begin repeat", "kids", "Children", "Hijos"), row("text", "kid", "Name", "Nombre"),
          row("end repeat")),
     "survey sheet, row 4, column type: 'begin repeat': not supported (repeats; docs/xlsform.md lists what is not)"),
    (page(ROLE, row("text", "t", "T", "T", appearance="multiline"), row("select_one agree or_others", "a", "A", "A")),
     "survey sheet, row 5, column type: write 'select_one LIST' (or 'select_one LIST or_other') with the name of a "
     "list of the choices sheet"),
    (page(ROLE, row("photograph", "p", "P", "P")),
     "survey sheet, row 4, column type: 'photograph' is not a type of XLSForm this survey system reads"),
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
    (page(row("begin group", "g", "Grid", "Cuadrícula", appearance="table-list"),
          row("begin group", "h", "Group", "Grupo"), row("end group"), row("select_one agree", "a", "A", "A"),
          row("end group")),
     "survey sheet, row 4, column type: a grid (table-list) holds only select_one rows, not a group"),
    (page(ROLE)[:-1], "survey sheet, row 2, column type: this group is never ended (end group)"),
    (page(ROLE, row("integer", "n", "N", "N", constraint=". > 'ten'")),
     "survey sheet, row 4, column constraint: must be a whole number, as 'n' is an integer question"),
    (page(ROLE, row("text", "t", "", "")), "survey sheet, row 4, column label: is required"),
    (page(ROLE, row("text", "t", "T", "")), "page 1, question 't', prompt: no Spanish (es) text"),
    (page(ROLE, row("text", "bad-name", "T", "T")),
     "survey sheet, row 4, column name: starts with a letter and holds only letters, digits and '_' (at most 64)"),
])
def test_every_kind_of_problem_is_reported_by_sheet_row_and_column_and_nothing_is_written(tmp_path, rows, expected):
    if "no Spanish" in expected:
        # Missing translations refuse publishing, not a draft.
        path = workbook(tmp_path / "draft.xlsx", rows, CHOICES)
        survey = survey_create_from_file(source=str(path), filename="draft.xlsx")
        with pytest.raises(DocumentError) as refused:
            status_open(survey=survey)
        assert refused.value.problems == [expected]
        return
    problems = problems_of(tmp_path, rows)
    assert any(problem.startswith(expected) for problem in problems), problems


def test_a_language_cldr_does_not_know_is_reported(tmp_path):
    header = [*SURVEY_HEADER, "label::Klingon (tlh)", "hint::Elvish"]
    rows = [[*r, "", ""] for r in page(ROLE)]
    problems = problems_of(tmp_path, rows, survey_header=header)
    assert "survey sheet, row 1, column label::Klingon (tlh): 'Klingon (tlh)' names no language CLDR knows: write it 'Name " \
           "(code)' with the language's ISO 639 code, as 'Kiswahili (sw)'" in problems
    assert "survey sheet, row 1, column hint::Elvish: 'Elvish' names no language CLDR knows: write it 'Name (code)' with " \
           "the language's ISO 639 code, as 'Kiswahili (sw)'" in problems


def test_a_default_language_on_two_lines_is_a_problem_reported_not_a_crash(tmp_path):
    settings = [["form_id", "form_title::English (en)", "default_language"],
                ["climate_xls", "School climate", "English (en)\nSpanish (es)"]]
    problems = problems_of(tmp_path, page(ROLE), settings=settings)
    assert "settings sheet, row 2, column default_language: 'English (en)\\nSpanish (es)' names no language CLDR " \
           "knows: write it 'Name (code)' with the language's ISO 639 code, as 'Kiswahili (sw)'" in problems


def test_choice_problems_point_at_the_choices_sheet(tmp_path):
    choices = [*CHOICES, ["role", "student", "Student again", "Estudiante otra vez"], ["", "x", "X", "X"]]
    problems = problems_of(tmp_path, page(ROLE), choices)
    assert "choices sheet, row 10, column name: 'student' appears twice" in problems
    assert "choices sheet, row 11, column list_name: is empty" in problems


def test_a_file_that_is_not_a_workbook_is_refused(tmp_path):
    path = tmp_path / "survey.xlsx"
    path.write_text("not a workbook")
    with pytest.raises(DocumentError) as refused:
        survey_create_from_file(source=str(path), filename="survey.xlsx")
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
        survey_create_from_file(source=str(path), filename="survey.xlsx")
    [only] = refused.value.problems
    assert only.startswith(f"workbook: cannot be read as an XLSForm (.xlsx): {problem}")
    assert not Survey.objects.exists()


def test_the_command_imports_a_workbook_or_a_json_document_and_prints_every_problem(tmp_path, capsys):
    path = workbook(tmp_path / "climate.xlsx", sixty_pages(), CHOICES)
    call_command("import_survey", str(path), "--dry-run")
    assert "'climate_xls', 60 pages" in capsys.readouterr().out and not Survey.objects.exists()
    noted = one_language(tmp_path, {"type": "text", "name": "village", "label": "Village"})
    call_command("import_survey", str(noted), "--dry-run")
    out = capsys.readouterr().out
    assert "  warning: settings sheet, column form_id: none given: 'household_survey'" in out
    assert "'household_survey', 1 pages, 1 questions, languages en. Dry run: nothing was written." in out
    call_command("import_survey", str(path), "--publish")
    assert Survey.objects.get(slug="climate_xls").status == "open"
    call_command("import_survey", str(DEMO_DOCUMENT))
    assert Survey.objects.filter(slug="school-climate-demo").exists()
    broken = workbook(tmp_path / "broken.xlsx", page(ROLE, row("geotrace", "x", "X", "X")), CHOICES)
    with pytest.raises(CommandError, match="1 problem; nothing was written"):
        call_command("import_survey", str(broken))
    assert "survey sheet, row 4, column type: 'geotrace': not supported (location capture" in capsys.readouterr().err


# The shapes forms written for other XLSForm clients take (docs/xlsform.md).

ONE_LANGUAGE = ["type", "name", "label", "hint", "required", "relevant", "appearance", "constraint"]


def one_language(tmp_path, *rows, choices=None, settings=False, name="household survey.xlsx",
                 choices_header=("list_name", "name", "label")):
    """A form in one language, its rows {column: value}: no settings sheet unless given, as people write them."""
    return workbook(tmp_path / name, sheet_rows(ONE_LANGUAGE, *rows), choices, settings,
                    survey_header=ONE_LANGUAGE, choices_header=list(choices_header))


def test_a_form_without_settings_or_choices_sheets_takes_its_slug_and_title_from_the_file_name(tmp_path):
    path = one_language(tmp_path, {"type": "text", "name": "village", "label": "Village"},
                        {"type": "integer", "name": "people", "label": "People in the household"})
    survey = survey_create_from_file(source=str(path), filename=path.name)
    assert (survey.slug, survey.title, survey.languages, survey.form_version) == (
        "household_survey", "household_survey", ["en"], "")
    assert "settings sheet, column form_id: none given: 'household_survey', from the file's name, is the survey's " \
           "slug" in survey.load_warnings
    assert [q.code for q in Question.objects.filter(survey=survey).order_by("position")] == ["village", "people"]


def test_choices_without_labels_show_their_names_and_the_form_version_is_kept(tmp_path):
    path = one_language(tmp_path, {"type": "select_one yn", "name": "ok", "label": "All right?"},
                        choices=[["yn", "yes", ""], ["yn", "no", ""]],
                        settings=[["form_id", "version"], ["checkin", "2026112501"]])
    survey = survey_create_from_file(source=str(path), filename=path.name)
    assert (survey.slug, survey.title, survey.form_version) == ("checkin", "checkin", "2026112501")
    question = Question.objects.get(survey=survey, code="ok")
    assert [(c.value, c.label) for c in question.choices.order_by("position")] == [("yes", "yes"), ("no", "no")]


def test_columns_this_system_does_not_use_are_ignored_with_a_warning(tmp_path):
    header = [*ONE_LANGUAGE, "media::image", "read_only"]
    settings = [["form_id", "form_title", "instance_name", "submission_url"],
                ["visits", "Visits", "concat(${village})", "https://example.org/submit"]]
    path = workbook(tmp_path / "visits.xlsx", sheet_rows(header, {"type": "text", "name": "village",
                                                                  "label": "Village", "media::image": "v.png",
                                                                  "read_only": "no"}),
                    [["yn", "yes", "Yes", "1"]], settings, survey_header=header,
                    choices_header=["list_name", "name", "label", "region"])
    survey = survey_create_from_file(source=str(path), filename=path.name)
    assert survey.load_warnings == [
        "survey sheet, column media::image: ignored: this survey system does not use it",
        "survey sheet, column read_only: ignored: this survey system does not use it",
        "settings sheet, column instance_name: ignored: this survey system does not use it",
        "settings sheet, column submission_url: ignored: this survey system does not use it",
        "choices sheet, column region: ignored: this survey system does not use it",
        "survey sheet: page 1 made of questions outside any field-list group: a run of them is a page, ended by a "
        "group or a note, and cut every 10 questions",
    ]


def test_a_form_for_odk_collect_becomes_pages_of_runs_cut_by_groups_notes_and_ten_questions(tmp_path):
    rows = [{"type": "start", "name": "start"}, {"type": "deviceid", "name": "device"},
            {"type": "note", "name": "hello", "label": "Welcome to the household survey."},
            *({"type": "integer", "name": f"n{i}", "label": f"Number {i}"} for i in range(1, 13)),
            {"type": "begin group", "name": "health", "label": "Health", "relevant": "${n1} > 0"},
            {"type": "text", "name": "clinic", "label": "Nearest clinic"},
            {"type": "begin group", "name": "vacc", "label": "Vaccinations", "relevant": "${n2} > 1"},
            {"type": "select_one yn", "name": "vaccinated", "label": "Vaccinated?"},
            {"type": "end group"},
            {"type": "end group"},
            {"type": "begin group", "name": "water", "label": "Water", "appearance": "field-list",
             "relevant": "${n3} > 2"},
            {"type": "text", "name": "source", "label": "Source"},
            {"type": "begin group", "name": "inner", "label": "Inner", "relevant": "${source} != ''"},
            {"type": "integer", "name": "minutes", "label": "Minutes to it", "appearance": "numbers"},
            {"type": "end group"},
            {"type": "end group"},
            {"type": "select_one yn or_other", "name": "more", "label": "Anything more?"},
            {"type": "acknowledge", "name": "sure", "label": "I am sure"},
            {"type": "note", "name": "bye", "label": "Thank you!"}]
    path = one_language(tmp_path, *rows, choices=[["yn", "yes", "Yes"], ["yn", "no", "No"]])
    survey = survey_create_from_file(source=str(path), filename=path.name)
    pages = list(Page.objects.filter(survey=survey).order_by("position"))
    codes = [list(Question.objects.filter(page=p, grid=None).order_by("position").values_list("code", flat=True))
             for p in pages]
    assert codes == [[f"n{i}" for i in range(1, 11)], ["n11", "n12"], ["clinic"], ["vaccinated"],
                     ["source", "minutes"], ["more", "more_other", "sure"]]
    assert pages[0].intro == "Welcome to the household survey." and survey.thank_you == "Thank you!"
    assert [p.title for p in pages] == ["", "", "Health", "Vaccinations", "Water", ""]
    n1 = {"op": "gt", "q": "n1", "value": 0}
    assert pages[2].show_if == n1
    assert pages[3].show_if == {"op": "and", "rules": [n1, {"op": "gt", "q": "n2", "value": 1}]}
    assert pages[4].show_if == {"op": "gt", "q": "n3", "value": 2}
    assert Question.objects.get(survey=survey, code="minutes").show_if == {"op": "answered", "q": "source"}
    more = Question.objects.get(survey=survey, code="more")
    assert [c.value for c in more.choices.order_by("position")] == ["yes", "no", "other"]
    other = Question.objects.get(survey=survey, code="more_other")
    assert (other.kind, other.show_if) == ("short_text", {"op": "selected", "q": "more", "value": "other"})
    sure = Question.objects.get(survey=survey, code="sure")
    assert (sure.kind, [c.value for c in sure.choices.all()]) == ("single", ["OK"])
    assert survey.load_warnings == [
        "settings sheet, column form_id: none given: 'household_survey', from the file's name, is the survey's slug",
        "survey sheet, row 2, column type: 'start' is not a question: recorded as each respondent's started_at",
        "survey sheet, row 3, column type: 'deviceid' is not a question: ignored (a browser survey has nothing to "
        "record)",
        "survey sheet: the notes after the last question are the survey's thank-you text, shown when it is completed",
        "survey sheet, column appearance: 'numbers' ignored (row 26): shown the usual way",
        "survey sheet: pages 1-4, 6 made of questions outside any field-list group: a run of them is a page, ended "
        "by a group or a note, and cut every 10 questions",
    ]


def test_with_enketos_pages_style_every_top_level_group_and_question_is_a_page(tmp_path):
    rows = [{"type": "text", "name": "a", "label": "A"}, {"type": "text", "name": "b", "label": "B"},
            {"type": "begin group", "name": "g", "label": "G", "relevant": "${a} != ''", "appearance": "w2"},
            {"type": "text", "name": "c", "label": "C"},
            {"type": "begin group", "name": "h", "label": "H", "relevant": "${b} != ''"},
            {"type": "text", "name": "d", "label": "D"},
            {"type": "end group"},
            {"type": "end group"},
            {"type": "begin group", "name": "t", "label": "Agree?", "appearance": "table-list"},
            {"type": "select_one yn", "name": "t1", "label": "One"},
            {"type": "select_one yn", "name": "t2", "label": "Two"},
            {"type": "end group"}]
    path = one_language(tmp_path, *rows, choices=[["yn", "yes", "Yes"], ["yn", "no", "No"]],
                        settings=[["form_id", "style"], ["paged", "pages theme-grid"]])
    survey = survey_create_from_file(source=str(path), filename=path.name)
    pages = list(Page.objects.filter(survey=survey).order_by("position"))
    assert [list(Question.objects.filter(page=p, grid=None).values_list("code", flat=True)) for p in pages] == [
        ["a"], ["b"], ["c", "d"], ["t"]]
    assert pages[2].show_if == {"op": "answered", "q": "a"}
    assert Question.objects.get(survey=survey, code="d").show_if == {"op": "answered", "q": "b"}
    assert [r.code for r in Question.objects.get(survey=survey, code="t").rows.order_by("position")] == ["t1", "t2"]
    assert not any("made of questions" in warning for warning in survey.load_warnings)
    assert "survey sheet, column appearance: 'w2' ignored (row 4): shown the usual way" in survey.load_warnings


@pytest.mark.parametrize(("rows", "expected"), [
    ([{"type": "select_one c", "name": "c", "label": "C", "choice_filter": "starts-with(name, ${r})"}],
     "survey sheet, row 2, column choice_filter: 'c' filters 'starts-with(name, ${r})': not supported (cascading "
     "selects written other than 'column = ${question}' (joined by and)"),
    ([{"type": "select_one c", "name": "c", "label": "C", "choice_filter": "region = ${r}"}],
     "survey sheet, row 2, column choice_filter: the choices sheet has no column 'region' to filter on"),
    ([{"type": "date", "name": "t", "label": "T", "default": "today()"}],
     "survey sheet, row 2, column default: 't' has the default 'today()': not supported (default values computed "
     "from an expression"),
    ([{"type": "integer", "name": "n", "label": "N", "default": "200", "constraint": ". <= 120"}],
     "survey sheet, row 2, column default: 200 is outside the question's min and max"),
    ([{"type": "select_one c", "name": "c", "label": "C", "default": "b"}],
     "survey sheet, row 2, column default: 'b' is not a choice"),
])
def test_a_row_that_fills_in_a_column_that_would_change_what_is_asked_is_refused(tmp_path, rows, expected):
    header = [*ONE_LANGUAGE, "choice_filter", "default"]
    path = workbook(tmp_path / "f.xlsx", sheet_rows(header, *rows), [["c", "a", "A"]], False, survey_header=header,
                    choices_header=["list_name", "name", "label"])
    with pytest.raises(DocumentError) as refused:
        survey_create_from_file(source=str(path), filename=path.name)
    assert refused.value.problems[0].startswith(expected), refused.value.problems


def test_notes_anywhere_times_and_dates_with_times_are_shown_asked_and_stored_as_written(tmp_path, client):
    rows = [{"type": "begin group", "name": "day", "label": "Your day", "appearance": "field-list"},
            {"type": "note", "name": "intro", "label": "About yesterday."},
            {"type": "time", "name": "bedtime", "label": "When did you go to bed?", "required": "yes"},
            {"type": "note", "name": "late", "label": "That is late!", "relevant": "${bedtime} > '23:00'"},
            {"type": "dateTime", "name": "arrived", "label": "When did you arrive at school?"},
            {"type": "note", "name": "thanks", "label": "Thanks for these."},
            {"type": "end group"},
            {"type": "begin group", "name": "last", "label": "The end", "appearance": "field-list"},
            {"type": "note", "name": "done", "label": "Nothing more to answer."},
            {"type": "end group"}]
    path = one_language(tmp_path, *rows, name="day.xlsx")
    survey = status_open(survey=survey_create_from_file(source=str(path), filename=path.name))
    first, last = Page.objects.filter(survey=survey).order_by("position")
    assert first.intro == "About yesterday." and last.intro == ""
    assert [(q.code, q.kind) for q in first.questions.order_by("position")] == [
        ("bedtime", "time"), ("late", "note"), ("arrived", "datetime"), ("thanks", "note")]
    assert [(q.code, q.kind, q.prompt) for q in last.questions.all()] == [("done", "note", "Nothing more to answer.")]
    login(client, make_respondents(survey))
    page = html.unescape(client.get("/take/").content.decode())
    assert '<input type="time" id="input-q-bedtime"' in page and 'type="datetime-local"' in page
    assert "That is late!" in page and "Applies if your answer to" in page and "Thanks for these." in page
    body = save_page(client, 1, {"q-bedtime": "25:00", "q-arrived": "2026-02-30T08:00"}).json()
    assert set(body["errors"]) == {"q-bedtime", "q-arrived"}
    assert save_page(client, 1, {"q-bedtime": "23:15:00", "q-arrived": "2026-11-25T07:55"}).json()["next_page"] == 2
    stored = dict(Answer.objects.values_list("question__code", "value"))
    assert stored == {"bedtime": "23:15", "arrived": "2026-11-25T07:55"}
    assert "Nothing more to answer." in html.unescape(client.get("/take/page/2/").content.decode())
    assert save_page(client, 2, {}, nav="finish").status_code == 200


def test_languages_are_named_any_way_xlsforms_name_them_and_a_survey_may_be_in_one_the_interface_lacks(
        tmp_path, client):
    header = ["type", "name", "label::English (en)", "label::Kiswahili", "label::chinese"]
    rows = [["select_one yn", "ok", "Are you well?", "Hujambo?", "你好吗?"]]
    choices_header = ["list_name", "name", "label::English (en)", "label::Kiswahili", "label::chinese"]
    choices = [["yn", "yes", "Yes", "Ndiyo", "是"], ["yn", "no", "No", "Hapana", "不"]]
    path = workbook(tmp_path / "wellbeing.xlsx", rows, choices,
                    [["form_id", "form_title::English (en)", "form_title::Kiswahili", "form_title::chinese"],
                     ["wellbeing", "Wellbeing", "Ustawi", "健康"]],
                    survey_header=header, choices_header=choices_header)
    survey = status_open(survey=survey_create_from_file(source=str(path), filename=path.name))
    assert survey.languages == ["en", "sw", "zh"]
    login(client, make_respondents(survey, language="sw"))
    page = html.unescape(client.get("/take/").content.decode())
    assert '<html lang="sw" dir="ltr">' in page and "Hujambo?" in page and "Ndiyo" in page
    assert "Next" in page or "Finish" in page  # the interface's own words: English, its catalogue lacking Swahili
    assert ">中文</button>" in page and ">English</button>" in page  # the switcher names each in itself
    client.post("/language/", {"language": "zh", "next": "/take/"})
    assert "你好吗?" in html.unescape(client.get("/take/").content.decode())


def test_a_default_is_shown_filled_in_until_the_person_saves_the_page(tmp_path, client):
    header = [*ONE_LANGUAGE, "default"]
    rows = [{"type": "select_one yn", "name": "consent", "label": "Do you agree to take part?", "default": "yes"},
            {"type": "integer", "name": "people", "label": "People in the household", "default": "4"},
            {"type": "select_multiple yn", "name": "both", "label": "Tick", "default": "no yes"},
            {"type": "text", "name": "country", "label": "Country", "default": "Kenya"}]
    path = workbook(tmp_path / "defaults.xlsx", sheet_rows(header, *rows), [["yn", "yes", "Yes"], ["yn", "no", "No"]],
                    False, survey_header=header, choices_header=["list_name", "name", "label"])
    survey = status_open(survey=survey_create_from_file(source=str(path), filename=path.name))
    assert Question.objects.get(survey=survey, code="people").default_value == "4"
    login(client, make_respondents(survey))
    page = html.unescape(client.get("/take/").content.decode())
    assert 'name="q-consent" value="yes" checked' in page and 'name="q-people" value="4"' in page
    assert 'name="q-both" value="yes" checked' in page and 'value="Kenya"' in page
    assert save_page(client, 1, {"q-consent": "no", "q-people": ""}).json()["next_page"] == 1
    page = html.unescape(client.get("/take/").content.decode())
    assert 'name="q-consent" value="no" checked' in page and 'name="q-people" value=""' in page
    assert 'value="Kenya"' not in page  # saved blank: the default is not shown again


def test_calculate_rows_are_computed_from_earlier_answers_read_by_rules_and_kept_out_of_the_page(tmp_path, client):
    header = [*ONE_LANGUAGE, "calculation"]
    rows = [{"type": "calculate", "name": "fee", "calculation": "25"},
            {"type": "begin group", "name": "p1", "label": "Household", "appearance": "field-list"},
            {"type": "integer", "name": "adults", "label": "Adults"},
            {"type": "integer", "name": "children", "label": "Children"},
            {"type": "select_one score", "name": "mood", "label": "Mood"},
            {"type": "calculate", "name": "people", "calculation": "${adults} + ${children}"},
            {"type": "calculate", "name": "per_adult", "calculation": "round(${children} div ${adults}, 2)"},
            {"type": "calculate", "name": "size", "calculation": "if(${people} > 5, 'large', 'small')"},
            {"type": "note", "name": "big", "label": "A large household.", "relevant": "${people} > 5"},
            {"type": "end group"},
            {"type": "begin group", "name": "p2", "label": "More", "appearance": "field-list",
             "relevant": "${size} = 'large'"},
            {"type": "calculate", "name": "label", "calculation": "concat(${size}, ' (', coalesce(${mood}, 0), ')')"},
            {"type": "text", "name": "rooms", "label": "Rooms?", "constraint": ". != ''"},
            {"type": "end group"},
            {"type": "begin group", "name": "p3", "label": "End", "appearance": "field-list"},
            {"type": "text", "name": "last", "label": "Last"},
            {"type": "end group"}]
    path = workbook(tmp_path / "calc.xlsx", sheet_rows(header, *rows), [["score", "1", "Low"], ["score", "3", "High"]],
                    False, survey_header=header, choices_header=["list_name", "name", "label"])
    survey = status_open(survey=survey_create_from_file(source=str(path), filename=path.name))
    people = Question.objects.get(survey=survey, code="people")
    assert (people.kind, people.calculation) == (
        "calculate", {"fn": "add", "args": [{"q": "adults"}, {"q": "children"}]})
    assert Question.objects.get(survey=survey, code="fee").page.position == 1
    login(client, make_respondents(survey))
    page = html.unescape(client.get("/take/").content.decode())
    assert "q-people" not in page and "A large household." in page
    assert save_page(client, 1, {"q-adults": "2", "q-children": "5", "q-mood": "3"}).json()["next_page"] == 2
    assert save_page(client, 2, {"q-rooms": "4"}).json()["next_page"] == 3
    assert not Answer.objects.filter(question__kind="calculate").exists()
    client.get("/take/page/1/")
    assert save_page(client, 1, {"q-adults": "2", "q-children": "1"}, nav="next").json()["next_page"] == 3


def test_a_cascading_select_offers_the_choices_its_filter_matches_and_refuses_the_others(tmp_path, client):
    header = [*ONE_LANGUAGE, "choice_filter"]
    rows = [{"type": "begin group", "name": "p1", "label": "Where", "appearance": "field-list"},
            {"type": "select_one region", "name": "region", "label": "Region"},
            {"type": "select_one district", "name": "near", "label": "District nearby",
             "choice_filter": "region = ${region}"},
            {"type": "end group"},
            {"type": "begin group", "name": "p2", "label": "More", "appearance": "field-list"},
            {"type": "select_one district", "name": "district", "label": "District",
             "choice_filter": "${region} = region"},
            {"type": "end group"}]
    choices = [["region", "north", "North", ""], ["region", "south", "South", ""],
               ["district", "n1", "Northfield", "north"], ["district", "n2", "Northgate", "north"],
               ["district", "s1", "Southport", "south"], ["district", "x", "Unknown", ""]]
    path = workbook(tmp_path / "cascade.xlsx", sheet_rows(header, *rows), choices, False, survey_header=header,
                    choices_header=["list_name", "name", "label", "region"])
    survey = status_open(survey=survey_create_from_file(source=str(path), filename=path.name))
    assert not any("region" in warning for warning in survey.load_warnings)
    district = Question.objects.get(survey=survey, code="district")
    assert district.choices.get(value="n1").show_if == {"op": "equals", "q": "region", "value": "north"}
    assert district.choices.get(value="x").show_if == {"op": "not", "rule": {"op": "answered", "q": "region"}}
    login(client, make_respondents(survey))
    page = html.unescape(client.get("/take/").content.decode())
    # On the region's own page the script shows and hides the choices; each says when it is offered.
    assert '<label class="choice" data-show-if="{"op":"equals","q":"region","value":"north"}">' in page
    body = save_page(client, 1, {"q-region": "north", "q-near": "s1"}).json()
    assert body["errors"] == {"q-near": ["Please choose one of the choices offered."]}
    assert save_page(client, 1, {"q-region": "north", "q-near": "n2"}).json()["next_page"] == 2
    page = html.unescape(client.get("/take/page/2/").content.decode())
    assert "Northfield" in page and "Northgate" in page and "Southport" not in page and "Unknown" not in page
    assert save_page(client, 2, {"q-district": "s1"}).json()["errors"] == {
        "q-district": ["Please choose one of the choices offered."]}


def test_a_right_to_left_survey_is_laid_out_right_to_left_and_a_label_naming_an_answer_is_warned_of(
        tmp_path, client):
    header = ["type", "name", "label::Arabic (ar)", "label::English (en)"]
    rows = [["text", "name", "ما اسمك؟", "Your name?"], ["note", "hello", "مرحبا ${name}", "Hello ${name}"]]
    path = workbook(tmp_path / "rtl.xlsx", rows, None, False, survey_header=header)
    # No settings sheet: the title is the slug in every language, so the survey can be published.
    survey = status_open(survey=survey_create_from_file(source=str(path), filename=path.name))
    assert "survey sheet, column label: row 3: an answer named in a label or hint (${q}) is shown as written, not " \
           "filled in" in survey.load_warnings
    login(client, make_respondents(survey, language="ar"))
    page = html.unescape(client.get("/take/").content.decode())
    assert '<html lang="ar" dir="rtl">' in page and "ما اسمك؟" in page
