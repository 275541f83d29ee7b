"""Exports of a survey's responses: asked for, prepared by Celery with a progress bar, downloaded through a
short-lived link."""
from django.conf import settings
from django.contrib import messages
from django.core import signing
from django.core.files.storage import FileSystemStorage
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from exports.filters import ExportFilter
from exports.jobs import export_job_file, export_job_start, export_jobs, export_respondents_count
from exports.models import ExportJob
from exports.tasks import export_job_task
from staff.access import StaffRequest, staff_view
from staff.forms.exports import ExportForm
from staff.views.downloads import ZIP, stored_file, stored_name
from staff.views.jobs import SurveyJobs
from staff.views.lists import page_of
from surveys.models import Survey

EXPORT_LINK_SALT = "staff.export-file"

# An export, written by Celery: a progress bar counting the respondents, then the ZIP to download until it expires.
EXPORTS = SurveyJobs(permission="can_export", url_name="staff:export", template="staff/export_detail.html",
                     unit="respondents", jobs=lambda scope, survey: export_jobs(scope=scope).filter(survey=survey))
export_detail, export_progress = EXPORTS.page_view(), EXPORTS.progress_view()


@staff_view("can_export")
def exports(request: StaffRequest, slug: str) -> HttpResponse:
    """Ask for an export of the respondents a filter keeps (POST: queued for Celery, then its page; POST with
    ``count``: the form again, saying how many people the export will hold), and the exports one asked for, a page
    at a time."""
    survey = get_object_or_404(Survey, slug=slug)
    form = ExportForm(request.POST or None, scope=request.scope)
    counted = None
    if request.method == "POST" and form.is_valid():
        if "count" not in request.POST:
            job = export_job_start(scope=request.scope, survey=survey, format=form.cleaned_data["format"],
                                   options=form.options(), export_filter=form.export_filter)
            export_job_task.delay(job.pk)  # in-process on the embedded default
            return redirect("staff:export", slug=survey.slug, job_id=job.pk)
        deidentified = form.cleaned_data["deidentified"]
        counted = count_said(export_respondents_count(scope=request.scope, survey=survey,
                                                      export_filter=form.export_filter, deidentified=deidentified),
                             export_filter=form.export_filter, deidentified=deidentified)
    return render(request, "staff/exports.html", {
        "survey": survey, "form": form, "page": page_of(request, EXPORTS.jobs(scope=request.scope, survey=survey)),
        "retention_days": settings.EXPORT_RETENTION_DAYS, "time_zone": settings.TIME_ZONE, "counted": counted,
    }, status=400 if form.errors else 200)


def count_said(count: int, *, export_filter: ExportFilter, deidentified: bool) -> str:
    """How many people an export will hold, in a sentence that names the filter counted."""
    which = export_filter.describe()
    if not count and export_filter.is_empty:
        return "This export would hold nobody: the survey has no respondents you may export yet."
    if not count:
        return f"This export would hold nobody: no respondent you may export matches the filter ({which})."
    people = f"{count:,} {'person' if count == 1 else 'people'}"
    if deidentified:
        return (f"This export will hold at most {people} ({which}): de-identified, it leaves out the schools with "
                f"fewer than {settings.EXPORT_SMALL_SCHOOL_MIN} of them.")
    return f"This export will hold {people} ({which})."


@staff_view("can_export")
def export_download(request: StaffRequest, slug: str, job_id: int) -> HttpResponse:
    """Send the person who asked to a short-lived link to the file: an S3 presigned URL where the storage makes
    them, else a signed link of this app's own (``export_file``)."""
    survey, job = EXPORTS.get(request, slug, job_id)
    try:
        file = export_job_file(scope=request.scope, job=job)
    except ExportJob.DoesNotExist:
        messages.error(request, _("This export is not ready, or it has expired: ask for it again."))
        return redirect("staff:export", slug=survey.slug, job_id=job.pk)
    filename = stored_name(file)
    if isinstance(file.storage, FileSystemStorage):
        token = signing.dumps({"job": job.pk, "user": request.user.pk}, salt=EXPORT_LINK_SALT)
        return redirect("staff:export-file", token=token)
    # The storage signs links for EXPORT_LINK_SECONDS (its querystring_expire: config/settings/production.py). It is
    # S3's (infra.storages.MediaS3Storage), whose url() takes ``parameters``; FieldFile types it as any Storage.
    return redirect(file.storage.url(file.name, parameters={  # type: ignore[call-arg]
        "ResponseContentDisposition": f'attachment; filename="{filename}"'}))


@staff_view("can_export")
def export_file(request: StaffRequest, token: str) -> FileResponse:
    """An export's file, for a signed link made a moment ago for the person now asking (the embedded default's
    stand-in for a presigned URL); an old link or someone else's is answered 404."""
    try:
        link = signing.loads(token, salt=EXPORT_LINK_SALT, max_age=settings.EXPORT_LINK_SECONDS)
    except signing.BadSignature:
        raise Http404(_("This download link has expired: download the export again from its page.")) from None
    if link.get("user") != request.user.pk:
        raise Http404(_("This download link is someone else's."))
    job = get_object_or_404(export_jobs(scope=request.scope), pk=link.get("job"), status=ExportJob.Status.DONE)
    return stored_file(job.file, ZIP)
