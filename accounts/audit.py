"""The staff audit log: append-only (``AuditEntry``), written by the services in the transaction of the action."""
import csv
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import AuditEntry
from accounts.scopes import Scope
from fileformats.tables import moment_text, spreadsheet_safe
from respondents.models import Respondent, School
from surveys.models import Survey

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

Action = AuditEntry.Action


def audit_record(*, scope: Scope, action: str, survey: Survey | None = None, school: School | None = None,
                 detail: str = "") -> AuditEntry:
    """Record one staff action of ``scope`` (who, from where); call it inside the action's own transaction."""
    return AuditEntry.objects.create(
        at=timezone.now(), user_id=scope.user_id, username=scope.username, address=scope.address,
        action=action, survey=survey, school=school, detail=detail,
    )


def audit_record_each(*, scope: Scope, action: str, people: Iterable[tuple[int | None, str]],
                      survey: Survey | None = None) -> int:
    """Record one action of ``scope`` once per person it touched (a respondent, a staff account): ``people`` is
    [(school id or None, detail)], written
    in INSERTs of a thousand rows (a selection of thousands is a few statements, not thousands); call it inside
    the action's own transaction. Return how many entries."""
    at = timezone.now()
    entries = [AuditEntry(at=at, user_id=scope.user_id, username=scope.username, address=scope.address,
                          action=action, survey=survey, school_id=school_id, detail=detail)
               for school_id, detail in people]
    AuditEntry.objects.bulk_create(entries, batch_size=AUDIT_BATCH)
    return len(entries)


AUDIT_BATCH = 1000


def audit_person(respondent_id: int, external_id: str) -> str:
    """How an audit entry names one respondent: "respondent " and ``person_named``."""
    return f"respondent {person_named(respondent_id, external_id)}"


def person_named(respondent_id: int, external_id: str) -> str:
    """A respondent as the audit log names them: the roster's external id, or the row's id; never the code (a
    respondent's ``str`` falls back to it)."""
    return external_id or f"#{respondent_id}"


def audit_codes_shown(*, scope: Scope, survey: Survey | None, respondents: Iterable[Respondent],
                      school: School | None = None) -> AuditEntry | None:
    """Record that a staff page showed ``scope`` the access codes of ``respondents`` (as the CSV and PDF
    downloads of codes are recorded); nothing when it showed none."""
    people = list(respondents)
    if not people:
        return None
    named = ", ".join(person_named(person.pk, person.external_id) for person in people[:5])
    if len(people) > 5:
        named += f" and {len(people) - 5} more"
    return audit_record(scope=scope, action=Action.CODES_SHOWN, survey=survey, school=school,
                        detail=f"{len(people)} code{'s' if len(people) != 1 else ''}: {named}")


def audit_sign_in(*, user: User | None = None, username: str = "", address: str = "", failed: bool = False,
                  signed_out: bool = False, detail: str = "") -> AuditEntry:
    """Record a staff sign-in, a failed one (``username`` as typed), or a sign-out; ``detail``: what the login
    limits made of it."""
    action = Action.SIGN_IN_FAILED if failed else Action.SIGN_OUT if signed_out else Action.SIGN_IN
    return AuditEntry.objects.create(
        at=timezone.now(), user=user, username=user.get_username() if user else username[:150], address=address,
        action=action, detail=detail,
    )


def audit_entries(*, scope: Scope, action: str = "", survey: Survey | None = None, username: str = "",
                  since: datetime | None = None, until: datetime | None = None) -> QuerySet[AuditEntry]:
    """The audit log, newest first, filtered; only for a scope that may read it."""
    scope.require("can_read_audit")
    entries = AuditEntry.objects.select_related("survey", "school")
    if action:
        entries = entries.filter(action=action)
    if survey is not None:
        entries = entries.filter(survey=survey)
    if username:
        entries = entries.filter(username__iexact=username)
    if since:
        entries = entries.filter(at__gte=since)
    if until:
        entries = entries.filter(at__lt=until)
    return entries


AUDIT_COLUMNS = ["at", "username", "action", "survey", "school", "address", "detail"]


def audit_write_csv(*, entries: QuerySet[AuditEntry], stream: "SupportsWrite[str]") -> None:
    """Write ``entries`` (from ``audit_entries``) as CSV, every cell spreadsheet-safe."""
    writer = csv.writer(stream)
    writer.writerow(AUDIT_COLUMNS)
    for entry in entries.iterator(chunk_size=2000):
        writer.writerow([spreadsheet_safe(value) for value in (
            moment_text(entry.at), entry.username, entry.action, entry.survey.slug if entry.survey else "",
            entry.school.code if entry.school else "", entry.address, entry.detail)])
