"""Writes of respondents and answers: rosters, and the page save every respondent makes ~60 times."""
from dataclasses import asdict, dataclass, field

from django.db import IntegrityError, transaction
from django.db.models import Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from respondents import access_codes
from respondents.models import Answer, Respondent, Roster
from respondents.selectors import missing_required
from surveys.selectors import progress_percent, required_questions


class PageSaveRefused(Exception):
    """The save was not made; ``reason`` says why (one of the class attributes)."""

    GONE = "gone"
    LOCKED = "locked"

    def __init__(self, reason):
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True)
class PageSaveResult:
    page: int
    next_page: int
    page_count: int
    completed: bool = False
    # For a finish that could not complete: {page_number: [question, ...]}.
    missing: dict = field(default_factory=dict)
    replayed: bool = False

    @property
    def progress(self):
        """Percent of the survey behind the respondent: pages before the next one, or 100 when complete."""
        if self.completed:
            return 100
        return progress_percent(page=self.next_page, page_count=self.page_count)


class Nav:
    """The values of the survey form's `nav` button."""

    BACK = "back"
    NEXT = "next"
    FINISH = "finish"


def page_save(*, respondent_id, definition, values, save_id, nav):
    """Save one page of answers and move the respondent on; return a PageSaveResult.

    ``values`` maps every answerable question on the page to its stored text
    (empty for a blank answer), already validated. All of it is written in one
    transaction: one UPDATE of the respondent's progress, which also takes the
    respondent's row lock and refuses a completed response or a ``save_id``
    already saved, then one INSERT ... ON CONFLICT of the page's answers.
    A save_id seen before saves nothing and answers as the first save did.
    """
    number, page_count = definition.number, definition.page_count
    next_page = {Nav.BACK: max(number - 1, 1), Nav.NEXT: min(number + 1, page_count)}.get(nav, number)
    # Read the definition before the transaction: inside it every read goes to
    # the master (config/db_router.py), and the transaction stays short.
    required = required_questions(survey=definition.survey) if nav == Nav.FINISH else None
    now = timezone.now()
    with transaction.atomic(durable=True):
        updated = (
            Respondent.objects.filter(pk=respondent_id)
            .exclude(status=Respondent.Status.COMPLETED)
            .exclude(last_save_id=save_id)
            .update(
                status=Respondent.Status.IN_PROGRESS,
                current_page=next_page,
                last_save_id=save_id,
                last_saved_at=now,
                started_at=Coalesce("started_at", Value(now)),
            )
        )
        if not updated:
            return _replay(respondent_id=respondent_id, definition=definition, save_id=save_id, required=required)
        Answer.objects.bulk_create(
            [Answer(respondent_id=respondent_id, question=q, value=value, saved_at=now) for q, value in values.items()],
            update_conflicts=True,
            unique_fields=["respondent", "question"],
            update_fields=["value", "saved_at"],
        )
        if nav != Nav.FINISH:
            return PageSaveResult(page=number, next_page=next_page, page_count=page_count)
        return _finish(respondent_id=respondent_id, definition=definition, required=required, now=now)


def _finish(*, respondent_id, definition, required, now):
    """Complete the response if every required question is answered (inside page_save's transaction)."""
    number, page_count = definition.number, definition.page_count
    missing = missing_required(respondent_id=respondent_id, survey=definition.survey, required=required)
    if missing:
        return PageSaveResult(page=number, next_page=min(missing), page_count=page_count, missing=missing)
    Respondent.objects.filter(pk=respondent_id).update(status=Respondent.Status.COMPLETED, completed_at=now)
    return PageSaveResult(page=number, next_page=number, page_count=page_count, completed=True)


def _replay(*, respondent_id, definition, save_id, required):
    """Answer a save that changed nothing: a retried save_id, or one that is refused."""
    respondent = Respondent.objects.filter(pk=respondent_id).only("status", "current_page", "last_save_id").first()
    if respondent is None:
        raise PageSaveRefused(PageSaveRefused.GONE)
    if respondent.last_save_id != save_id:
        raise PageSaveRefused(PageSaveRefused.LOCKED)
    number, page_count = definition.number, definition.page_count
    if respondent.is_completed:
        return PageSaveResult(page=number, next_page=number, page_count=page_count, completed=True, replayed=True)
    missing = {}
    if required is not None:  # a retried finish
        missing = missing_required(respondent_id=respondent_id, survey=definition.survey, required=required)
    next_page = min(missing) if missing else respondent.current_page
    return PageSaveResult(page=number, next_page=next_page, page_count=page_count, missing=missing, replayed=True)


@dataclass(frozen=True)
class RosterEntry:
    external_id: str = ""
    school: str = ""
    grade: str = ""
    role: str = ""
    language: str = "en"


def roster_create(*, survey, name, entries, source_filename="", batch_size=1000):
    """Create a roster of respondents for ``survey``, each with a fresh access code; return it."""
    with transaction.atomic(durable=True):
        roster = Roster.objects.create(survey=survey, name=name, source_filename=source_filename)
        batch = []
        for entry in entries:
            batch.append(Respondent(survey=survey, roster=roster, **asdict(entry)))
            if len(batch) >= batch_size:
                _create_with_codes(batch)
                batch = []
        _create_with_codes(batch)
    return roster


def _create_with_codes(respondents, attempts=3):
    """bulk_create respondents with new access codes, drawing again on the (astronomically rare) clash."""
    for attempt in range(attempts):
        for respondent in respondents:
            respondent.access_code = access_codes.generate()
        try:
            with transaction.atomic():
                Respondent.objects.bulk_create(respondents)
            return
        except IntegrityError:
            if attempt == attempts - 1:
                raise
