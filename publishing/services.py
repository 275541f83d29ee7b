"""Importing, revising and publishing surveys for staff, audited: above the definitions (``surveys``), the
answers (whether a question has any) and the audit log (``accounts``), so that ``surveys`` imports nothing of
people or staff."""
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from accounts.audit import Action, audit_record
from accounts.scopes import Scope
from respondents.models import Answer
from surveys.models import Question, Survey
from surveys.services import (
    DocumentSource,
    definition_update,
    document_read,
    status_open,
    survey_create_from_file,
)


def survey_import(*, scope: Scope, source: DocumentSource, filename: str, publish: bool = False) -> Survey:
    """Create the survey in ``source`` (JSON or an XLSForm workbook: ``surveys.services.survey_create_from_file``)
    for a state administrator (the staff area, ``manage.py import_survey``); audited. Raise DocumentError listing
    every problem; nothing is written then."""
    scope.require("can_manage_surveys")
    survey = survey_create_from_file(source=source, filename=filename, publish=publish)
    audit_record(scope=scope, action=Action.SURVEY_LOADED, survey=survey, detail=f"{filename}: version {survey.version}")
    return survey


def survey_revise(*, scope: Scope, source: DocumentSource, filename: str) -> Survey:
    """Give the survey of the same slug as the one in ``source`` that definition, as its next version, applied at
    once to everyone taking it, for a state administrator; audited. A change that would strand saved answers is
    refused (``surveys.services.definition_update``, told which questions have answers): raise DocumentError
    listing every problem; nothing is written then."""
    scope.require("can_manage_surveys")
    document = document_read(source=source, filename=filename)
    slug = document.get("slug") if isinstance(document, dict) else None
    answered = (Question.objects.filter(survey__slug=slug)
                .filter(Exists(Answer.objects.filter(question=OuterRef("pk")))).values_list("code", flat=True))
    survey = definition_update(document=document, answered=set(answered))
    audit_record(scope=scope, action=Action.SURVEY_REVISED, survey=survey,
                 detail=f"{filename}: version {survey.version}")
    return survey


def survey_publish(*, scope: Scope, survey: Survey) -> Survey:
    """Open ``survey`` to respondents for a state administrator (every text in every language:
    ``surveys.services.status_open``); audited."""
    scope.require("can_manage_surveys")
    survey = status_open(survey=survey)
    audit_record(scope=scope, action=Action.SURVEY_PUBLISHED, survey=survey, detail=f"version {survey.version}")
    return survey


def survey_dates_change(*, scope: Scope, survey: Survey, opens_at: datetime | None,
                        closes_at: datetime | None) -> Survey:
    """Set when ``survey`` opens and closes to respondents (None: no limit) for a state administrator; audited.
    Raise ValidationError naming the field when it would close before it opens; nothing changes then."""
    scope.require("can_manage_surveys")
    if opens_at and closes_at and closes_at <= opens_at:
        raise ValidationError({"closes_at": "The closing time must be after the opening time."})
    with transaction.atomic(durable=True):
        survey = Survey.objects.select_for_update().get(pk=survey.pk)
        survey.opens_at, survey.closes_at = opens_at, closes_at
        survey.save(update_fields=["opens_at", "closes_at", "updated_at"])  # save(): the definition cache hears it
        audit_record(scope=scope, action=Action.SURVEY_DATES_CHANGED, survey=survey,
                     detail=f"opens {_local_time(opens_at)}, closes {_local_time(closes_at)}")
    return survey


def survey_close_now(*, scope: Scope, survey: Survey) -> Survey:
    """Close ``survey`` to respondents now: its closing time becomes now (``survey_dates_change``). Raise
    ValidationError when it opens later (change its opening time instead)."""
    now = timezone.now()
    if survey.opens_at and survey.opens_at >= now:
        raise ValidationError({"closes_at": f"It has not opened yet (it opens {_local_time(survey.opens_at)}): "
                                            "clear or change its opening time instead."})
    return survey_dates_change(scope=scope, survey=survey, opens_at=survey.opens_at, closes_at=now)


def _local_time(moment: datetime | None) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M %Z") if moment else "(none)"


