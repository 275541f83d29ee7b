"""The not-finished lists of a school, as CSV and as a printable PDF, audited when they hold access codes."""
import csv
from typing import IO, TYPE_CHECKING, cast

from django.db.models import QuerySet
from django.utils import timezone
from reportlab.lib.pagesizes import letter
from reportlab.lib.units import inch
from reportlab.pdfgen.canvas import Canvas

from accounts.audit import Action, audit_record
from accounts.scopes import Scope
from fileformats.pdf import draw_text, fitted_text
from fileformats.tables import moment_text, spreadsheet_safe
from respondents.handout import handout_group
from respondents.models import Respondent, School
from surveys.models import Survey
from surveys.page_names import page_name, page_names

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

# The not-finished CSV's columns; the display name and the code only for a scope that may see codes.
NON_RESPONDER_COLUMNS = ["external_id", "grade", "role", "status", "current_page", "current_page_name",
                         "last_saved_at"]
WITH_CODES = ["display_name", "access_code"]


def non_responders_write_csv(*, scope: Scope, survey: Survey, school: School, people: QuerySet[Respondent],
                             stream: "SupportsWrite[str]", about: str = "") -> None:
    """Write the non-responders as CSV (times as exports write them: ``moment_text``); display names and codes
    only for a scope that may see codes (then audited as codes downloaded; ``about`` says which list, for the
    entry)."""
    columns = NON_RESPONDER_COLUMNS + (WITH_CODES if scope.can_see_codes else [])
    names = page_names(survey=survey)
    writer = csv.writer(stream)
    writer.writerow(columns)
    for person in people.iterator(chunk_size=2000):
        values: dict[str, object] = {name: getattr(person, name) for name in columns if name != "current_page_name"}
        values["current_page_name"] = page_name(names, person.current_page).label
        values["access_code"] = person.formatted_access_code
        values["last_saved_at"] = moment_text(person.last_saved_at)
        writer.writerow([spreadsheet_safe(values[name]) for name in columns])
    _audit_codes(scope, survey, school, f"not-finished list (CSV){about}")


def non_responders_write_pdf(*, scope: Scope, survey: Survey, school: School, people: QuerySet[Respondent],
                             stream: "SupportsWrite[bytes]", about: str = "") -> int:
    """A printable list for teachers, a page per grade (or role, for people without a grade): who has not
    finished, how far they are (the page they resume on, named as in the definition), and (for a scope that may
    see codes, then audited) their name and code to hand out again; return how many."""
    canvas = Canvas(cast(IO[bytes], stream), pagesize=letter, pageCompression=1)  # reportlab only writes to it
    canvas.setTitle(f"{survey.title}: not finished, {school.name}")
    width, height = letter
    margin, line = 0.6 * inch, 14
    codes = scope.can_see_codes
    names = page_names(survey=survey)
    columns = [("External id", 0), ("Status", 1.2), ("Page", 2.0)] + (
        [("Name", 4.5), ("Access code", 6.3)] if codes else [])
    ends = [x for _, x in columns[1:]] + [(width - 2 * margin) / inch]

    def header(group: str, page_number: int) -> float:
        draw_text(canvas, margin, height - margin, f"{survey.title}: not finished", size=13, bold=True)
        draw_text(canvas, margin, height - margin - 16, f"{school.name} ({school.code})"
                  + (f" · {group}" if group else "") + f" · printed {timezone.localtime():%Y-%m-%d %H:%M}"
                  + (f" · page {page_number}" if page_number > 1 else ""), size=10)
        canvas.setFont("Helvetica-Bold", 9)
        for title, x in columns:
            canvas.drawString(margin + x * inch, height - margin - 40, title)
        canvas.setFont("Helvetica", 9)
        return height - margin - 40 - line

    count, page_number = 0, 0
    group: str | None = None
    y = 0.0
    for person in people.iterator(chunk_size=2000):
        group_of_person = handout_group(person.grade, person.role)
        if group_of_person != group or y < margin:
            if count:
                canvas.showPage()
            page_number = 1 if group_of_person != group else page_number + 1
            group = group_of_person
            y = header(group, page_number)
        page = page_name(names, person.current_page)
        cells = [person.external_id, person.get_status_display(), str(page)] + (
            [person.display_name, person.formatted_access_code] if codes else [])
        for (title, x), end, text in zip(columns, ends, cells, strict=True):
            # Each cell cut to its column (less a gap); a page keeps its "(conditional)" whole; a name in any script.
            room = (end - x) * inch - 6
            if title == "Access code":
                canvas.setFont("Courier-Bold", 9)
                canvas.drawString(margin + x * inch, y, fitted_text(text, "Courier-Bold", 9, room))
                continue
            kept = page.label[len(str(page)):] if title == "Page" else ""
            draw_text(canvas, margin + x * inch, y, text, size=9, room=room, kept=kept)
        y -= line
        count += 1
    if not count:
        header("", 1)
        canvas.drawString(margin, height - margin - 60, "Everyone has finished.")
    canvas.showPage()
    canvas.save()
    _audit_codes(scope, survey, school, f"not-finished list (PDF){about}, {count} people")
    return count


def _audit_codes(scope: Scope, survey: Survey, school: School, detail: str) -> None:
    if scope.can_see_codes:
        audit_record(scope=scope, action=Action.CODES_DOWNLOADED, survey=survey, school=school, detail=detail)
