"""Writes of the people on a survey's roster outside a file import: rosters made in code, a reissued code,
withdrawing and restoring, forgetting slip names when a survey closes, and lifting a login limit on a school's
address."""
from collections.abc import Iterable
from dataclasses import dataclass, fields
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.audit import Action, audit_person, audit_record, audit_record_each
from accounts.scopes import Scope
from respondents import access_codes
from respondents.login_limits import address_login_forgive
from respondents.models import LoginLimitHit, Respondent, School
from rosters.models import Roster
from surveys.models import Survey


@dataclass(frozen=True)
class RosterEntry:
    external_id: str = ""
    school: School | None = None
    grade: str = ""
    role: str = ""
    language: str = "en"
    display_name: str = ""


def roster_create(*, survey: Survey, name: str, entries: Iterable[RosterEntry], source_filename: str = "",
                  batch_size: int = 1000) -> Roster:
    """Create a roster of respondents for ``survey``, each with a fresh access code; return it."""
    with transaction.atomic(durable=True):
        roster = Roster.objects.create(survey=survey, name=name, source_filename=source_filename)
        batch: list[Respondent] = []
        for entry in entries:
            values = {f.name: getattr(entry, f.name) for f in fields(entry)}
            batch.append(Respondent(survey=survey, roster=roster, **values))
            if len(batch) >= batch_size:
                _create_with_codes(batch)
                batch = []
        _create_with_codes(batch)
    return roster


def _create_with_codes(respondents: list[Respondent], attempts: int = 3) -> None:
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


def respondent_reissue_code(*, scope: Scope, respondent_id: int, attempts: int = 3) -> str:
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
                             school=respondent.school, detail=audit_person(respondent.pk, respondent.external_id))
            return code
        except IntegrityError:  # the new code is someone else's (astronomically rare): draw again
            if attempt == attempts - 1:
                raise
    raise ValueError(f"attempts must be at least 1, not {attempts}")


def respondent_withdraw(*, scope: Scope, respondent_ids: Iterable[int], survey: Survey) -> int:
    """Withdraw respondents of ``survey``: their codes no longer log in and their sessions end; answers are kept.

    Those outside ``scope`` or already withdrawn are left alone; return how many were withdrawn.
    """
    return _set_withdrawn(scope=scope, respondent_ids=respondent_ids, survey=survey, withdrawn=True)


def respondent_restore(*, scope: Scope, respondent_ids: Iterable[int], survey: Survey) -> int:
    """Undo ``respondent_withdraw``: the same codes log in again and resume where they stopped; return how many."""
    return _set_withdrawn(scope=scope, respondent_ids=respondent_ids, survey=survey, withdrawn=False)


def _set_withdrawn(*, scope: Scope, respondent_ids: Iterable[int], survey: Survey, withdrawn: bool) -> int:
    """Withdraw or restore, in a handful of statements whatever the number: lock the chosen rows in scope, one
    UPDATE, the audit entries (one per person) in INSERTs of a thousand."""
    scope.require("can_manage_people")
    with transaction.atomic(durable=True):
        chosen = scope.respondents(survey).filter(pk__in=list(respondent_ids), withdrawn_at__isnull=withdrawn)
        people = list(chosen.select_for_update(of=("self",)).values_list("pk", "school_id", "external_id"))
        Respondent.objects.filter(pk__in=[pk for pk, _, _ in people]).update(
            withdrawn_at=timezone.now() if withdrawn else None)
        audit_record_each(scope=scope, action=Action.RESPONDENT_WITHDRAWN if withdrawn else Action.RESPONDENT_RESTORED,
                          survey=survey, people=[(school_id, audit_person(pk, external_id))
                                                 for pk, school_id, external_id in people])
    return len(people)


REISSUE_BATCH = 1000


def respondents_reissue_codes(*, scope: Scope, respondent_ids: Iterable[int], survey: Survey,
                              attempts: int = 3) -> int:
    """Give each chosen respondent of ``survey`` a new access code (``respondent_reissue_code`` for many: lost
    slips of a class); the old codes stop at once, answers and progress stay. Those outside ``scope`` or
    withdrawn (their codes log in to nothing) are left alone; return how many got a new code.

    One UPDATE per thousand people (Django's ``bulk_update``: a CASE over their ids), one audit entry each."""
    scope.require("can_manage_people")
    ids = list(respondent_ids)
    for attempt in range(attempts):
        try:
            with transaction.atomic(durable=True):
                people = list(scope.respondents(survey).filter(pk__in=ids, withdrawn_at=None)
                              .select_for_update(of=("self",)).values_list("pk", "school_id", "external_id"))
                codes = access_codes.generate_many(len(people))
                Respondent.objects.bulk_update(
                    [Respondent(pk=pk, access_code=code) for (pk, _, _), code in zip(people, codes, strict=True)],
                    ["access_code"], batch_size=REISSUE_BATCH)
                audit_record_each(scope=scope, action=Action.CODE_REISSUED, survey=survey,
                                  people=[(school_id, audit_person(pk, external_id))
                                          for pk, school_id, external_id in people])
            return len(people)
        except IntegrityError:  # a new code is someone else's (astronomically rare): draw them all again
            if attempt == attempts - 1:
                raise
    raise ValueError(f"attempts must be at least 1, not {attempts}")


def _in_scope(scope: Scope, respondent_id: int) -> Respondent:
    """The respondent, row-locked, if ``scope`` covers them; Respondent.DoesNotExist otherwise."""
    return (scope.respondents(None).select_related("survey", "school").select_for_update(of=("self",))
            .get(pk=respondent_id))


def display_names_purge(*, survey: Survey) -> int:
    """Blank the names printed on slips of every respondent of a closed survey; return how many were blanked.

    The names serve only to hand out slips: they are never exported with
    answers, and once the survey has closed they are not kept.
    """
    return Respondent.objects.filter(survey=survey).exclude(display_name="").update(display_name="")


def display_names_purge_closed(*, now: datetime | None = None) -> dict[str, int]:
    """Purge the slip names of every survey that has closed (by status, or its closing time passed)."""
    now = now or timezone.now()
    closed = Survey.objects.filter(Q(status=Survey.Status.CLOSED) | Q(closes_at__lte=now))
    return {survey.slug: display_names_purge(survey=survey) for survey in closed}


class LoginLimitNotActive(Exception):
    """The login limit was lifted already, or has ended by itself: there is nothing to lift."""


def login_limit_lift(*, scope: Scope, hit_id: int, school: School, survey: Survey | None = None) -> LoginLimitHit:
    """Let respondents log in from a refused address again at once: forget its failed codes of the window (a later
    hit in it is recorded again), mark the hit lifted, and audit it; return the hit.

    ``school`` is the school page it was lifted from: the hit must be that school's and the school in ``scope``,
    else LoginLimitHit.DoesNotExist. Raises LoginLimitNotActive for a hit lifted or ended already.
    """
    scope.require("can_manage_people")
    if not scope.covers_school(school.pk):
        raise LoginLimitHit.DoesNotExist(f"school {school.code} is not in this scope")
    now = timezone.now()
    with transaction.atomic(durable=True):
        hit = school.login_limit_hits.select_for_update(of=("self",)).get(pk=hit_id)
        if not hit.is_active:
            raise LoginLimitNotActive(f"the login limit on {hit.address} is not in force")
        hit.lifted_at, hit.lifted_by = now, scope.username
        hit.save(update_fields=["lifted_at", "lifted_by"])
        until = timezone.localtime(hit.limited_until)
        audit_record(scope=scope, action=Action.LOGIN_LIMIT_LIFTED, survey=survey, school=school, detail=(
            f"respondent logins from {hit.address} let through again before {until:%Y-%m-%d %H:%M %Z}: refused after "
            f"{hit.failures} codes that found nobody, with {hit.valid_logins} respondents logged in from there"))
    # After the commit: the counters are not the database's (Redis on the stack; an unreachable one counts nothing).
    address_login_forgive(address=hit.address)
    return hit
