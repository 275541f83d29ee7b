"""Write docs/examples/school-climate-sample.xlsx: a small XLSForm that loads (see README.md beside it).

    .venv/bin/python docs/examples/make_sample_xlsform.py [OUTPUT.xlsx]

Four pages (groups with appearance field-list) in English and Spanish: who the
respondent is (a select_one and an age with a range); the school (a Likert
grid, a table-list group, and a follow-up text asked only after disagreeing);
a page only teachers see (its group's relevant), with a constraint that reads
an earlier answer; and a last page for comments. Only what surveys/xlsform.py
reads is used, so the workbook loads as it is and can be published.
"""
import sys
from datetime import datetime
from pathlib import Path

import openpyxl

OUTPUT = Path(__file__).resolve().with_name("school-climate-sample.xlsx")
EN, ES = "English (en)", "Español (es)"

SURVEY_HEADER = ["type", "name", f"label::{EN}", f"label::{ES}", f"hint::{EN}", f"hint::{ES}", "required",
                 f"required_message::{EN}", f"required_message::{ES}", "constraint", f"constraint_message::{EN}",
                 f"constraint_message::{ES}", "relevant", "appearance"]


def row(type_, name="", en="", es="", *, hint=("", ""), required="", required_message=("", ""), constraint="",
        constraint_message=("", ""), relevant="", appearance=""):
    """One row of the survey sheet, in SURVEY_HEADER's order."""
    return [type_, name, en, es, *hint, required, *required_message, constraint, *constraint_message, relevant,
            appearance]


SURVEY = [
    row("begin group", "about", "About you", "Sobre usted", appearance="field-list"),
    row("note", "welcome", "There are no right or wrong answers. You can stop and come back later.",
        "No hay respuestas correctas ni incorrectas. Puede parar y volver más tarde."),
    row("select_one role", "role", "Which best describes you?", "¿Qué le describe mejor?", required="yes",
        required_message=("Please say who you are.", "Diga quién es, por favor.")),
    row("integer", "age", "How old are you?", "¿Cuántos años tiene?", required="yes",
        constraint=". >= 8 and . <= 99",
        constraint_message=("Please give an age from 8 to 99.", "Indique una edad de 8 a 99.")),
    row("end group"),

    row("begin group", "school", "Your school", "Su escuela", appearance="field-list"),
    row("begin group", "climate", "How much do you agree?", "¿Cuánto está de acuerdo?", appearance="table-list"),
    row("select_one agree", "safe", "I feel safe at school.", "Me siento seguro en la escuela.", required="yes"),
    row("select_one agree", "respected", "Adults here treat me with respect.",
        "Los adultos de aquí me tratan con respeto.", required="yes"),
    row("select_one agree", "belong", "I feel I belong at this school.", "Siento que pertenezco a esta escuela."),
    row("end group"),
    row("text", "unsafe_why", "What makes you feel unsafe?", "¿Qué le hace sentirse inseguro?",
        hint=("Do not write anyone's name.", "No escriba el nombre de nadie."),
        relevant="${safe} = '1' or ${safe} = '2'", appearance="multiline"),
    row("end group"),

    row("begin group", "teaching", "Your teaching", "Su enseñanza", appearance="field-list",
        relevant="${role} = 'teacher'"),
    row("integer", "years_teaching", "How many years have you taught?", "¿Cuántos años ha enseñado?",
        required="yes", constraint=". >= 0 and . <= ${age}",
        constraint_message=("You cannot have taught longer than you have lived.",
                            "No puede haber enseñado más años de los que tiene.")),
    row("select_multiple support", "support", "Which support would help you most?",
        "¿Qué apoyo le ayudaría más?", hint=("Choose all that apply.", "Elija todas las que correspondan."),
        constraint="not(selected(., 'none') and count-selected(.) > 1)",
        constraint_message=("'None of these' goes alone.", "'Ninguno' va solo.")),
    row("end group"),

    row("begin group", "last", "Anything else", "Algo más", appearance="field-list"),
    row("text", "comments", "Is there anything else you would like to tell us?",
        "¿Hay algo más que quiera decirnos?", appearance="multiline"),
    row("end group"),
]

CHOICES = [
    ["list_name", "name", f"label::{EN}", f"label::{ES}"],
    ["role", "student", "Student", "Estudiante"],
    ["role", "teacher", "Teacher", "Maestro o maestra"],
    ["role", "parent", "Parent or guardian", "Madre, padre o tutor"],
    ["agree", "1", "Strongly disagree", "Muy en desacuerdo"],
    ["agree", "2", "Disagree", "En desacuerdo"],
    ["agree", "3", "Agree", "De acuerdo"],
    ["agree", "4", "Strongly agree", "Muy de acuerdo"],
    ["support", "mentoring", "Mentoring", "Mentoría"],
    ["support", "time", "Planning time", "Tiempo de planificación"],
    ["support", "training", "Training", "Formación"],
    ["support", "none", "None of these", "Ninguno"],
]

SETTINGS = [
    ["form_id", f"form_title::{EN}", f"form_title::{ES}", "default_language", "version"],
    ["school_climate_sample", "School climate (sample)", "Clima escolar (muestra)", EN, "1"],
]


def build(path=OUTPUT):
    """Write the workbook to ``path``; return the path."""
    book = openpyxl.Workbook()
    for title, rows in (("survey", [SURVEY_HEADER, *SURVEY]), ("choices", CHOICES), ("settings", SETTINGS)):
        sheet = book.active if title == "survey" else book.create_sheet(title)
        sheet.title = title
        for values in rows:
            sheet.append(values)
        sheet.freeze_panes = "A2"
    # A fixed date, so that running the script again changes nothing a reader sees.
    book.properties.created = book.properties.modified = datetime(2026, 11, 25)
    book.save(path)
    return path


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT))
