"""A survey's background jobs (Celery) as the staff screens show them: each job's page, with a progress bar while
it runs, and the small JSON the bar polls. One shape for every kind: a roster's check and apply, a big school's
slips, an export."""
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db.models import Model, QuerySet
from django.http import HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from staff.access import StaffRequest, staff_view
from surveys.models import Survey

Job = TypeVar("Job", bound=Model)


@dataclass(frozen=True)
class SurveyJobs(Generic[Job]):
    """One kind of a survey's background job; ``page_view()`` and ``progress_view()`` make its two views, both
    through ``staff_view``.

    ``permission`` is a Scope ``can_*`` name; ``url_name`` the page's (the poll's is ``url_name`` +
    ``-progress``) and ``id_name`` the job's id in both; ``context_name`` the job's name in ``template``;
    ``jobs(scope=, survey=)`` returns the survey's jobs of the kind that the scope reaches (any other id is
    answered 404). A job has ``status``, ``is_running``, ``progress_percent``, ``progress_done`` and
    ``progress_total`` (infra/jobs.py's ``JobProgress``), the last two counting ``unit``; a kind that shows
    more, or counts otherwise, is a subclass.
    """

    permission: str
    url_name: str
    template: str
    jobs: Callable[..., QuerySet[Job]]
    unit: str = ""
    id_name: str = "job_id"
    context_name: str = "job"

    def get(self, request: StaffRequest, slug: str, job_id: int) -> tuple[Survey, Job]:
        """Return the survey ``slug`` and its job ``job_id``, as far as the staff member's scope reaches."""
        survey = get_object_or_404(Survey, slug=slug)
        return survey, get_object_or_404(self.jobs(scope=request.scope, survey=survey), pk=job_id)

    def progress_text(self, job: Any) -> str:  # noqa: ANN401 - a Job with JobProgress's counters
        """Say how far the job is (``3 of 40 slips.``); an empty text leaves the bar without steps."""
        return f"{job.progress_done} of {job.progress_total} {self.unit}."

    def progress(self, job: Any) -> dict[str, object]:  # noqa: ANN401 - the model's status and its progress
        """Return what the poll answers (staff/static/staff/progress.js reads it), and the page shows first."""
        return {"status": job.status, "status_display": job.get_status_display(), "percent": job.progress_percent,
                "finished": not job.is_running, "text": self.progress_text(job)}

    def context(self, request: StaffRequest, survey: Survey, job: Job) -> dict[str, object]:
        """Return what the page shows besides the job and its progress."""
        return {}

    def page_view(self) -> Callable[..., HttpResponseBase]:
        """Return the job's page: ``survey``, the job (``context_name``), ``progress`` and ``progress_url`` for
        staff/_job_progress.html, and ``context()``."""
        def page(request: StaffRequest, slug: str, **ids: int) -> HttpResponse:
            survey, job = self.get(request, slug, ids[self.id_name])
            return render(request, self.template, {
                "survey": survey, self.context_name: job, "progress": self.progress(job),
                "progress_url": reverse(f"{self.url_name}-progress", args=[survey.slug, job.pk]),
                **self.context(request, survey, job)})
        return staff_view(self.permission)(page)

    def progress_view(self) -> Callable[..., HttpResponseBase]:
        """Return the poll of the job's progress bar: ``progress()`` as JSON."""
        def progress(request: StaffRequest, slug: str, **ids: int) -> JsonResponse:
            _, job = self.get(request, slug, ids[self.id_name])
            return JsonResponse(self.progress(job))
        return staff_view(self.permission)(progress)
