"""Staff accounts in bulk: a CSV or XLSX file of accounts, checked first and applied on confirmation.

``staff_upload_check`` and ``staff_upload_apply`` (the staff area), ``staff_import`` (``manage.py import_staff``).
Read next: ``docs/architecture.md``, "The staff area" (*Staff accounts*); the file: ``docs/operations.md``, "The
staff area: people and codes".
"""
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.audit import Action, audit_record, audit_record_each
from accounts.emails import email_normal_or_as_given
from accounts.models import StaffMember, StaffUpload
from accounts.passwords import staff_accounts_created_send
from accounts.scopes import COMMAND_LINE, Scope
from accounts.staff_accounts import (
    KEEPS_DISTRICTS,
    KEEPS_SCHOOLS,
    AccountLookups,
    EmailChange,
    StaffAccount,
    account_emails_changed,
    account_problems,
    coverage,
)
from fileformats.checked_files import CheckedFileNotReady, checked_file_discard, problem_rows
from fileformats.tables import Problem, StrPath, Table, TableError, formula_problem, open_table
from infra import sql
from respondents.code_lists import join_codes, split_codes

COLUMNS = ["username", "email", "name", "role", "district_codes", "school_codes"]
REQUIRED = ("username", "role")  # the values every row must give
# A state has thousands of staff; the check holds the file's accounts in memory, in the web request, and writes
# look them up with one IN (...) of ids (SQLite takes some 32,000 values in one statement).
MAX_ROWS = 20_000
Role = StaffMember.Role
Status = StaffUpload.Status


class StaffImportNotReady(CheckedFileNotReady):
    """The staff file cannot be applied or discarded now (not checked, has problems, or done already)."""


class AccountRow(NamedTuple):
    """One account of the file, as ``StaffUpload.account_rows`` keeps it (codes sorted, without repeats)."""

    line: int
    username: str
    email: str  # normalised (as the file gave it where it cannot be: its rules say why)
    name: str
    role: str
    district_codes: list[str]
    school_codes: list[str]

    def account(self) -> StaffAccount:
        return StaffAccount(username=self.username, role=self.role, email=self.email, name=self.name,
                            district_codes=tuple(self.district_codes), school_codes=tuple(self.school_codes),
                            is_active=None)


@dataclass
class Counts:
    new: int = 0
    changed: int = 0
    unchanged: int = 0

    def __str__(self) -> str:
        return f"{self.new} new, {self.changed} changed, {self.unchanged} unchanged"

    @property
    def nothing_to_change(self) -> bool:
        return not (self.new or self.changed)


@dataclass
class _Plan:
    """What applying the file's accounts does to the accounts as they are now."""

    counts: Counts = field(default_factory=Counts)
    new: list[AccountRow] = field(default_factory=list)
    # (row, the account's user id, its email as stored, what changes)
    changed: list[tuple[AccountRow, int, str, str]] = field(default_factory=list)
    changes: list[list[int | str]] = field(default_factory=list)  # [[line, username, what], ...]


@dataclass
class _Check:
    rows: list[AccountRow]
    problems: list[Problem]
    described: str
    lookups: AccountLookups
    plan: _Plan | None = None  # None when there are problems


@dataclass
class StaffImportResult:
    """What a check or an apply did: its counts and problems, and the accounts an apply created (each is sent the
    link that sets its password) and changed."""

    described: str
    counts: Counts
    problems: list[Problem]
    applied: bool = False
    created_user_ids: list[int] = field(default_factory=list)
    changed_user_ids: list[int] = field(default_factory=list)
    note: str = ""


def staff_upload_counts(upload: StaffUpload) -> Counts:
    return Counts(**upload.counts)


def staff_uploads(*, scope: Scope) -> QuerySet[StaffUpload]:
    """The staff files ``scope`` uploaded, newest first."""
    scope.require("can_manage_staff")
    return StaffUpload.objects.select_related("uploaded_by").filter(uploaded_by_id=scope.user_id)


def staff_upload_check(*, scope: Scope, path: StrPath, filename: str = "") -> StaffUpload:
    """Read and check the staff file at ``path``; keep what applying it would write; return the upload, CHECKED or
    REFUSED (with every problem). Writes no account. Only a state administrator's ``scope`` may. Raises
    ``fileformats.tables.TableError`` for a file that cannot be read as a table."""
    scope.require("can_manage_staff")
    check = _check(scope, path)
    with transaction.atomic(durable=True):
        upload = StaffUpload.objects.create(
            uploaded_by_id=scope.user_id, uploaded_from=scope.address, source_filename=(filename or str(path))[:255],
            described=check.described, status=Status.REFUSED if check.problems else Status.CHECKED,
            account_rows=[] if check.problems else [list(row) for row in check.rows],
            problem_list=problem_rows(check.problems), checked_at=timezone.now(),
            **_plan_fields(check.plan))
        _audit_check(scope, upload.source_filename, check)
    return upload


def staff_upload_apply(*, scope: Scope, upload_id: int) -> StaffImportResult:
    """Write a checked staff file in one transaction, unless the accounts changed since it was checked: then it is
    checked again (new counts and changes, a note; or its new problems, and it is refused) and left for the person
    to confirm. Raises StaffUpload.DoesNotExist for another person's upload, StaffImportNotReady unless it is
    CHECKED."""
    scope.require("can_manage_staff")
    with transaction.atomic(durable=True):
        upload = staff_uploads(scope=scope).select_for_update(of=("self",)).get(pk=upload_id)
        if upload.status != Status.CHECKED:
            raise StaffImportNotReady(f"This file is {upload.get_status_display().lower()}: it cannot be applied.")
        _lock_staff()
        rows = [AccountRow(*row) for row in upload.account_rows]
        lookups = _lookups(rows)
        problems = _problems_in_database(scope, rows, lookups)
        result = StaffImportResult(described=upload.described, counts=staff_upload_counts(upload),
                                   problems=problems)
        if problems:
            upload.status, upload.problem_list, upload.account_rows = Status.REFUSED, problem_rows(problems), []
            upload.note = "The accounts changed since this file was checked: it has problems now."
            upload.save(update_fields=["status", "problem_list", "account_rows", "note"])
            result.note = upload.note
            return result
        plan = _plan(rows, lookups)
        if plan.changes != upload.changes:
            for name, value in _plan_fields(plan).items():
                setattr(upload, name, value)
            upload.checked_at = timezone.now()
            upload.note = ("The accounts changed since this file was checked (another file or an edit was applied): "
                           "the counts below are new. Check them, then apply it again.")
            upload.save(update_fields=["counts", "changes", "checked_at", "note"])
            result.counts, result.note = plan.counts, upload.note
            return result
        _apply(scope, upload.source_filename, plan, lookups, result)
        upload.status, upload.applied_at, upload.note = Status.APPLIED, timezone.now(), ""
        upload.save(update_fields=["status", "applied_at", "note"])
    return result


def staff_upload_discard(*, scope: Scope, upload_id: int) -> StaffUpload:
    """Drop a checked staff file without applying it; return it."""
    return checked_file_discard(uploads=staff_uploads(scope=scope), upload_id=upload_id,
                                not_ready=StaffImportNotReady)


def staff_import(*, scope: Scope = COMMAND_LINE, path: StrPath, dry_run: bool = False,
                 filename: str = "") -> StaffImportResult:
    """Check the staff file at ``path`` and, unless ``dry_run`` or it has problems, apply it at once, in one
    transaction (``manage.py import_staff``, where the person at the terminal confirmed by running it). A dry run
    writes only its audit entry; a file with problems, applied, writes nothing."""
    scope.require("can_manage_staff")
    source = filename or str(path)
    if dry_run:
        check = _check(scope, path)
        with transaction.atomic(durable=True):
            _audit_check(scope, source, check)
        return StaffImportResult(described=check.described, counts=check.plan.counts if check.plan else Counts(),
                                 problems=check.problems)
    with transaction.atomic(durable=True):
        _lock_staff()
        check = _check(scope, path)
        result = StaffImportResult(described=check.described, counts=check.plan.counts if check.plan else Counts(),
                                   problems=check.problems)
        if check.plan is not None:
            _apply(scope, source, check.plan, check.lookups, result)
    return result


# ---------------------------------------------------------------- checking


def _check(scope: Scope, path: StrPath) -> _Check:
    table = open_table(path, required=COLUMNS, max_bytes=settings.UPLOAD_MAX_BYTES)
    problems: list[Problem] = []
    rows = _read(table, problems)
    lookups = _lookups(rows)
    problems += _problems_in_database(scope, rows, lookups)
    problems.sort(key=lambda problem: problem.row)  # (stable: a row's problems in the order found)
    return _Check(rows=rows, problems=problems, described=table.described, lookups=lookups,
                  plan=None if problems else _plan(rows, lookups))


def _read(table: Table, problems: list[Problem]) -> list[AccountRow]:
    """Return the file's accounts, appending every problem of a row by itself or against another row."""
    rows: list[AccountRow] = []
    first_seen: dict[tuple[str, str], int] = {}
    for number, row in table.rows:
        if number > MAX_ROWS + 1:
            raise TableError(f"The file has more than {MAX_ROWS:,} rows: a staff file has one row an account.")
        bad = False
        for column in COLUMNS:
            problem = formula_problem(number, column, row[column])
            if problem is None and column in REQUIRED and not row[column]:
                problem = Problem(number, column, "", "required")
            if problem:
                problems.append(problem)
                bad = True
        if row["role"] and not bad and row["role"] not in Role.values:
            problems.append(Problem(number, "role", row["role"],
                                    f"not a role: {', '.join(Role.values)}"))
        email = email_normal_or_as_given(row["email"])  # (account_problems says why one has no normal form)
        for column, value, key in (("username", row["username"], row["username"].lower()),
                                   ("email", row["email"], email)):
            if value:
                first = first_seen.setdefault((column, key), number)
                if first != number:  # (the row is checked further all the same: every problem at once)
                    problems.append(Problem(number, column, value, f"listed twice (first on row {first})"))
        if not bad:
            rows.append(AccountRow(number, row["username"], email, row["name"], row["role"],
                                   sorted(set(split_codes(row["district_codes"]))),
                                   sorted(set(split_codes(row["school_codes"])))))
    return rows


def _lookups(rows: Sequence[AccountRow]) -> AccountLookups:
    """What the rows' rules, their comparison with the stored accounts and their writing read, loaded once."""
    return AccountLookups.load([row.account() for row in rows])


def _problems_in_database(scope: Scope, rows: Sequence[AccountRow], lookups: AccountLookups) -> list[Problem]:
    """Each row's problems under the accounts' rules (``account_problems``)."""
    named = {holder.user_id for row in rows for holder in lookups.holders_of_username(row.username)}
    problems = []
    for row in rows:
        holders = lookups.holders_of_username(row.username)
        if len(holders) > 1:
            problems.append(Problem(row.line, "username", row.username, (
                f"matches {len(holders)} accounts that differ only in case ({', '.join(h.username for h in holders)})"
                f": change one of them in the staff area first")))
            continue
        found = account_problems(scope=scope, account=row.account(), lookups=lookups,
                                 user_id=holders[0].user_id if holders else None, password_by_email=True,
                                 others_named=named)
        for column, messages in found.items():
            value = getattr(row, column) if column in COLUMNS else ""
            shown = join_codes(value) if isinstance(value, list) else value
            problems += [Problem(row.line, column, shown, message.rstrip(".")) for message in messages]
    return problems


# ---------------------------------------------------------------- what applying does


class _Stored(NamedTuple):
    user_id: int
    username: str  # as stored: the file's may differ in case
    email: str
    member_id: int
    name: str
    role: str
    districts: list[str]
    schools: list[str]


def _plan(rows: Sequence[AccountRow], lookups: AccountLookups) -> _Plan:
    """Compare the file's accounts with the stored ones (four queries): new, changed (and what), unchanged."""
    stored = _stored(lookups)
    plan = _Plan()
    for row in rows:
        old = stored.get(row.username.lower())
        if old is None:
            plan.new.append(row)
            plan.counts.new += 1
            plan.changes.append([row.line, row.username, f"new: {Role(row.role).label} "
                                 f"({coverage(districts=row.district_codes, schools=row.school_codes)})"])
            continue
        what = _differences(old, row)
        if what:
            plan.changed.append((row, old.user_id, old.email, what))
            plan.counts.changed += 1
            plan.changes.append([row.line, old.username, what])
        else:
            plan.counts.unchanged += 1
    return plan


def _stored(lookups: AccountLookups) -> dict[str, _Stored]:
    """The stored accounts the rows name (``lookups.by_username``; each has a staff role: ``account_problems``), by
    user name without case."""
    User = get_user_model()
    ids = {holders[0].user_id: lowered for lowered, holders in lookups.by_username.items()}
    usernames = {holders[0].user_id: holders[0].username for holders in lookups.by_username.values()}
    users = {pk: email for pk, email in User.objects.filter(pk__in=list(ids)).values_list("pk", "email")}
    members = {user_id: (pk, name, role) for pk, user_id, name, role in StaffMember.objects.filter(
        user_id__in=list(ids)).values_list("pk", "user_id", "name", "role")}
    member_ids = [pk for pk, _, _ in members.values()]
    districts: dict[int, list[str]] = {}
    for owner, code in (StaffMember.districts.through.objects.filter(staffmember_id__in=member_ids)
                        .order_by("district__code").values_list("staffmember_id", "district__code")):
        districts.setdefault(owner, []).append(code)
    schools: dict[int, list[str]] = {}
    for owner, code in (StaffMember.schools.through.objects.filter(staffmember_id__in=member_ids)
                        .order_by("school__code").values_list("staffmember_id", "school__code")):
        schools.setdefault(owner, []).append(code)
    stored = {}
    for user_id, lowered in ids.items():
        member_id, name, role = members[user_id]
        stored[lowered] = _Stored(user_id, usernames[user_id], users[user_id], member_id, name, role,
                                  districts.get(member_id, []), schools.get(member_id, []))
    return stored


def _differences(old: _Stored, row: AccountRow) -> str:
    """What applying ``row`` changes in the stored account, in words ("" for nothing)."""
    what = []
    if old.role != row.role:
        what.append(f"role {Role(old.role).label} → {Role(row.role).label}")
    for label, before, after in (("email", old.email, row.email), ("name", old.name, row.name)):
        if before != after:
            what.append(f"{label} {before or '(none)'!s} → {after or '(none)'!s}")
    for label, before_codes, after_codes in (("districts", old.districts, row.district_codes),
                                             ("schools", old.schools, row.school_codes)):
        added = sorted(set(after_codes) - set(before_codes))
        removed = sorted(set(before_codes) - set(after_codes))
        if added or removed:
            what.append(f"{label} " + join_codes([*(f"+{code}" for code in added), *(f"−{code}" for code in removed)]))
    return "; ".join(what)


def _plan_fields(plan: _Plan | None) -> dict[str, object]:
    if plan is None:
        return {"counts": {}, "changes": []}
    return {"counts": vars(plan.counts), "changes": plan.changes}


# ---------------------------------------------------------------- writing


def _lock_staff() -> None:
    """Let one staff write at a time change the staff accounts (PostgreSQL: SHARE ROW EXCLUSIVE on the staff table,
    which sign-ins' reads pass through and the form's saves wait for; SQLite locks the database at the first
    write)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {sql.table(StaffMember)} IN SHARE ROW EXCLUSIVE MODE")


def _apply(scope: Scope, source: str, plan: _Plan, lookups: AccountLookups, result: StaffImportResult) -> None:
    """Write ``plan`` in bulk (a few statements for any number of accounts; inside the caller's transaction) and
    its audit entries: one per account created or changed, one for the file. Fill ``result``'s ids."""
    User = get_user_model()
    district_ids = {code: district.pk for code, district in lookups.districts.items()}
    school_ids = {code: school.pk for code, school in lookups.schools.items()}

    # New accounts: a user with no usable password (the link sent to each sets one), and its staff member.
    users = User.objects.bulk_create([User(username=row.username, email=row.email, password=make_password(None))
                                      for row in plan.new], batch_size=1000)
    user_ids = [user.pk for user in users]
    # Changed accounts: the user's email, the member's role and name.
    User.objects.bulk_update([User(pk=user_id, email=row.email) for row, user_id, _, _ in plan.changed],
                             ["email"], batch_size=1000)
    members = StaffMember.objects.bulk_create(
        [StaffMember(user_id=user_id, role=row.role, name=row.name) for row, user_id in zip(plan.new, user_ids, strict=True)],
        batch_size=1000)
    by_user = {member.user_id: member.pk for member in members}
    changed_ids = [user_id for _, user_id, _, _ in plan.changed]
    by_user.update(StaffMember.objects.filter(user_id__in=changed_ids).values_list("user_id", "pk"))
    StaffMember.objects.bulk_update([StaffMember(pk=by_user[user_id], role=row.role, name=row.name)
                                     for row, user_id, _, _ in plan.changed], ["role", "name"], batch_size=1000)
    # Coverage: the changed members' rows of the two through tables replaced, the new members' added.
    written = [(row, by_user[user_id]) for row, user_id in zip(plan.new, user_ids, strict=True)] + [
        (row, by_user[user_id]) for row, user_id, _, _ in plan.changed]
    replaced = [by_user[user_id] for user_id in changed_ids]
    through = StaffMember.districts.through
    through.objects.filter(staffmember_id__in=replaced).delete()
    through.objects.bulk_create([through(staffmember_id=member_id, district_id=district_ids[code])
                                 for row, member_id in written if row.role in KEEPS_DISTRICTS
                                 for code in row.district_codes], batch_size=1000)
    schools_through = StaffMember.schools.through
    schools_through.objects.filter(staffmember_id__in=replaced).delete()
    schools_through.objects.bulk_create([schools_through(staffmember_id=member_id, school_id=school_ids[code])
                                         for row, member_id in written if row.role in KEEPS_SCHOOLS
                                         for code in row.school_codes], batch_size=1000)

    audit_record_each(scope=scope, action=Action.STAFF_CHANGED, people=[
        (None, f"{username} {what} (staff file {source})") for _, username, what in plan.changes])
    audit_record(scope=scope, action=Action.STAFF_IMPORTED, detail=f"{source}: {plan.counts}")
    account_emails_changed(scope=scope, changes=[EmailChange(user_id, lookups.by_id[user_id].username, old, row.email)
                                                 for row, user_id, old, _ in plan.changed])
    staff_accounts_created_send(scope=scope, user_ids=user_ids)
    result.applied = True
    result.counts = plan.counts
    result.created_user_ids, result.changed_user_ids = user_ids, changed_ids


def _audit_check(scope: Scope, source: str, check: _Check) -> None:
    outcome = (f"{len(check.problems)} problem{'s' if len(check.problems) != 1 else ''}" if check.problems
               else str(check.plan.counts if check.plan else Counts()))
    audit_record(scope=scope, action=Action.STAFF_IMPORT_CHECKED, detail=f"{source}: {outcome}")
