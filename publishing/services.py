"""Loading, publishing and revising surveys for staff, audited: above the definitions (``surveys``), the
answers (whether a question has any) and the audit log (``accounts``), so that ``surveys`` imports nothing of
people or staff."""
import os
from datetime import datetime
from typing import IO

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from accounts.audit import Action, audit_record
from accounts.scopes import Scope
from respondents.models import Answer
from surveys.documents import SurveyDocument
from surveys.models import Question, Survey
from surveys.services import survey_document_read, survey_import, survey_publish, survey_revise


def survey_load(*, scope: Scope, source: str | os.PathLike[str] | IO[bytes], filename: str, new_version: bool = False,
                publish: bool = False) -> Survey:
    """Load the survey in ``source`` (JSON or an XLSForm workbook, ``surveys.services.survey_import``) for a state
    administrator (the staff area, ``manage.py import_survey``): a new survey, or with ``new_version`` the next
    version of the survey of the same slug; audited. Raise DocumentError listing every problem; nothing is
    written then."""
    scope.require("can_manage_surveys")
    if new_version:
        survey = survey_version_create(document=survey_document_read(source=source, filename=filename))
    else:
        survey = survey_import(source=source, filename=filename, publish=publish)
    action = Action.SURVEY_REVISED if new_version else Action.SURVEY_LOADED
    audit_record(scope=scope, action=action, survey=survey, detail=f"{filename}: version {survey.version}")
    return survey


def survey_open(*, scope: Scope, survey: Survey) -> Survey:
    """Publish ``survey`` for a state administrator (every text in every language: ``survey_publish``); audited."""
    scope.require("can_manage_surveys")
    survey = survey_publish(survey=survey)
    audit_record(scope=scope, action=Action.SURVEY_PUBLISHED, survey=survey, detail=f"version {survey.version}")
    return survey


def survey_version_create(*, document: SurveyDocument) -> Survey:
    """Revise the survey ``document`` names (by slug) with it: its next version, applied at once to everyone
    taking it; a change that would strand saved answers is refused (``surveys.services.survey_revise``)."""
    slug = document.get("slug") if isinstance(document, dict) else None
    answered = (Question.objects.filter(survey__slug=slug)
                .filter(Exists(Answer.objects.filter(question=OuterRef("pk")))).values_list("code", flat=True))
    return survey_revise(document=document, answered=set(answered))


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


