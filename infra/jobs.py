"""What the staff screens show of a background job (Celery): running or not, and how far."""
from typing import Any


class JobProgress:
    """``is_running`` and ``progress_percent`` of a background job with ``status`` (QUEUED, RUNNING, DONE, ...)
    and the two counters ``progress_counters`` names: (done, total)."""

    progress_counters = ("done", "total")
    # The model's own: its status field, and the choices it takes (TextChoices with QUEUED, RUNNING and DONE).
    status: str
    Status: Any

    @property
    def is_running(self) -> bool:
        return self.status in {self.Status.QUEUED, self.Status.RUNNING}

    @property
    def progress_percent(self) -> int:
        if self.status == self.Status.DONE:
            return 100
        done, total = (getattr(self, name) for name in self.progress_counters)
        return min(99, 100 * done // total) if total else 0

    @property
    def progress_done(self) -> int:
        return getattr(self, self.progress_counters[0])

    @property
    def progress_total(self) -> int:
        return getattr(self, self.progress_counters[1])


