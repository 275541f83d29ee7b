"""Load the school directory from a CSV or XLSX file: manage.py import_schools FILE [--dry-run]."""
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.scopes import COMMAND_LINE
from fileformats.tables import TableError
from rosters.directory import COLUMNS, directory_counts, school_directory_import


class Command(BaseCommand):
    help = (f"Load districts and schools from a CSV (UTF-8 or Windows-1252) or XLSX file with the columns "
            f"{', '.join(COLUMNS)}. Importing again updates names and never duplicates. A file with any "
            f"problem writes nothing: every problem is printed and the exit status is 1.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the directory, CSV or XLSX")
        parser.add_argument("--dry-run", action="store_true", help="check and count; write nothing")

    def handle(self, *, file: str, dry_run: bool, **options: Any) -> None:
        try:
            result = school_directory_import(scope=COMMAND_LINE, path=file, dry_run=dry_run)
        except FileNotFoundError as error:
            raise CommandError(f"No file {file}.") from error
        except TableError as error:
            raise CommandError(f"{file}: {error} Nothing was written.") from error
        self.stdout.write(f"{file}: {result.described}.")
        problems = result.problems()
        if problems:
            for problem in problems:
                self.stderr.write(f"  {problem}")
            raise CommandError(f"{len(problems)} problem{'s' if len(problems) > 1 else ''}; nothing was written.")
        for what in ("districts", "schools"):
            self.stdout.write(f"  {what}: {directory_counts(result, what)}")
        self.stdout.write("Dry run: nothing was written." if dry_run else "Applied.")
