"""Writes of respondents and answers: rosters, and the page save every respondent makes ~60 times."""
from dataclasses import dataclass, field, fields
from functools import cache

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connections, router, transaction
from django.db.models import Exists, OuterRef, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from respondents import access_codes
from respondents.audit import Action, audit_record
from respondents.models import Answer, Nav, PageSave, Respondent, Roster, School
from respondents.selectors import missing_required
from respondents.sql import column, table
from surveys.flow import Route
from surveys.models import Question, Survey
from surveys.selectors import required_questions, survey_flow
from surveys.services import survey_document_read, survey_import, survey_publish, survey_revise


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
    # The pages that apply to the respondent (all of them when none has a show_if).
    pages: tuple = ()

    @property
    def progress(self):
        """Percent of the pages that apply behind the respondent: those before the next one, or 100 when complete."""
        if self.completed:
            return 100
        return Route(number=self.next_page, pages=self.pages or tuple(range(1, self.page_count + 1))).progress


def page_save(*, respondent_id: int, definition, values: dict, save_id, nav: str, access_code=None,
              route: Route | None = None) -> PageSaveResult:
    """Save one page of answers and move the respondent on; return a PageSaveResult.

    ``values`` maps every answerable question on the page to its stored text
    (empty for a blank answer), already validated. All of it is written at once:
    on PostgreSQL a Back or Next save is one statement (``_page_save_statement``),
    otherwise one transaction: one UPDATE of the respondent's progress, which also takes the
    respondent's row lock and refuses a completed response or a ``save_id``
    this respondent has used before, then one INSERT ... ON CONFLICT of the
    page's answers, then one INSERT into the page-save log. A save_id used
    before saves nothing and is answered as its first save was. With
    ``access_code`` (the code the session logged in with), a respondent whose
    code was reissued since, or who was withdrawn, is refused as GONE: the same
    UPDATE checks it, so it costs no query.

    ``route`` places the page among the pages that apply to the respondent
    with this page's answers (``surveys/flow.py``): Back and Next go to the
    nearest page that applies. Without it every page applies.
    """
    number, page_count = definition.number, definition.page_count
    route = route or Route(number=number, pages=tuple(range(1, page_count + 1)))
    next_page = {Nav.BACK: route.previous, Nav.NEXT: route.next}.get(nav, number)
    # Read the definition before the transaction: inside it every read goes to
    # the master (config/db_router.py), and the transaction stays short.
    required = required_questions(survey=definition.survey) if nav == Nav.FINISH else None
    flow = survey_flow(survey=definition.survey) if nav == Nav.FINISH else None
    now = timezone.now()
    try:
        database = connections[router.db_for_write(Answer)]
        if nav != Nav.FINISH and database.vendor == "postgresql":
            if _page_save_statement(database, respondent_id=respondent_id, values=values, save_id=save_id, nav=nav,
                                    number=number, next_page=next_page, access_code=access_code, now=now):
                return PageSaveResult(page=number, next_page=next_page, page_count=page_count, pages=route.pages)
            with transaction.atomic(durable=True):
                return _replay(respondent_id=respondent_id, definition=definition, save_id=save_id, required=required,
                               access_code=access_code, route=route)
        with transaction.atomic(durable=True):
            respondent = Respondent.objects.filter(pk=respondent_id)
            if access_code is not None:
                respondent = respondent.filter(access_code=access_code, withdrawn_at=None)
            updated = (
                respondent
                .exclude(status=Respondent.Status.COMPLETED)
                .exclude(Exists(PageSave.objects.filter(respondent_id=OuterRef("pk"), save_id=save_id)))
                .update(
                    status=Respondent.Status.IN_PROGRESS,
                    current_page=next_page,
                    last_saved_at=now,
                    started_at=Coalesce("started_at", Value(now)),
                )
            )
            if not updated:
                return _replay(respondent_id=respondent_id, definition=definition, save_id=save_id, required=required,
                               access_code=access_code, route=route)
            Answer.objects.bulk_create(
                [Answer(respondent_id=respondent_id, question=q, value=v, saved_at=now) for q, v in values.items()],
                update_conflicts=True,
                unique_fields=["respondent", "question"],
                update_fields=["value", "saved_at"],
            )
            result = PageSaveResult(page=number, next_page=next_page, page_count=page_count, pages=route.pages)
            if nav == Nav.FINISH:
                result = _finish(respondent_id=respondent_id, definition=definition, required=required, flow=flow,
                                 now=now, route=route)
            PageSave.objects.create(
                respondent_id=respondent_id, save_id=save_id, page=number, nav=nav, next_page=result.next_page,
                completed=result.completed, answer_count=len(values), saved_at=now,
            )
            return result
    except IntegrityError:
        # The same save_id committed by a concurrent request while this one
        # waited for the row lock: the UPDATE's NOT EXISTS read an older
        # snapshot, the log's unique constraint did not. Everything is rolled back.
        with transaction.atomic(durable=True):
            if not PageSave.objects.filter(respondent_id=respondent_id, save_id=save_id).exists():
                raise  # some other constraint: not a replay
            return _replay(respondent_id=respondent_id, definition=definition, save_id=save_id, required=required,
                           route=route)


@cache
def _page_save_sql():
    """The statement ``_page_save_statement`` sends, with the tables' and columns' names from the models."""
    r, a, p = Respondent, Answer, PageSave
    return f"""
        WITH moved AS (
            UPDATE {table(r)}
            SET {column(r, "status")} = %(in_progress)s, {column(r, "current_page")} = %(next_page)s,
                {column(r, "last_saved_at")} = %(now)s,
                {column(r, "started_at")} = COALESCE({column(r, "started_at")}, %(now)s)
            WHERE {column(r, "id")} = %(respondent)s AND {column(r, "status")} <> %(completed)s
              AND (%(access_code)s IS NULL
                   OR ({column(r, "access_code")} = %(access_code)s AND {column(r, "withdrawn_at")} IS NULL))
              AND NOT EXISTS (SELECT 1 FROM {table(p)}
                              WHERE {column(p, "respondent")} = %(respondent)s AND {column(p, "save_id")} = %(save_id)s)
            RETURNING {column(r, "id")} AS id
        ), answered AS (
            INSERT INTO {table(a)} ({column(a, "respondent")}, {column(a, "question")}, {column(a, "value")},
                                   {column(a, "saved_at")})
            SELECT moved.id, given.question, given.value, %(now)s
            FROM moved, UNNEST(%(questions)s::bigint[], %(values)s::text[]) AS given (question, value)
            ON CONFLICT ({column(a, "respondent")}, {column(a, "question")})
            DO UPDATE SET {column(a, "value")} = EXCLUDED.{column(a, "value")},
                          {column(a, "saved_at")} = EXCLUDED.{column(a, "saved_at")}
        ), logged AS (
            INSERT INTO {table(p)} ({column(p, "respondent")}, {column(p, "save_id")}, {column(p, "page")},
                                   {column(p, "nav")}, {column(p, "next_page")}, {column(p, "completed")},
                                   {column(p, "answer_count")}, {column(p, "saved_at")})
            SELECT moved.id, %(save_id)s, %(page)s, %(nav)s, %(next_page)s, FALSE, %(answer_count)s, %(now)s FROM moved
        )
        SELECT count(*) FROM moved
    """


def _page_save_statement(database, *, respondent_id, values, save_id, nav, number, next_page, access_code,
                         now) -> bool:
    """Make a page save that does not finish (Next, Back) in one statement on PostgreSQL; return whether it applied.

    The same writes as ``page_save``'s transaction (the conditional UPDATE, the upsert of the answers, the log row),
    as one statement of data-modifying CTEs: one round trip through pgbouncer instead of five (BEGIN, three
    statements, COMMIT), and no ORM query to build (docs/performance.md). A statement is atomic on its own, its
    UPDATE takes the row lock first, and the two INSERTs write only when it updated a row; a save_id committed
    meanwhile by a concurrent request raises IntegrityError on the log's unique constraint, as in the transaction.
    """
    with database.cursor() as cursor:
        cursor.execute(_page_save_sql(), {
            "respondent": respondent_id, "save_id": str(save_id), "nav": nav, "page": number,
            "next_page": next_page, "now": now, "access_code": access_code, "answer_count": len(values),
            "questions": [question.pk for question in values], "values": list(values.values()),
            "in_progress": Respondent.Status.IN_PROGRESS.value, "completed": Respondent.Status.COMPLETED.value,
        })
        return cursor.fetchone()[0] == 1


def _finish(*, respondent_id, definition, required, flow, now, route):
    """Complete the response if every required question that is asked is answered (inside page_save's transaction)."""
    number, page_count = definition.number, definition.page_count
    missing = missing_required(respondent_id=respondent_id, survey=definition.survey, required=required, flow=flow)
    if missing:
        return PageSaveResult(page=number, next_page=min(missing), page_count=page_count, missing=missing,
                              pages=route.pages)
    Respondent.objects.filter(pk=respondent_id).update(status=Respondent.Status.COMPLETED, completed_at=now)
    return PageSaveResult(page=number, next_page=number, page_count=page_count, completed=True, pages=route.pages)


def _replay(*, respondent_id, definition, save_id, required, route, access_code=None):
    """Answer a save that changed nothing: a save_id used before, or a save that is refused.

    Runs inside a transaction, so it reads the master (config/db_router.py).
    """
    first = PageSave.objects.filter(respondent_id=respondent_id, save_id=save_id).first()
    if first is None:
        current = Respondent.objects.filter(pk=respondent_id)
        if access_code is not None:
            current = current.filter(access_code=access_code, withdrawn_at=None)
        if not current.exists():
            raise PageSaveRefused(PageSaveRefused.GONE)
        raise PageSaveRefused(PageSaveRefused.LOCKED)
    missing = {}
    if first.nav == Nav.FINISH and not first.completed:
        # What is missing now: the person may have answered some of it since.
        missing = missing_required(respondent_id=respondent_id, survey=definition.survey, required=required)
    return PageSaveResult(
        page=first.page, next_page=first.next_page, page_count=definition.page_count,
        completed=first.completed, missing=missing, replayed=True, pages=route.pages,
    )


def survey_load(*, scope, source, filename: str, new_version: bool = False, publish: bool = False) -> Survey:
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


def survey_open(*, scope, survey) -> Survey:
    """Publish ``survey`` for a state administrator (every text in every language: ``survey_publish``); audited."""
    scope.require("can_manage_surveys")
    survey = survey_publish(survey=survey)
    audit_record(scope=scope, action=Action.SURVEY_PUBLISHED, survey=survey, detail=f"version {survey.version}")
    return survey


def survey_version_create(*, document) -> Survey:
    """Revise the survey ``document`` names (by slug) with it: its next version, applied at once to everyone
    taking it; a change that would strand saved answers is refused (``surveys.services.survey_revise``)."""
    slug = document.get("slug") if isinstance(document, dict) else None
    answered = (Question.objects.filter(survey__slug=slug)
                .filter(Exists(Answer.objects.filter(question=OuterRef("pk")))).values_list("code", flat=True))
    return survey_revise(document=document, answered=set(answered))


def respondent_set_language(*, respondent_id: int, language: str) -> None:
    """Keep the language a respondent chose to take the survey in: their next login starts in it."""
    Respondent.objects.filter(pk=respondent_id).exclude(language=language).update(language=language)


@dataclass(frozen=True)
class RosterEntry:
    external_id: str = ""
    school: School | None = None
    grade: str = ""
    role: str = ""
    language: str = "en"
    display_name: str = ""


def roster_create(*, survey, name, entries, source_filename="", batch_size=1000):
    """Create a roster of respondents for ``survey``, each with a fresh access code; return it."""
    with transaction.atomic(durable=True):
        roster = Roster.objects.create(survey=survey, name=name, source_filename=source_filename)
        batch = []
        for entry in entries:
            values = {f.name: getattr(entry, f.name) for f in fields(entry)}
            batch.append(Respondent(survey=survey, roster=roster, **values))
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


def respondent_reissue_code(*, scope, respondent_id, attempts=3):
    """Give the respondent a new access code and return it; the old one stops working at once.

    Answers and progress are kept. A session that logged in with the old code
    ends on its next request (``page_save`` and the respondent screens check
    the code the session holds). Raises Respondent.DoesNotExist for anyone
    outside ``scope``.
    """
    scope.require("can_manage_people")
    for attempt in range(attempts):
        code = access_codes.generate()
        try:
            with transaction.atomic(durable=True):
                respondent = _in_scope(scope, respondent_id)
                Respondent.objects.filter(pk=respondent.pk).update(access_code=code)
                audit_record(scope=scope, action=Action.CODE_REISSUED, survey=respondent.survey,
                             school=respondent.school, detail=f"respondent {respondent}")
            return code
        except IntegrityError:  # the new code is someone else's (astronomically rare): draw again
            if attempt == attempts - 1:
                raise


def respondent_withdraw(*, scope, respondent_ids, survey):
    """Withdraw respondents of ``survey``: their codes no longer log in and their sessions end; answers are kept.

    Those outside ``scope`` or already withdrawn are left alone; return how many were withdrawn.
    """
    return _set_withdrawn(scope=scope, respondent_ids=respondent_ids, survey=survey, withdrawn=True)


def respondent_restore(*, scope, respondent_ids, survey):
    """Undo ``respondent_withdraw``: the same codes log in again and resume where they stopped; return how many."""
    return _set_withdrawn(scope=scope, respondent_ids=respondent_ids, survey=survey, withdrawn=False)


def _set_withdrawn(*, scope, respondent_ids, survey, withdrawn):
    scope.require("can_manage_people")
    with transaction.atomic(durable=True):
        chosen = scope.respondents(survey).filter(pk__in=list(respondent_ids), withdrawn_at__isnull=withdrawn)
        people = list(chosen.select_related("school").select_for_update(of=("self",)))
        Respondent.objects.filter(pk__in=[p.pk for p in people]).update(
            withdrawn_at=timezone.now() if withdrawn else None)
        action = Action.RESPONDENT_WITHDRAWN if withdrawn else Action.RESPONDENT_RESTORED
        for person in people:
            audit_record(scope=scope, action=action, survey=survey, school=person.school,
                         detail=f"respondent {person}")
    return len(people)


def _in_scope(scope, respondent_id):
    """The respondent, row-locked, if ``scope`` covers them; Respondent.DoesNotExist otherwise."""
    return (scope.respondents(None).select_related("survey", "school").select_for_update(of=("self",))
            .get(pk=respondent_id))


def display_names_purge(*, survey) -> int:
    """Blank the names printed on slips of every respondent of a closed survey; return how many were blanked.

    The names serve only to hand out slips: they are never exported with
    answers, and once the survey has closed they are not kept.
    """
    return Respondent.objects.filter(survey=survey).exclude(display_name="").update(display_name="")


def display_names_purge_closed(*, now=None) -> dict:
    """Purge the slip names of every survey that has closed (by status, or its closing time passed)."""
    now = now or timezone.now()
    closed = Survey.objects.filter(Q(status=Survey.Status.CLOSED) | Q(closes_at__lte=now))
    return {survey.slug: display_names_purge(survey=survey) for survey in closed}


def survey_dates_change(*, scope, survey, opens_at, closes_at) -> Survey:
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


def survey_close_now(*, scope, survey) -> Survey:
    """Close ``survey`` to respondents now: its closing time becomes now (``survey_dates_change``). Raise
    ValidationError when it opens later (change its opening time instead)."""
    now = timezone.now()
    if survey.opens_at and survey.opens_at >= now:
        raise ValidationError({"closes_at": f"It has not opened yet (it opens {_local_time(survey.opens_at)}): "
                                            "clear or change its opening time instead."})
    return survey_dates_change(scope=scope, survey=survey, opens_at=survey.opens_at, closes_at=now)


def _local_time(moment):
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M %Z") if moment else "(none)"
