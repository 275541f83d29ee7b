"""Import a roster: manage.py import_roster SURVEY_SLUG FILE [--dry-run] [--errors-csv OUT]."""
from pathlib import Path
from typing import Any

from django.core.files import File
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.scopes import COMMAND_LINE
from fileformats.tables import TableError
from infra.db_router import read_from_master
from rosters.importing import (
    OPTIONAL,
    REQUIRED,
    roster_apply,
    roster_apply_start,
    roster_check,
    roster_discard,
    roster_problems,
    roster_problems_write_csv,
    roster_totals,
    roster_upload,
)
from surveys.models import Survey


class Command(BaseCommand):
    help = (f"Check a roster (CSV in UTF-8 or Windows-1252, or XLSX; columns {', '.join(REQUIRED)} and optionally "
            f"{', '.join(OPTIONAL)}) and, unless --dry-run, apply it: new people are added with new codes, "
            f"changed ones updated, nobody duplicated or deleted. The same code as the staff area. Exit status 0 "
            f"when applied (or a clean dry run); 1 with every problem printed and nothing written.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("survey", help="the survey's slug")
        parser.add_argument("file", help="the roster, CSV or XLSX")
        parser.add_argument("--dry-run", action="store_true", help="check and count; write nothing")
        parser.add_argument("--errors-csv", metavar="OUT", help="also write every problem to this CSV file")

    def handle(self, *, survey: str, file: str, dry_run: bool, errors_csv: str | None, **options: Any) -> None:
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"No file {file}.")
        with read_from_master():
            try:
                the_survey = Survey.objects.get(slug=survey)
            except Survey.DoesNotExist:
                raise CommandError(f"No survey '{survey}'.") from None
            with path.open("rb") as stream:
                try:
                    roster = roster_upload(scope=COMMAND_LINE, survey=the_survey, file=File(stream, name=path.name),
                                           filename=path.name)
                except TableError as error:
                    raise CommandError(f"{file}: {error} Nothing was written.") from error
            roster = roster_check(roster_id=roster.pk)
            if roster.error:
                raise CommandError(f"{file}: {roster.error} Nothing was written.")
            self.stdout.write(f"{file}: {roster.described}, {roster.rows_read} rows.")
            if errors_csv:
                with open(errors_csv, "w", newline="", encoding="utf-8") as out:
                    roster_problems_write_csv(roster=roster, stream=out)
            if roster.problem_count:
                for problem in roster_problems(roster=roster).iterator(chunk_size=5000):
                    self.stderr.write(f"  row {problem.row}, {problem.column or '-'}, {problem.value!r}: "
                                      f"{problem.reason}")
                raise CommandError(f"{roster.problem_count} problem{'s' if roster.problem_count > 1 else ''}; "
                                   "nothing was written.")
            if dry_run:
                roster_discard(scope=COMMAND_LINE, roster_id=roster.pk)
            else:
                roster_apply_start(scope=COMMAND_LINE, roster_id=roster.pk)
                roster = roster_apply(roster_id=roster.pk)
                if roster.error:
                    raise CommandError(f"{file}: {roster.error} Nothing was written.")
        totals = roster_totals(roster)
        self.stdout.write(f"  {totals['new']} new, {totals['updated']} updated, {totals['unchanged']} unchanged")
        self.stdout.write("Dry run: nothing was written." if dry_run else "Applied.")
