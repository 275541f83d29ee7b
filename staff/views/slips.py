"""Access codes on paper and in files: a school's code slips (prepared by Celery for a big school), one person's
replacement slip, and a school's codes for a mail merge."""
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from rosters.models import SlipsJob
from rosters.slips import codes_write_csv, respondent_slip_print, slips_count, slips_job_start, slips_jobs, slips_print
from rosters.tasks import slips_job_task
from staff.access import StaffRequest, staff_view
from staff.views.downloads import CSV, PDF, attachment, download_done, school_file_name, stored_file
from staff.views.jobs import SurveyJobs
from surveys.models import Survey


@staff_view("can_manage_people")
def school_slips_pdf(request: StaffRequest, slug: str, school_code: str) -> HttpResponse:
    """The school's code slips (one grade with ?grade=), a cover sheet per grade, as a PDF download; a school
    with more than SLIPS_INLINE_MAX slips is prepared by Celery instead (``slips_new``)."""
    survey = get_object_or_404(Survey, slug=slug)
    school = get_object_or_404(request.scope.schools(), code=school_code)
    grade = request.GET.get("grade")
    if slips_count(scope=request.scope, survey=survey, school=school, grade=grade) > settings.SLIPS_INLINE_MAX:
        messages.info(request, _("That is a lot of slips: prepare them below, and download them when ready."))
        return redirect("staff:school", slug=survey.slug, school_code=school.code)
    response = attachment(PDF, school_file_name(survey, school, grade, "slips.pdf"))
    slips_print(scope=request.scope, survey=survey, school=school, grade=grade, login_url=login_url(request),
                stream=response)
    return download_done(request, response)


@require_POST
@staff_view("can_manage_people")
def slips_new(request: StaffRequest, slug: str, school_code: str) -> HttpResponse:
    survey = get_object_or_404(Survey, slug=slug)
    school = get_object_or_404(request.scope.schools(), code=school_code)
    grade = request.POST.get("grade")
    job = slips_job_start(scope=request.scope, survey=survey, school=school, grade=grade)
    slips_job_task.delay(job.pk, login_url(request))  # in-process on the embedded default
    return redirect("staff:slips", slug=survey.slug, job_id=job.pk)


class SlipsJobs(SurveyJobs[SlipsJob]):
    """Slips jobs: their page also says once the PDF is downloaded (``download_done``)."""

    def context(self, request: StaffRequest, survey: Survey, job: SlipsJob) -> dict[str, object]:
        return {"download_done": slips_done(job.slips_done)}


# A big school's slips, printed by Celery: a progress bar counting the slips, then the PDF to download.
SLIPS = SlipsJobs(permission="can_manage_people", url_name="staff:slips", template="staff/slips_detail.html",
                  unit="slips", jobs=lambda scope, survey: slips_jobs(scope=scope).filter(survey=survey))
slips_detail, slips_progress = SLIPS.page_view(), SLIPS.progress_view()


@staff_view("can_manage_people")
def slips_download(request: StaffRequest, slug: str, job_id: int) -> HttpResponseBase:
    _, job = SLIPS.get(request, slug, job_id)
    if job.status != job.Status.DONE:
        return redirect("staff:slips", slug=slug, job_id=job.pk)
    return download_done(request, stored_file(job.file, PDF))


@staff_view("can_manage_people")
def respondent_slip_pdf(request: StaffRequest, slug: str, respondent_id: int) -> HttpResponse:
    """One person's code slip (a replacement for a lost one) as a PDF download; audited like the school's."""
    survey = get_object_or_404(Survey, slug=slug)
    respondent = get_object_or_404(request.scope.respondents(survey).filter(withdrawn_at=None, school__isnull=False),
                                   pk=respondent_id)
    response = attachment(PDF, f"{survey.slug}-{slugify(respondent.external_id or str(respondent.pk))}-slip.pdf")
    respondent_slip_print(scope=request.scope, survey=survey, respondent_id=respondent.pk,
                          login_url=login_url(request), stream=response)
    return download_done(request, response)


@staff_view("can_see_codes")
def school_codes_csv(request: StaffRequest, slug: str, school_code: str) -> HttpResponse:
    """The school's codes for a parents' mail merge: one row per respondent who may log in."""
    survey = get_object_or_404(Survey, slug=slug)
    school = get_object_or_404(request.scope.schools(), code=school_code)
    response = attachment(CSV, school_file_name(survey, school, None, "codes.csv"))
    codes_write_csv(scope=request.scope, survey=survey, school=school, login_url=login_url(request),
                    stream=response)
    return response


def slips_done(count: int) -> str:
    """What a page says once the PDF of ``count`` slips it asked for is downloaded (staff.js)."""
    return ngettext("Done: the PDF of %(count)s slip is downloaded. Hand it to its person only.",
                    "Done: the PDF of %(count)s slips is downloaded. Hand each to its person only.",
                    count) % {"count": count}


def login_url(request: HttpRequest) -> str:
    """The address where respondents log in, printed on the slips and in the codes file: ``SURVEY_PUBLIC_URL``,
    never the request's (a staff member on an internal address, or a forged Host, would print that on every slip;
    ``staff/checks.py`` refuses an empty one)."""
    return settings.SURVEY_PUBLIC_URL
