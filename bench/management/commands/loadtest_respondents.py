"""Create fresh respondents for a load test and write their access codes as CSV for JMeter."""
import csv
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from infra.db_router import read_from_master
from respondents.models import Respondent
from rosters.directory import schools_ensure
from rosters.services import RosterEntry, roster_create
from surveys.models import Survey

LOAD_SCHOOLS = 40


class Command(BaseCommand):
    help = "Create N new respondents of a survey and write `code` CSV (header + one code a line) for JMeter."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--survey", required=True, help="The survey's slug.")
        parser.add_argument("--count", type=int, required=True)
        parser.add_argument("--output", required=True, help="The CSV file to write, e.g. jmeter/data/respondents.csv.")

    def handle(self, *, survey: str, count: int, output: str, **options: Any) -> None:
        if count < 1:
            raise CommandError("--count must be at least 1.")
        with read_from_master():
            target = Survey.objects.filter(slug=survey).first()
            if target is None:
                raise CommandError(f"No survey with the slug '{survey}'.")
            name = f"load test {timezone.now():%Y-%m-%d %H:%M:%S}"
            schools = list(schools_ensure([("LOAD", "Load-test district", f"LOAD-{n:02d}", f"Load School {n}")
                                           for n in range(LOAD_SCHOOLS)]).values())
            roster = roster_create(
                survey=target, name=name,
                entries=(RosterEntry(school=schools[n % LOAD_SCHOOLS], grade=str(6 + n % 7), role=Respondent.Role.STUDENT)
                         for n in range(count)),
            )
            codes = roster.respondents.order_by("pk").values_list("access_code", flat=True)
            with open(output, "w", newline="", encoding="ascii") as stream:
                writer = csv.writer(stream)
                writer.writerow(["code"])
                writer.writerows([code] for code in codes.iterator(chunk_size=5000))
        self.stdout.write(f"Wrote {count} access codes of '{target.slug}' (roster '{name}') to {output}.")
