"""The one table the bench's floor writes (bench/floor/views.py): nothing of the survey's reads or keeps it."""
from django.db import models


class FloorRow(models.Model):
    session_key = models.CharField(max_length=40)
    position = models.PositiveSmallIntegerField()
    value = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["session_key", "-id"], name="floor_session_latest")]

    def __str__(self) -> str:
        return f"{self.session_key} #{self.position}: {self.value}"
