"""Writes of survey definitions."""
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
            slug=data["slug"], title=data["title"], intro=data["intro"],
            thank_you=data["thank_you"], status=data["status"],
        )
        pages = Page.objects.bulk_create(
            Page(survey=survey, position=number, title=page["title"], intro=page["intro"], show_if=page["show_if"])
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
            Choice(question=obj, position=position, value=choice["value"], label=choice["label"])
            for obj, question in tops
            for position, choice in enumerate(question["choices"], start=1)
        )
        # bulk_create sends no signals: drop cached definition queries by hand.
        definitions_changed([survey, *pages, *(o for o, _ in tops), *rows, *choices])
    return survey


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
    }
