"""Completion monitoring: counts per school, grade and role, aggregated off the save path, rolled up on read.

``completion_summary_refresh`` rebuilds one survey's CompletionSummary rows
from a replica (when one is up and current; the master otherwise): two
GROUP BY queries over the survey's respondents, whatever their number, then
one transaction that replaces the survey's rows. A periodic Celery task runs
it for every open survey; the embedded default runs it on request.

``completion_overview`` reads only the summary, through the staff member's
scope, and rolls it up: the state (or the scope), each district, each school,
each grade and role. Medians of the page reached come from the merged page
histograms, so they are exact at every level.
"""
import csv
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from respondents.audit import Action, audit_record
from respondents.models import CompletionSummary, Respondent

Status = Respondent.Status


@dataclass
class Completion:
    """Counts of one group (the state, a district, a school, a grade and role)."""

    label: str = ""
    code: str = ""
    rostered: int = 0
    withdrawn: int = 0
    not_started: int = 0
    in_progress: int = 0
    completed: int = 0
    pages: Counter = field(default_factory=Counter)
    last_activity: datetime | None = None
    children: list = field(default_factory=list)

    def add(self, row):
        for name in ("rostered", "withdrawn", "not_started", "in_progress", "completed"):
            setattr(self, name, getattr(self, name) + getattr(row, name))
        self.pages.update({int(page): count for page, count in row.pages.items()})
        if row.last_activity and (self.last_activity is None or row.last_activity > self.last_activity):
            self.last_activity = row.last_activity

    @property
    def completion_rate(self):
        """Completed of rostered (withdrawn people left out), in percent, one decimal."""
        return round(100 * self.completed / self.rostered, 1) if self.rostered else 0.0

    @property
    def median_page(self):
        """The median page in-progress respondents have reached (the lower one of an even count: a page), or None."""
        total = sum(self.pages.values())
        if not total:
            return None
        middle, seen = (total + 1) // 2, 0
        for page in sorted(self.pages):
            seen += self.pages[page]
            if seen >= middle:
                return page
        return None


def completion_summary_refresh(*, survey, using=None):
    """Rebuild ``survey``'s completion summary from database ``using`` (a replica); return the rows written."""
    respondents = Respondent.objects.using(using).filter(survey=survey).order_by()
    active = Q(withdrawn_at__isnull=True)
    groups = respondents.values("school_id", "grade", "role").annotate(
        rostered=Count("pk", filter=active), withdrawn=Count("pk", filter=~active),
        not_started=Count("pk", filter=active & Q(status=Status.NOT_STARTED)),
        in_progress=Count("pk", filter=active & Q(status=Status.IN_PROGRESS)),
        completed=Count("pk", filter=active & Q(status=Status.COMPLETED)),
        last_activity=Max("last_saved_at"),
    )
    pages = {}
    for row in (respondents.filter(active, status=Status.IN_PROGRESS)
                .values("school_id", "grade", "role", "current_page").annotate(count=Count("pk"))):
        pages.setdefault((row["school_id"], row["grade"], row["role"]), {})[str(row["current_page"])] = row["count"]
    now = timezone.now()
    rows = [CompletionSummary(survey=survey, refreshed_at=now,
                              pages=pages.get((g["school_id"], g["grade"], g["role"]), {}), **g) for g in groups]
    with transaction.atomic(durable=True):
        CompletionSummary.objects.filter(survey=survey).delete()
        CompletionSummary.objects.bulk_create(rows, batch_size=2000)
    return len(rows)


def completion_summaries_refresh(*, using=None):
    """Rebuild the completion summary of every open survey, reading database ``using``; return how many."""
    from surveys.models import Survey

    surveys = list(Survey.objects.filter(status=Survey.Status.OPEN))
    for survey in surveys:
        completion_summary_refresh(survey=survey, using=using)
    return len(surveys)


def completion_overview(*, scope, survey):
    """The survey's completion within ``scope``: a Completion of the whole, whose children are districts,
    theirs schools, theirs grade-and-role groups; plus when the summary was refreshed (None: never)."""
    rows = CompletionSummary.objects.filter(survey=survey).select_related("school__district").order_by(
        "school__district__code", "school__code", "grade", "role")
    if not scope.all_schools:
        rows = rows.filter(school_id__in=scope.school_ids)
    whole = Completion(label=survey.title)
    districts, schools, refreshed_at = {}, {}, None
    for row in rows:
        refreshed_at = row.refreshed_at if refreshed_at is None else max(refreshed_at, row.refreshed_at)
        school, district = row.school, row.school.district if row.school else None
        district_key = district.code if district else ""
        if district_key not in districts:
            districts[district_key] = Completion(label=district.name if district else "No school", code=district_key)
            whole.children.append(districts[district_key])
        school_key = school.code if school else ""
        if school_key not in schools:
            schools[school_key] = Completion(label=school.name if school else "No school", code=school_key)
            districts[district_key].children.append(schools[school_key])
        group = Completion(label=" · ".join(part for part in (row.grade and f"grade {row.grade}", row.role) if part)
                           or "—")
        group.add(row)
        schools[school_key].children.append(group)
        for level in (schools[school_key], districts[district_key], whole):
            level.add(row)
    return whole, refreshed_at


# ---------------------------------------------------------------- non-responders

NON_RESPONDER_COLUMNS = ["external_id", "grade", "role", "status", "current_page", "last_saved_at"]
WITH_CODES = ["display_name", "access_code"]


def non_responders(*, scope, survey, school, grade=None):
    """The school's respondents (in scope, not withdrawn) who have not finished: not started or in progress,
    by grade then external id."""
    people = scope.respondents(survey).filter(
        school=school, withdrawn_at=None, status__in=[Status.NOT_STARTED, Status.IN_PROGRESS])
    if grade is not None:
        people = people.filter(grade=grade)
    return people.order_by("grade", "external_id", "pk")


def non_responders_write_csv(*, scope, survey, school, people, stream, about=""):
    """Write the non-responders as CSV; display names and codes only for a scope that may see codes (then
    audited as codes downloaded; ``about`` says which list, for the entry)."""
    from respondents.exports import spreadsheet_safe

    columns = NON_RESPONDER_COLUMNS + (WITH_CODES if scope.can_see_codes else [])
    writer = csv.writer(stream)
    writer.writerow(columns)
    for person in people.iterator(chunk_size=2000):
        values = {name: getattr(person, name) for name in columns}
        values["access_code"] = person.formatted_access_code
        values["last_saved_at"] = person.last_saved_at.isoformat() if person.last_saved_at else ""
        writer.writerow([spreadsheet_safe(values[name]) for name in columns])
    _audit_codes(scope, survey, school, f"not-finished list (CSV){about}")


def non_responders_write_pdf(*, scope, survey, school, people, stream, about=""):
    """A printable list for teachers, a page per grade: who has not finished, how far they are, and (for a
    scope that may see codes, then audited) their name and code to hand out again; return how many."""
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.units import inch
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(stream, pagesize=letter, pageCompression=1)
    canvas.setTitle(f"{survey.title}: not finished, {school.name}")
    width, height = letter
    margin, line = 0.6 * inch, 14
    codes = scope.can_see_codes
    columns = [("External id", 0), ("Status", 1.6), ("Page", 2.7)] + (
        [("Name", 3.3), ("Access code", 5.6)] if codes else [])

    def header(grade, page_number):
        canvas.setFont("Helvetica-Bold", 13)
        canvas.drawString(margin, height - margin, f"{survey.title}: not finished")
        canvas.setFont("Helvetica", 10)
        canvas.drawString(margin, height - margin - 16, f"{school.name} ({school.code}) · grade {grade or '—'}"
                                                        f" · printed {timezone.localtime():%Y-%m-%d %H:%M}"
                                                        + (f" · page {page_number}" if page_number > 1 else ""))
        canvas.setFont("Helvetica-Bold", 9)
        for title, x in columns:
            canvas.drawString(margin + x * inch, height - margin - 40, title)
        canvas.setFont("Helvetica", 9)
        return height - margin - 40 - line

    count, grade, y, page_number = 0, object(), 0, 0
    for person in people.iterator(chunk_size=2000):
        if person.grade != grade or y < margin:
            if count:
                canvas.showPage()
            page_number = 1 if person.grade != grade else page_number + 1
            grade = person.grade
            y = header(grade, page_number)
        cells = [person.external_id[:24], person.get_status_display(), str(person.current_page)] + (
            [person.display_name[:36], person.formatted_access_code] if codes else [])
        for (title, x), text in zip(columns, cells, strict=True):
            canvas.setFont("Courier-Bold" if title == "Access code" else "Helvetica", 9)
            canvas.drawString(margin + x * inch, y, text)
        y -= line
        count += 1
    if not count:
        header("", 1)
        canvas.drawString(margin, height - margin - 60, "Everyone has finished.")
    canvas.showPage()
    canvas.save()
    _audit_codes(scope, survey, school, f"not-finished list (PDF){about}, {count} people")
    return count


def _audit_codes(scope, survey, school, detail):
    if scope.can_see_codes:
        audit_record(scope=scope, action=Action.CODES_DOWNLOADED, survey=survey, school=school, detail=detail)
