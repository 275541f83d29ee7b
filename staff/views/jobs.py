"""What the staff screens show of a background job (Celery) while it runs."""
from django.http import JsonResponse


def job_progress(job, text):
    """A background job's progress for staff/static/staff/progress.js."""
    return JsonResponse({"status": job.status, "status_display": job.get_status_display(),
                         "percent": job.progress_percent, "finished": not job.is_running, "text": text})
