"""Access-code slips: a PDF per school or grade, a cover sheet per hand-out group; or the slips of people chosen in a
search, school by school without covers.

Read next: ``docs/architecture.md``, "The staff area" (*Slips*).
"""
import csv
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import IO, TYPE_CHECKING, cast

import segno
from django.core.files import File
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from reportlab.lib.pagesizes import letter
from reportlab.lib.units import inch
from reportlab.pdfgen.canvas import Canvas

from accounts.audit import Action, audit_person, audit_record, audit_record_each
from accounts.scopes import Scope, staff_scope
from fileformats.pdf import draw_text, fitted_text, font_for, wrapped_lines
from fileformats.tables import spreadsheet_safe
from respondents import access_codes
from respondents.handout import handout_group, in_handout_order
from respondents.models import Respondent, School
from rosters.models import SlipsJob
from rosters.selectors import PeopleAction, respondents_for_action
from surveys.models import Survey

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

COLUMNS, ROWS = 2, 4
MARGIN = 0.4 * inch

INSTRUCTIONS = {
    "en": ["Scan the QR code, or go to the address below", "and type your code. You can stop and come back",
           "later with the same code. Keep this slip private."],
    "es": ["Escanee el código QR o vaya a la dirección de abajo", "y escriba su código. Puede parar y volver más",
           "tarde con el mismo código. No comparta esta hoja."],
}
CODE_LABEL = {"en": "Your access code", "es": "Su código de acceso"}


@dataclass(frozen=True)
class Slip:
    code: str
    external_id: str
    display_name: str
    grade: str
    language: str
    role: str = ""
    respondent_id: int | None = None


def slip_url(login_url: str, code: str) -> str:
    """The QR code's address: the login page with the code in the fragment (never sent to the server)."""
    return f"{login_url.split('#')[0]}#code={access_codes.format_code(code)}"


def slips_for_school(*, scope: Scope, survey: Survey, school: School, grade: str | None = None) -> Iterator[Slip]:
    """The slips of a school's respondents who may log in, by hand-out group then external id (scope checked)."""
    scope.require("can_manage_people")
    people = _people(scope, survey, school, grade)
    fields = ("access_code", "external_id", "display_name", "grade", "language", "role")
    for row in in_handout_order(people).values_list(*fields).iterator(chunk_size=2000):
        yield Slip(*row)


def slips_print(*, scope: Scope, survey: Survey, school: School, login_url: str, stream: "SupportsWrite[bytes]",
                grade: str | None = None, where: str = "") -> int:
    """Write the slips of a school (or one grade) that ``scope`` may print to ``stream`` and audit it; return
    how many. ``where`` says where they went, for the audit entry (a file name)."""
    count = slips_write_pdf(stream=stream, survey=survey, school=school, login_url=login_url,
                            slips=slips_for_school(scope=scope, survey=survey, school=school, grade=grade))
    audit_record(scope=scope, action=Action.SLIPS_PRINTED, survey=survey, school=school,
                 detail=f"{count} slips" + (f", grade {grade}" if grade is not None else "")
                        + (f" to {where}" if where else ""))
    return count


CODE_COLUMNS = ["external_id", "display_name", "school_code", "school_name", "grade", "role", "language",
                "access_code", "login_url"]


def codes_write_csv(*, scope: Scope, survey: Survey, school: School, login_url: str,
                    stream: "SupportsWrite[str]") -> int:
    """Write the school's codes for a parents' mail merge (one row per respondent who may log in) as CSV, with
    a byte-order mark so that Excel reads it as UTF-8, and audit it; return how many."""
    scope.require("can_see_codes")
    people = (in_handout_order(_people(scope, survey, school, None))
              .values_list("external_id", "display_name", "grade", "role", "language", "access_code"))
    stream.write("\ufeff")
    writer = csv.writer(stream)
    writer.writerow(CODE_COLUMNS)
    count = 0
    for external_id, name, grade, role, language, code in people.iterator(chunk_size=2000):
        writer.writerow([spreadsheet_safe(v) for v in (external_id, name, school.code, school.name, grade, role,
                                                        language, access_codes.format_code(code), login_url)])
        count += 1
    audit_record(scope=scope, action=Action.CODES_DOWNLOADED, survey=survey, school=school,
                 detail=f"{count} codes (mail-merge CSV)")
    return count


def slips_write_pdf(*, stream: "SupportsWrite[bytes]", survey: Survey, school: School, slips: Iterable[Slip],
                    login_url: str, progress: Callable[[int], object] | None = None, cover_sheets: bool = True) -> int:
    """Write the PDF of ``slips`` (in hand-out order) to the binary ``stream``; return how many slips it holds.

    ``progress(count)`` is called after each page, for a progress bar. ``cover_sheets=False`` leaves out the
    sheet before each group (one person's replacement slip needs none).
    """
    return slips_write_schools_pdf(stream=stream, survey=survey, schools=[(school, slips)], login_url=login_url,
                                   progress=progress, cover_sheets=cover_sheets,
                                   title=f"{survey.title}: access codes, {school.name}")


def slips_write_schools_pdf(*, stream: "SupportsWrite[bytes]", survey: Survey,
                            schools: Iterable[tuple[School, Iterable[Slip]]], login_url: str,
                            progress: Callable[[int], object] | None = None, cover_sheets: bool = True,
                            title: str = "") -> int:
    """``slips_write_pdf`` for several schools in one PDF (people chosen across a district), the school's name on
    each slip: each group's slips after its cover sheet, or without ``cover_sheets`` one run of slips, eight a
    page."""
    canvas = Canvas(cast(IO[bytes], stream), pagesize=letter, pageCompression=1)  # reportlab only writes to it
    canvas.setTitle(title or f"{survey.title}: access codes")
    width, height = letter
    count = 0
    if cover_sheets:
        for school, slips in schools:
            for name, grouped in groupby(slips, key=lambda slip: handout_group(slip.grade, slip.role)):
                group = list(grouped)
                _cover_sheet(canvas, survey=survey, school=school, name=name, graded=bool(group[0].grade),
                             slips=group, login_url=login_url)
                count = _slip_pages(canvas, ((school, slip) for slip in group), survey=survey, login_url=login_url,
                                    count=count, progress=progress)
    else:  # one run of slips, eight a page, a group or a school following on the same page
        count = _slip_pages(canvas, ((school, slip) for school, slips in schools for slip in slips), survey=survey,
                            login_url=login_url, count=count, progress=progress)
    if count == 0:
        canvas.setFont("Helvetica", 12)
        canvas.drawString(MARGIN, height - MARGIN - 12, f"{title or survey.title}: nobody to print a slip for.")
        canvas.showPage()
    canvas.save()
    return count


def _slip_pages(canvas: Canvas, slips: Iterable[tuple[School, Slip]], *, survey: Survey, login_url: str, count: int,
                progress: Callable[[int], object] | None) -> int:
    """Draw ``slips`` (each with its school) eight a page; return ``count`` plus how many were drawn."""
    width, height = letter
    cell_w, cell_h = (width - 2 * MARGIN) / COLUMNS, (height - 2 * MARGIN) / ROWS
    n = 0
    for n, (school, slip) in enumerate(slips, start=1):
        place = (n - 1) % (COLUMNS * ROWS)
        x = MARGIN + (place % COLUMNS) * cell_w
        y = height - MARGIN - (place // COLUMNS + 1) * cell_h
        _slip(canvas, x, y, cell_w, cell_h, survey=survey, school=school, slip=slip, login_url=login_url)
        if place == COLUMNS * ROWS - 1:
            canvas.showPage()
            if progress:
                progress(count + n)
    if n % (COLUMNS * ROWS):
        canvas.showPage()
        if progress:
            progress(count + n)
    return count + n


def _cover_sheet(canvas: Canvas, *, survey: Survey, school: School, name: str, graded: bool, slips: Sequence[Slip],
                 login_url: str) -> None:
    width, height = letter
    y = height - MARGIN - 20
    draw_text(canvas, MARGIN, y, survey.title, size=16, bold=True)
    who = "For the teacher" if graded else "For whoever hands them out"
    for line in [f"{school.name} ({school.code})", f"{name}: {len(slips)} slip{'s' if len(slips) != 1 else ''}", "",
                 f"{who}: give each person the slip with their name, and nobody else's.",
                 "Keep spare and unused slips locked away; they work like passwords.",
                 "A lost slip: ask your school coordinator for a new code (the old one then stops working;",
                 "answers already saved are kept).", f"Address: {login_url}", ""]:
        y -= 18
        draw_text(canvas, MARGIN, y, line, size=12)
    canvas.setFont("Helvetica-Bold", 10)
    y -= 6
    canvas.drawString(MARGIN, y, "External id")
    canvas.drawString(MARGIN + 2 * inch, y, "Name")
    for slip in slips:
        y -= 13
        if y < MARGIN:
            canvas.showPage()
            y = height - MARGIN - 13
        draw_text(canvas, MARGIN, y, slip.external_id[:30], size=10)
        draw_text(canvas, MARGIN + 2 * inch, y, slip.display_name[:70], size=10)
    canvas.showPage()


def _slip(canvas: Canvas, x: float, y: float, w: float, h: float, *, survey: Survey, school: School, slip: Slip,
          login_url: str) -> None:
    pad = 0.15 * inch
    canvas.setDash(3, 3)
    canvas.setLineWidth(0.5)
    canvas.rect(x, y, w, h)  # the line to cut along
    canvas.setDash()
    top = y + h - pad
    # Everything beside the QR code stays left of it: the title in the slip's language wrapped on up to three
    # lines, and smaller before it is cut (``TITLE_FITS``), then the name, the school, the code.
    room = w - 2 * pad - QR_SIZE - QR_GAP
    title = survey.translated("title", slip.language)
    size, lines = title_lines(title, room)
    baseline = top
    for n, line in enumerate(lines):
        baseline -= size if n == 0 else size + 2
        draw_text(canvas, x + pad, baseline, line, size=size, bold=True, room=room)
    draw_text(canvas, x + pad, baseline - 14, slip.display_name or slip.external_id, size=9, room=room)
    draw_text(canvas, x + pad, baseline - 26, school.name, size=9, room=room,
              kept=f" · grade {slip.grade}" if slip.grade else "")
    canvas.setFont("Helvetica", 9)
    language = slip.language if slip.language in INSTRUCTIONS else "en"
    canvas.drawString(x + pad, baseline - 46, CODE_LABEL[language])
    canvas.setFont("Courier-Bold", 18)
    canvas.drawString(x + pad, baseline - 67, access_codes.format_code(slip.code))
    canvas.setFont("Helvetica", 7.5)
    for n, line in enumerate(INSTRUCTIONS[language]):
        canvas.drawString(x + pad, y + pad + 30 - n * 9, line)
    canvas.setFont("Helvetica", 8)
    canvas.drawString(x + pad, y + pad + 2, fitted_text(login_url, "Helvetica", 8, w - 2 * pad))
    _qr(canvas, slip_url(login_url, slip.code), x + w - pad - QR_SIZE, top - QR_SIZE - 4, QR_SIZE)


QR_SIZE = 1.25 * inch
QR_GAP = 8  # points between the text beside the QR code and the code
# How a survey title is set on a slip (bold), the first that holds it: (lines at most, points). One line a little
# smaller rather than two; never under 8 points, and cut after three lines.
TITLE_FITS = ((1, 11), (1, 10), (1, 9), (2, 11), (2, 10), (2, 9), (3, 10), (3, 9), (3, 8))
TITLE_SIZES = sorted({size for _, size in TITLE_FITS}, reverse=True)
TITLE_LINES = max(lines for lines, _ in TITLE_FITS)


def title_lines(title: str, room: float) -> tuple[float, list[str]]:
    """The size and lines of a slip's ``title`` ``room`` points wide: the first of TITLE_FITS that holds it, else
    the smallest size on TITLE_LINES lines, the last one cut."""
    font = font_for(title, bold=True)
    for most, size in TITLE_FITS:
        lines = wrapped_lines(title, font, size, room)
        if len(lines) <= most:
            return size, lines
    size = TITLE_SIZES[-1]
    lines = wrapped_lines(title, font, size, room)
    rest = " ".join(lines[TITLE_LINES - 1:])
    return size, [*lines[:TITLE_LINES - 1], fitted_text(rest, font, size, room)]


def _qr(canvas: Canvas, data: str, x: float, y: float, size: float) -> None:
    qr = segno.make(data, error="m", micro=False)
    matrix = [list(row) for row in qr.matrix_iter(scale=1, border=0)]
    module = size / len(matrix)
    canvas.setFillColorRGB(0, 0, 0)
    path = canvas.beginPath()
    for r, row in enumerate(matrix):
        for c, dark in enumerate(row):
            if dark:
                path.rect(x + c * module, y + size - (r + 1) * module, module, module)
    canvas.drawPath(path, stroke=0, fill=1)


# ---------------------------------------------------------------- big schools: rendered by Celery with progress

def slips_count(*, scope: Scope, survey: Survey, school: School, grade: str | None = None) -> int:
    return _people(scope, survey, school, grade).count()


def slips_job_start(*, scope: Scope, survey: Survey, school: School, grade: str | None = None) -> SlipsJob:
    """Queue the slips of a school (or one grade) for Celery; return the SlipsJob (the caller queues its task)."""
    scope.require("can_manage_people")
    if not scope.covers_school(school.pk):
        raise School.DoesNotExist(f"school {school.code} is not in scope")
    return SlipsJob.objects.create(
        survey=survey, school=school, grade=grade, requested_by_id=scope.requester_id(), requested_from=scope.address,
        slips_total=slips_count(scope=scope, survey=survey, school=school, grade=grade))


def slips_job_start_people(*, scope: Scope, survey: Survey, respondent_ids: Iterable[int]) -> SlipsJob:
    """Queue the slips of many chosen people (``slips_of_people``) for Celery; return the SlipsJob."""
    scope.require("can_manage_people")
    ids = list(_printable(scope, survey, respondent_ids).order_by("pk").values_list("pk", flat=True))
    return SlipsJob.objects.create(survey=survey, school=None, respondent_ids=ids, requested_by_id=scope.requester_id(),
                                   requested_from=scope.address, slips_total=len(ids))


def slips_job_run(*, job_id: int, login_url: str) -> SlipsJob:
    """Render a queued SlipsJob's PDF, updating its progress a few times a second; audit it when done."""
    job = SlipsJob.objects.select_related("survey", "school", "requested_by").get(pk=job_id)
    if job.status != SlipsJob.Status.QUEUED:
        return job
    scope = staff_scope(user=job.requested_by, address=job.requested_from)
    SlipsJob.objects.filter(pk=job.pk).update(status=SlipsJob.Status.RUNNING)
    last = [0.0]

    def progress(count: int) -> None:
        if time.monotonic() - last[0] > 0.5:
            last[0] = time.monotonic()
            SlipsJob.objects.filter(pk=job.pk).update(slips_done=count)

    try:
        with tempfile.TemporaryFile() as pdf:
            printed: list[tuple[int | None, str]] | None = None
            if job.school is None:  # people chosen in a search: one audit entry each
                count, printed = _slips_write_people(
                    scope=scope, survey=job.survey, respondent_ids=job.respondent_ids or [], login_url=login_url,
                    stream=pdf, progress=progress, where="a file prepared by Celery")
                name = f"{job.survey.slug}-{count}-people"
            else:
                count = slips_write_pdf(
                    stream=pdf, survey=job.survey, school=job.school, login_url=login_url, progress=progress,
                    slips=slips_for_school(scope=scope, survey=job.survey, school=job.school, grade=job.grade))
                name = (f"{job.survey.slug}-{job.school.code}"
                        + (f"-grade-{job.grade}" if job.grade is not None else ""))
            pdf.seek(0)
            job.file.save(f"{name}-slips.pdf", File(pdf), save=False)
        with transaction.atomic(durable=True):
            SlipsJob.objects.filter(pk=job.pk).update(status=SlipsJob.Status.DONE, slips_done=count,
                                                     file=job.file.name, finished_at=timezone.now())
            # Audited with the job's end, in its transaction: a file that was never stored printed nobody's slip.
            if printed is not None:
                audit_record_each(scope=scope, action=Action.SLIPS_PRINTED, survey=job.survey, people=printed)
            else:
                audit_record(scope=scope, action=Action.SLIPS_PRINTED, survey=job.survey, school=job.school,
                             detail=f"{count} slips" + (f", grade {job.grade}" if job.grade is not None else "")
                                    + " (prepared by Celery)")
    except Exception as error:
        SlipsJob.objects.filter(pk=job.pk).update(status=SlipsJob.Status.FAILED, error=str(error)[:2000],
                                                 finished_at=timezone.now())
        raise
    job.refresh_from_db()
    return job


def slips_jobs(*, scope: Scope) -> QuerySet[SlipsJob]:
    """The slips jobs a staff member asked for (only theirs)."""
    return SlipsJob.objects.filter(requested_by_id=scope.user_id).select_related("survey", "school")


def _people(scope: Scope, survey: Survey, school: School, grade: str | None) -> QuerySet[Respondent]:
    people = scope.respondents(survey).filter(school=school, withdrawn_at=None)
    return people if grade is None else people.filter(grade=grade)


def slips_of_people(*, scope: Scope, survey: Survey,
                    respondent_ids: Iterable[int]) -> Iterator[tuple[School, Iterator[Slip]]]:
    """The slips of the chosen people ``scope`` may print (in scope, not withdrawn, with a school), school by
    school (by code), each school's in hand-out order: two queries, the people read in chunks."""
    scope.require("can_manage_people")
    people = _printable(scope, survey, respondent_ids).order_by()
    fields = ("school_id", "access_code", "external_id", "display_name", "grade", "language", "role", "pk")
    rows = in_handout_order(people, by_school=True)
    schools = {school.pk: school for school in School.objects.filter(pk__in=people.values("school_id"))}
    for school_id, grouped in groupby(rows.values_list(*fields).iterator(chunk_size=2000), key=lambda row: row[0]):
        yield schools[school_id], (Slip(*row[1:]) for row in grouped)


def _printable(scope: Scope, survey: Survey, respondent_ids: Iterable[int]) -> QuerySet[Respondent]:
    """The chosen people whose slips can be printed: as the confirm page lists them (in scope, not withdrawn, with
    a school)."""
    return respondents_for_action(scope=scope, survey=survey, action=PeopleAction.SLIPS, respondent_ids=respondent_ids)


def slips_print_people(*, scope: Scope, survey: Survey, respondent_ids: Iterable[int], login_url: str,
                       stream: "SupportsWrite[bytes]", progress: Callable[[int], object] | None = None) -> int:
    """Write the slips of the chosen people (``slips_of_people``) to ``stream`` as one PDF and audit it, one
    entry per person (their slip, and so their code, went on paper); return how many."""
    count, printed = _slips_write_people(scope=scope, survey=survey, respondent_ids=respondent_ids,
                                         login_url=login_url, stream=stream, progress=progress)
    audit_record_each(scope=scope, action=Action.SLIPS_PRINTED, survey=survey, people=printed)
    return count


def _slips_write_people(*, scope: Scope, survey: Survey, respondent_ids: Iterable[int], login_url: str,
                        stream: "SupportsWrite[bytes]", where: str = "",
                        progress: Callable[[int], object] | None = None) -> tuple[int, list[tuple[int | None, str]]]:
    """Write the chosen people's slips; return how many, and the audit entry of each (school id, detail)."""
    printed: list[tuple[int | None, str]] = []
    to = f" to {where}" if where else ""

    def noted(school: School, slips: Iterable[Slip]) -> Iterator[Slip]:
        for slip in slips:
            printed.append((school.pk, f"1 slip, {audit_person(slip.respondent_id or 0, slip.external_id)}{to}"))
            yield slip

    schools = slips_of_people(scope=scope, survey=survey, respondent_ids=list(respondent_ids))
    # No cover sheets: people found by a search are no class to hand out to (a lost slip, new codes).
    count = slips_write_schools_pdf(stream=stream, survey=survey, login_url=login_url, progress=progress,
                                    schools=((school, noted(school, slips)) for school, slips in schools),
                                    cover_sheets=False)
    return count, printed


def respondent_slip_print(*, scope: Scope, survey: Survey, respondent_id: int, login_url: str,
                          stream: "SupportsWrite[bytes]") -> None:
    """Write the slip of one person ``scope`` may print (a replacement for a lost one, after a reissue) to
    ``stream`` as a one-page PDF and audit it. Raise Respondent.DoesNotExist for anyone outside ``scope``,
    withdrawn, or without a school."""
    scope.require("can_manage_people")
    person = (scope.respondents(survey).filter(withdrawn_at=None, school__isnull=False).select_related("school")
              .get(pk=respondent_id))
    if person.school is None:  # the query has left them out already; this says so to the type checker
        raise Respondent.DoesNotExist("a respondent without a school has no slip")
    slip = Slip(code=person.access_code, external_id=person.external_id, display_name=person.display_name,
                grade=person.grade, language=person.language, role=person.role)
    slips_write_pdf(stream=stream, survey=survey, school=person.school, slips=[slip], login_url=login_url,
                    cover_sheets=False)
    audit_record(scope=scope, action=Action.SLIPS_PRINTED, survey=survey, school=person.school,
                 detail=f"1 slip, {audit_person(person.pk, person.external_id)}")
