"""Writes of survey definitions: the parts of importing, revising and publishing a survey that need nothing but
the definitions (the staff's scoped, audited operations are ``publishing.services``'s)."""
import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import IO, cast

from django.db import models, transaction
from django.db.models import ProtectedError

from surveys import xlsform
from surveys.documents import (
    MAX_DOCUMENT_BYTES,
    CheckedQuestion,
    CheckedSurvey,
    DocumentError,
    SurveyDocument,
    parse_survey_document,
    survey_document_loads,
)
from surveys.invalidation import definitions_changed
from surveys.languages import language_name
from surveys.models import Choice, Page, Question, Survey

# Where a survey document is read from: a path or a binary file.
DocumentSource = str | os.PathLike[str] | IO[bytes]
# A question of a checked document, by code: (page number, its grid's code or None, position, its data).
_Flat = tuple[int, str | None, int, CheckedQuestion]


def survey_create(*, document: SurveyDocument) -> Survey:
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
            form_version=data["form_version"], load_warnings=data["warnings"],
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
                   translations=choice["translations"], show_if=choice["show_if"])
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


def definition_update(*, document: SurveyDocument, answered: Collection[str]) -> Survey:
    """Give the survey the document names (by slug) the document's definition, as its next version; return it.

    Wording, translations, rules, new questions and choices, and pages may
    change at once for everyone taking it (the definition caches are
    invalidated as for any change). What would strand saved answers is
    refused, with the reason, for a question that has answers: removing it,
    changing its kind or its grid, removing or changing a choice value.
    ``answered`` holds the codes of the questions that have answers
    (``publishing.services.survey_revise`` reads them). Questions are
    matched by code, choices by value, pages by position. The survey keeps
    its status; an open one must have every text in every language.
    """
    data = parse_survey_document(document)
    with transaction.atomic(durable=True):
        survey = Survey.objects.select_for_update().filter(slug=data["slug"]).first()
        if survey is None:
            raise DocumentError([f"survey.slug: there is no survey '{data['slug']}' to revise"])
        old = {q.code: q for q in Question.objects.filter(survey=survey).select_related("grid")}
        old_choices: dict[int, dict[str, Choice]] = {}
        for choice in Choice.objects.filter(question__survey=survey):
            old_choices.setdefault(choice.question_id, {})[choice.value] = choice
        new = _flattened(data)
        problems = _stranded(old, old_choices, new, answered)
        if problems:
            raise DocumentError(problems)
        try:
            changed, deleted = _definition_write(survey, data, old, old_choices, new)
        except ProtectedError as error:
            # A question's first answers landed after ``answered`` was read: the same refusal as above.
            codes = {q.pk: code for code, q in old.items()}
            # What protects a question is its answers (respondents.Answer, which this app does not import).
            question_ids = {answer.question_id for answer in error.protected_objects}  # type: ignore[attr-defined]
            raise DocumentError([f"question '{code}' has answers: it cannot be removed" for code in
                                 sorted({codes[pk] for pk in question_ids})]) from error
        survey.version += 1
        survey.form_version, survey.load_warnings = data["form_version"], data["warnings"]
        survey.save(update_fields=["title", "intro", "thank_you", "languages", "translations", "version",
                                   "form_version", "load_warnings", "updated_at"])
        if survey.status == Survey.Status.OPEN:
            gaps = survey_translation_gaps(survey=survey)
            if gaps:
                raise DocumentError(gaps)
        # bulk writes send no signals: drop cached definition queries by hand (the memo with them).
        definitions_changed([survey, *changed, *deleted])
    return survey


def _flattened(data: CheckedSurvey) -> dict[str, _Flat]:
    """Return ``{code: (page number, grid code or None, position, question data)}`` of a checked document."""
    flat: dict[str, _Flat] = {}
    for number, page in enumerate(data["pages"], start=1):
        for position, question in enumerate(page["questions"], start=1):
            flat[question["code"]] = (number, None, position, question)
            for row_position, row in enumerate(question["rows"], start=1):
                flat[row["code"]] = (number, question["code"], row_position, {**row, "choices": question["choices"]})
    return flat


def _stranded(old: Mapping[str, Question], old_choices: Mapping[int, Mapping[str, Choice]], new: Mapping[str, _Flat],
              answered: Collection[str]) -> list[str]:
    """Return why the new definition would strand saved answers: one problem per question."""
    problems = []
    for code, question in old.items():
        if code not in answered:
            continue
        has = f"question '{code}' has answers"
        if code not in new:
            problems.append(f"{has}: it cannot be removed")
            continue
        _, grid, _, data = new[code]
        if data["kind"] != question.kind:
            problems.append(f"{has}: its kind cannot change ({question.kind} to {data['kind']})")
        elif grid != (question.grid.code if question.grid is not None else None):  # read with the question
            problems.append(f"{has}: it cannot move into or out of a grid")
        else:
            values = set(old_choices.get(question.grid_id or question.pk, {}))
            gone = sorted(values - {choice["value"] for choice in data["choices"]})
            if gone:
                problems.append(f"{has}: its choice values cannot be removed or changed ({', '.join(gone)})")
    return problems


_PAGE_FIELDS = ["title", "intro", "show_if", "translations"]
_QUESTION_FIELDS = ["page", "grid", "position", "kind", "prompt", "help_text", "required", "min_value", "max_value",
                    "max_length", "show_if", "constraint", "constraint_message", "required_message", "translations",
                    "default_value", "calculation"]


def _definition_write(survey: Survey, data: CheckedSurvey, old: Mapping[str, Question],
            old_choices: Mapping[int, Mapping[str, Choice]],
            new: Mapping[str, _Flat]) -> tuple[list[Page | Question | Choice], list[Page | Question | Choice]]:
    """Write the new definition over the old (inside definition_update's transaction); return (changed, deleted).

    Bulk writes, as ``survey_create``'s: one invalidation for the whole change, not one per row.
    """
    survey.title, survey.intro, survey.thank_you = data["title"], data["intro"], data["thank_you"]
    survey.languages, survey.translations = data["languages"], data["translations"]
    pages = {page.position: page for page in Page.objects.filter(survey=survey)}
    kept_pages: list[Page] = []
    new_pages: list[Page] = []
    for number, page_data in enumerate(data["pages"], start=1):
        page = pages.get(number)
        if page is None:
            page = pages[number] = Page(survey=survey, position=number)
            new_pages.append(page)
        else:
            kept_pages.append(page)
        page.title, page.intro, page.show_if = page_data["title"], page_data["intro"], page_data["show_if"]
        page.translations = page_data["translations"]
    Page.objects.bulk_update(kept_pages, _PAGE_FIELDS)
    Page.objects.bulk_create(new_pages)

    questions: dict[str, Question] = {}
    changed: list[Page | Question | Choice] = [*kept_pages, *new_pages]
    # Grids (and the other top-level questions) first, so that rows can point at them.
    for rows in (False, True):
        kept: list[Question] = []
        made: list[Question] = []
        for code, (number, grid, position, question_data) in new.items():
            if (grid is not None) != rows:
                continue
            question = old.get(code)
            if question is None:
                question = Question(survey=survey, code=code)
                made.append(question)
            else:
                kept.append(question)
            question.page, question.grid = pages[number], questions[grid] if grid else None
            for name, value in _question_fields(question_data, position).items():
                setattr(question, name, value)
            questions[code] = question
        Question.objects.bulk_update(kept, _QUESTION_FIELDS)
        Question.objects.bulk_create(made)
        changed += kept + made

    kept_choices: list[Choice] = []
    new_choices: list[Choice] = []
    deleted: list[Page | Question | Choice] = []
    for code, (_, grid, _, question_data) in new.items():
        if grid is not None:
            continue
        question = questions[code]
        before = old_choices.get(question.pk, {})
        for position, choice_data in enumerate(question_data["choices"], start=1):
            choice = before.get(choice_data["value"])
            if choice is None:
                choice = Choice(question=question, value=choice_data["value"])
                new_choices.append(choice)
            else:
                kept_choices.append(choice)
            choice.position, choice.label = position, choice_data["label"]
            choice.translations, choice.show_if = choice_data["translations"], choice_data["show_if"]
        deleted += [before[value] for value in before.keys() - {c["value"] for c in question_data["choices"]}]
    Choice.objects.bulk_update(kept_choices, ["position", "label", "translations", "show_if"])
    Choice.objects.bulk_create(new_choices)
    changed += kept_choices + new_choices

    deleted += [old[code] for code in old.keys() - new.keys()]
    deleted += [page for number, page in pages.items() if number > len(data["pages"])]
    for model in (Choice, Question, Page):
        model.objects.filter(pk__in=[obj.pk for obj in deleted if isinstance(obj, model)]).delete()
    return changed, deleted


def document_read(*, source: DocumentSource, filename: str, publish: bool = False) -> SurveyDocument:
    """Return the survey document in ``source`` (a path or a binary file): our JSON (``.json``) or an XLSForm
    workbook (``.xlsx``, always a draft unless ``publish``); raise DocumentError listing every problem."""
    suffix = Path(filename).suffix.lower()
    if suffix not in (".xlsx", ".json"):
        raise DocumentError([f"{filename}: a survey is a .json document or an .xlsx XLSForm"])
    # Either is read no further than one byte past what it may hold: a larger one is refused unread. (A
    # workbook's parts are compressed: one larger than its limit unpacked is larger than it packed too.)
    size = xlsform.XLSFORM_MAX_BYTES + 1 if suffix == ".xlsx" else MAX_DOCUMENT_BYTES + 1
    if hasattr(source, "read"):
        raw = source.read(size)
    else:
        with open(source, "rb") as file:
            raw = file.read(size)
    if suffix == ".xlsx":
        if len(raw) > xlsform.XLSFORM_MAX_BYTES:
            raise DocumentError([f"{filename}: a survey workbook is at most {xlsform.XLSFORM_MAX_BYTES / 1e6:g} MB; "
                                 "this one is larger"])
        return xlsform.xlsform_document(raw, filename=filename,
                                        status=Survey.Status.OPEN if publish else Survey.Status.DRAFT)
    document = survey_document_loads(raw, filename=filename)
    if publish and isinstance(document, dict):
        document["status"] = Survey.Status.OPEN
    return cast(SurveyDocument, document)  # any JSON yet: parse_survey_document checks it


def survey_create_from_file(*, source: DocumentSource, filename: str, publish: bool = False) -> Survey:
    """Check the survey in ``source`` (``document_read``) and create it. Raise DocumentError listing every
    problem; nothing is written then."""
    return survey_create(document=document_read(source=source, filename=filename, publish=publish))


def document_check(*, source: DocumentSource, filename: str, publish: bool = False) -> CheckedSurvey:
    """Check the survey in ``source`` as ``survey_create_from_file`` would, and return the checked document (a dry
    run): nothing is written. Raise DocumentError listing every problem."""
    return parse_survey_document(document_read(source=source, filename=filename, publish=publish))


def _question_fields(question: CheckedQuestion, position: int) -> dict[str, object]:
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
        "default_value": question["default"],
        "calculation": question["calculation"],
    }


# The texts of each definition row that a respondent reads, in the order a page shows them.
TRANSLATED_FIELDS: dict[type[models.Model], tuple[str, ...]] = {
    Survey: ("title", "intro", "thank_you"),
    Page: ("title", "intro"),
    Question: ("prompt", "help_text", "constraint_message", "required_message"),
    Choice: ("label",),
}


def survey_translation_gaps(*, survey: Survey) -> list[str]:
    """Return what ``survey`` lacks to be published: each text given in its first language and missing in another.

    Each gap names where the text is, which text, and the language:
    ``"page 2, question 'safe_hallways', prompt: no Spanish (es) text"``.
    """
    others = survey.languages[1:]
    if not others:
        return []
    positions: dict[int, int] = {}
    rows: list[tuple[str, Survey | Page | Question | Choice]] = [("survey", survey)]
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
                    gaps.append(f"{where}, {field}: no {language_name(language)} ({language}) text")
    return gaps


def status_open(*, survey: Survey) -> Survey:
    """Set ``survey``'s status to open; raise DocumentError listing every missing translation (nothing changes)."""
    with transaction.atomic(durable=True):
        survey = Survey.objects.select_for_update().get(pk=survey.pk)
        gaps = survey_translation_gaps(survey=survey)
        if gaps:
            raise DocumentError(gaps)
        survey.status = Survey.Status.OPEN
        survey.save(update_fields=["status", "updated_at"])
    return survey
