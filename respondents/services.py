"""Writes of respondents and answers: rosters, and the page save every respondent makes ~60 times."""
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import TypeVar
from uuid import UUID

from django.db import IntegrityError, connections, router, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Exists, OuterRef, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from infra.sql import column, table
from respondents.models import Answer, LoginLimitHit, Nav, PageSave, Respondent, School
from respondents.selectors import QuestionKey, missing_required
from surveys.flow import Route, SurveyFlow
from surveys.models import Question
from surveys.selectors import PageDefinition, required_questions, survey_flow

# The questions of the page being saved: Question rows, or a page definition's copies of them.
_Question = TypeVar("_Question", bound=QuestionKey)


class PageSaveRefused(Exception):
    """The save was not made; ``reason`` says why (one of the class attributes)."""

    GONE = "gone"
    LOCKED = "locked"

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True)
class PageSaveResult:
    page: int
    next_page: int
    page_count: int
    completed: bool = False
    # For a finish that could not complete: {page_number: [question, ...]}.
    missing: dict[int, list[Question]] = field(default_factory=dict)
    replayed: bool = False
    # The pages that apply to the respondent (all of them when none has a show_if).
    pages: tuple[int, ...] = ()

    @property
    def progress(self) -> int:
        """Percent of the pages that apply behind the respondent: those before the next one, or 100 when complete."""
        if self.completed:
            return 100
        return Route(number=self.next_page, pages=self.pages or tuple(range(1, self.page_count + 1))).progress


def page_save(*, respondent_id: int, definition: PageDefinition, values: Mapping[_Question, str], save_id: UUID,
              nav: str, access_code: str | None = None, route: Route | None = None) -> PageSaveResult:
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
    moves: dict[str, int] = {Nav.BACK: route.previous, Nav.NEXT: route.next}
    next_page = moves.get(nav, number)
    # Read the definition before the transaction: inside it every read goes to
    # the master (infra/db_router.py), and the transaction stays short.
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
                [Answer(respondent_id=respondent_id, question_id=q.pk, value=v, saved_at=now)
                 for q, v in values.items()],
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
def _page_save_sql() -> str:
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


def _page_save_statement(database: BaseDatabaseWrapper, *, respondent_id: int, values: Mapping[_Question, str],
                         save_id: UUID, nav: str, number: int, next_page: int, access_code: str | None,
                         now: datetime) -> bool:
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


def _finish(*, respondent_id: int, definition: PageDefinition, required: Sequence[tuple[int, Question]] | None,
            flow: SurveyFlow | None, now: datetime, route: Route) -> PageSaveResult:
    """Complete the response if every required question that is asked is answered (inside page_save's transaction)."""
    number, page_count = definition.number, definition.page_count
    missing = missing_required(respondent_id=respondent_id, survey=definition.survey, required=required, flow=flow)
    if missing:
        return PageSaveResult(page=number, next_page=min(missing), page_count=page_count, missing=missing,
                              pages=route.pages)
    Respondent.objects.filter(pk=respondent_id).update(status=Respondent.Status.COMPLETED, completed_at=now)
    return PageSaveResult(page=number, next_page=number, page_count=page_count, completed=True, pages=route.pages)


def _replay(*, respondent_id: int, definition: PageDefinition, save_id: UUID,
            required: Sequence[tuple[int, Question]] | None, route: Route,
            access_code: str | None = None) -> PageSaveResult:
    """Answer a save that changed nothing: a save_id used before, or a save that is refused.

    Runs inside a transaction, so it reads the master (infra/db_router.py).
    """
    first = PageSave.objects.filter(respondent_id=respondent_id, save_id=save_id).first()
    if first is None:
        current = Respondent.objects.filter(pk=respondent_id)
        if access_code is not None:
            current = current.filter(access_code=access_code, withdrawn_at=None)
        if not current.exists():
            raise PageSaveRefused(PageSaveRefused.GONE)
        raise PageSaveRefused(PageSaveRefused.LOCKED)
    missing: dict[int, list[Question]] = {}
    if first.nav == Nav.FINISH and not first.completed:
        # What is missing now: the person may have answered some of it since.
        missing = missing_required(respondent_id=respondent_id, survey=definition.survey, required=required)
    return PageSaveResult(
        page=first.page, next_page=first.next_page, page_count=definition.page_count,
        completed=first.completed, missing=missing, replayed=True, pages=route.pages,
    )


def respondent_set_language(*, respondent_id: int, language: str) -> None:
    """Keep the language a respondent chose to take the survey in: their next login starts in it."""
    Respondent.objects.filter(pk=respondent_id).exclude(language=language).update(language=language)


def login_limit_hit_record(*, address: str, limited_at: datetime, limited_until: datetime, failures: int,
                           valid_logins: int, ceiling: int, school_ids: Sequence[int]) -> LoginLimitHit:
    """Record that ``address`` reached its ceiling of failed codes (respondents/login_limits.py, once a window), for
    the schools of ``school_ids`` (those whose respondents logged in from it) to see; return the hit."""
    with transaction.atomic(durable=True):
        hit = LoginLimitHit.objects.create(address=address, limited_at=limited_at, limited_until=limited_until,
                                           failures=failures, valid_logins=valid_logins, ceiling=ceiling)
        # Ids kept in the counters' cache for a day: a school deleted since is left out.
        schools = School.objects.filter(pk__in=school_ids).values_list("pk", flat=True)
        LoginLimitHit.schools.through.objects.bulk_create(
            [LoginLimitHit.schools.through(loginlimithit_id=hit.pk, school_id=school) for school in schools])
    return hit
