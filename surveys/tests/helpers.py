"""What the survey tests share: XLSForm workbooks built with openpyxl, a document with rules."""
import openpyxl
import pytest

from surveys.documents import DocumentError
from surveys.models import Question, Survey
from surveys.services import survey_create_from_file
from surveys.tests.factories import small_document

SURVEY_HEADER = ["type", "name", "label::English (en)", "label::Español (es)", "hint::English (en)",
                 "hint::Español (es)", "required", "required_message::English (en)",
                 "required_message::Español (es)", "constraint", "constraint_message::English (en)",
                 "constraint_message::Español (es)", "relevant", "appearance"]
CHOICES_HEADER = ["list_name", "name", "label::English (en)", "label::Español (es)"]


def row(type_, name="", en="", es="", *, hint=("", ""), required="", required_message=("", ""), constraint="",
        constraint_message=("", ""), relevant="", appearance=""):
    return [type_, name, en, es, *hint, required, *required_message, constraint, *constraint_message, relevant,
            appearance]


def workbook(path, survey, choices, settings=None, *, survey_header=SURVEY_HEADER, choices_header=CHOICES_HEADER):
    """Write an XLSForm at ``path``: ``choices`` None leaves the choices sheet out, ``settings`` False the settings
    sheet (None: the climate survey's settings)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "survey"
    for values in [survey_header, *survey]:
        sheet.append(values)
    if choices is not None:
        sheet = book.create_sheet("choices")
        for values in [choices_header, *choices]:
            sheet.append(values)
    if settings is not False:
        sheet = book.create_sheet("settings")
        for values in settings or [["form_id", "form_title::English (en)", "form_title::Español (es)",
                                    "default_language"],
                                   ["climate_xls", "School climate", "Clima escolar", "English (en)"]]:
            sheet.append(values)
    book.save(path)
    return path


def sheet_rows(header, *rows):
    """Rows for ``workbook``'s ``survey_header``: each row a {column: value} of ``header``'s columns."""
    return [[values.get(column, "") for column in header] for values in rows]


CHOICES = [
    ["role", "student", "Student", "Estudiante"],
    ["role", "teacher", "Teacher", "Maestro"],
    ["agree", "1", "Disagree", "En desacuerdo"],
    ["agree", "2", "Agree", "De acuerdo"],
    ["agree", "3", "Strongly agree", "Muy de acuerdo"],
    ["pets", "cat", "Cat", "Gato"],
    ["pets", "dog", "Dog", "Perro"],
    ["pets", "none", "None", "Ninguno"],
]


def problems_of(tmp_path, survey_rows, choices=CHOICES, settings=None, **headers):
    path = workbook(tmp_path / "broken.xlsx", survey_rows, choices, settings, **headers)
    with pytest.raises(DocumentError) as refused:
        survey_create_from_file(source=str(path), filename="broken.xlsx")
    assert not Survey.objects.exists() and not Question.objects.exists()
    return refused.value.problems


def page(*rows, relevant=""):
    return [row("begin group", "p", "Page", "Página", appearance="field-list", relevant=relevant), *rows,
            row("end group")]


ROLE = row("select_one role", "role", "Role?", "¿Rol?")


def ruled_document():
    """The small survey with a page, a question, a grid row and a constraint ruled by earlier answers."""
    document = small_document()
    first, second, third = (page["questions"] for page in document["pages"])
    first[2]["show_if"] = {"op": "selected", "q": "pets", "value": "cat"}
    first[2]["constraint"] = {"op": "ge", "q": ".", "value": 7}
    first[2]["constraint_message"] = "Cats need owners of seven or more."
    second[0]["rows"][1]["show_if"] = {"op": "equals", "q": "safe", "value": "2"}
    document["pages"][2]["show_if"] = {"op": "equals", "q": "colour", "value": "red"}
    third[1]["required_message"] = "Please say whether you would take it again."
    return document
