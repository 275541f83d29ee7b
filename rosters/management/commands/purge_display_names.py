"""Forget the slip names of closed surveys: manage.py purge_display_names (daily, from cron or a scheduler)."""
from typing import Any

from django.core.management.base import BaseCommand

from infra.db_router import read_from_master
from rosters.services import display_names_purge_closed


class Command(BaseCommand):
    help = ("Blank the display names (printed on slips only) of every respondent of a survey that has closed, by "
            "status or because its closing time has passed. A survey set to closed is purged at once anyway.")

    def handle(self, **options: Any) -> None:
        with read_from_master():
            purged = display_names_purge_closed()
        for slug, count in purged.items():
            self.stdout.write(f"{slug}: {count} names blanked")
        self.stdout.write(f"{len(purged)} closed surveys checked.")
