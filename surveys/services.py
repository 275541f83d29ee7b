"""Writes of survey definitions."""
import json
from pathlib import Path

from django.conf import settings
from django.db import transaction

from surveys.caching import definitions_changed
from surveys.documents import DocumentError, parse_survey_document
from surveys.models import Choice, Page, Question, Survey


def survey_create(*, document):
    """Create a survey from a survey document (see ``surveys.documents``) and return it.

    The document is checked whole first; on any problem DocumentError lists them
    all and nothing is written.
    """
    data = parse_survey_document(document)
    with transaction.atomic(durable=True):
        if Survey.objects.filter(slug=data["slug"]).exists():
            raise DocumentError([f"survey.slug: a survey '{data['slug']}' already exists"])
        survey = Survey.objects.create(
            slug=data["slug"], title=data["title"], intro=data["intro"], thank_you=data["thank_you"],
            status=data["status"], languages=data["languages"], translations=data["translations"],
        )
        pages = Page.objects.bulk_create(
            Page(survey=survey, position=number, title=page["title"], intro=page["intro"], show_if=page["show_if"],
                 translations=page["translations"])
            for number, page in enumerate(data["pages"], start=1)
        )
        # Grids first, so that their rows can point at them.
        tops = [
            (Question(survey=survey, page=page, **_question_fields(question, position)), question)
            for page, page_data in zip(pages, data["pages"], strict=False)
            for position, question in enumerate(page_data["questions"], start=1)
        ]
        Question.objects.bulk_create(obj for obj, _ in tops)
        rows = [
            Question(survey=survey, page=grid.page, grid=grid, **_question_fields(row, position))
            for grid, question in tops
            for position, row in enumerate(question["rows"], start=1)
        ]
        Question.objects.bulk_create(rows)
        choices = Choice.objects.bulk_create(
            Choice(question=obj, position=position, value=choice["value"], label=choice["label"],
                   translations=choice["translations"])
            for obj, question in tops
            for position, choice in enumerate(question["choices"], start=1)
        )
        if survey.status == Survey.Status.OPEN:
            gaps = survey_translation_gaps(survey=survey)
            if gaps:
                raise DocumentError(gaps)
        # bulk_create sends no signals: drop cached definition queries by hand.
        definitions_changed([survey, *pages, *(o for o, _ in tops), *rows, *choices])
    return survey


def survey_document_read(*, source, filename: str, publish: bool = False) -> dict:
    """Return the survey document in ``source`` (a path or a binary file): our JSON (``.json``) or an XLSForm
    workbook (``.xlsx``, always a draft unless ``publish``); raise DocumentError listing every problem."""
    from surveys.xlsform import xlsform_document

    suffix = Path(filename).suffix.lower()
    if suffix == ".xlsx":
        return xlsform_document(source, status=Survey.Status.OPEN if publish else Survey.Status.DRAFT)
    if suffix != ".json":
        raise DocumentError([f"{filename}: a survey is a .json document or an .xlsx XLSForm"])
    try:
        raw = source.read() if hasattr(source, "read") else Path(source).read_bytes()
        document = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DocumentError([f"{filename}: not a JSON document ({error})"]) from error
    if publish and isinstance(document, dict):
        document["status"] = Survey.Status.OPEN
    return document


def survey_import(*, source, filename: str, publish: bool = False, dry_run: bool = False) -> Survey | dict:
    """Check the survey in ``source`` (``survey_document_read``) and create it; with ``dry_run`` only check it
    and return the checked document. Raise DocumentError listing every problem; nothing is written then."""
    document = survey_document_read(source=source, filename=filename, publish=publish)
    if dry_run:
        return parse_survey_document(document)
    return survey_create(document=document)


def _question_fields(question, position):
    return {
        "position": position,
        "code": question["code"],
        "kind": question["kind"],
        "prompt": question["prompt"],
        "help_text": question["help_text"],
        "required": question["required"],
        "min_value": question["min_value"],
        "max_value": question["max_value"],
        "max_length": question["max_length"],
        "show_if": question["show_if"],
        "constraint": question["constraint"],
        "constraint_message": question["constraint_message"],
        "required_message": question["required_message"],
        "translations": question["translations"],
    }


# The texts of each definition row that a respondent reads, in the order a page shows them.
TRANSLATED_FIELDS = {
    Survey: ("title", "intro", "thank_you"),
    Page: ("title", "intro"),
    Question: ("prompt", "help_text", "constraint_message", "required_message"),
    Choice: ("label",),
}


def survey_translation_gaps(*, survey) -> list[str]:
    """Return what ``survey`` lacks to be published: each text given in its first language and missing in another.

    Each gap names where the text is, which text, and the language:
    ``"page 2, question 'safe_hallways', prompt: no Spanish (es) text"``.
    """
    names = dict(settings.LANGUAGES)
    others = survey.languages[1:]
    if not others:
        return []
    positions = {}
    rows = [("survey", survey)]
    for page in Page.objects.filter(survey=survey).order_by("position"):
        positions[page.pk] = page.position
        rows.append((f"page {page.position}", page))
    questions = Question.objects.filter(survey=survey).order_by("page__position", "grid_id", "position")
    for question in questions:
        rows.append((f"page {positions[question.page_id]}, question '{question.code}'", question))
    for choice in Choice.objects.filter(question__survey=survey).select_related("question").order_by(
            "question__page__position", "question_id", "position"):
        rows.append((f"question '{choice.question.code}', choice '{choice.value}'", choice))
    gaps = []
    for where, row in rows:
        for field in TRANSLATED_FIELDS[type(row)]:
            if not getattr(row, field):
                continue
            for language in others:
                if not row.translations.get(language, {}).get(field):
                    gaps.append(f"{where}, {field}: no {names.get(language, language)} ({language}) text")
    return gaps


def survey_publish(*, survey) -> Survey:
    """Open ``survey`` to respondents; raise DocumentError listing every missing translation (nothing changes)."""
    with transaction.atomic(durable=True):
        survey = Survey.objects.select_for_update().get(pk=survey.pk)
        gaps = survey_translation_gaps(survey=survey)
        if gaps:
            raise DocumentError(gaps)
        survey.status = Survey.Status.OPEN
        survey.save(update_fields=["status", "updated_at"])
    return survey
