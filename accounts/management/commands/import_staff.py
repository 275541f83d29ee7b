"""Load staff accounts from a CSV or XLSX file: manage.py import_staff FILE [--dry-run]."""
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.scopes import COMMAND_LINE
from accounts.staff_import import COLUMNS, staff_import
from fileformats.tables import TableError


class Command(BaseCommand):
    help = (f"Create or change staff accounts from a CSV (UTF-8 or Windows-1252) or XLSX file with the columns "
            f"{', '.join(COLUMNS)} (role: state_admin, district, school or analyst; codes separated by commas or spaces). "
            f"Accounts are matched by user name without case; those the file does not name are left alone; "
            f"importing the same file again changes nothing. A file with any problem writes nothing: every problem "
            f"is printed and the exit status is 1.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the staff file, CSV or XLSX")
        parser.add_argument("--dry-run", action="store_true", help="check and count; write nothing but the audit entry")

    def handle(self, *, file: str, dry_run: bool, **options: Any) -> None:
        try:
            result = staff_import(scope=COMMAND_LINE, path=file, dry_run=dry_run)
        except FileNotFoundError as error:
            raise CommandError(f"No file {file}.") from error
        except TableError as error:
            raise CommandError(f"{file}: {error} Nothing was written.") from error
        self.stdout.write(f"{file}: {result.described}.")
        if result.problems:
            for problem in result.problems:
                self.stderr.write(f"  {problem}")
            count = len(result.problems)
            raise CommandError(f"{count} problem{'s' if count > 1 else ''}; nothing was written.")
        self.stdout.write(f"  accounts: {result.counts}")
        if dry_run:
            self.stdout.write("Dry run: nothing was written.")
        elif result.counts.nothing_to_change:
            self.stdout.write("Nothing to change: every account in the file is as it is already.")
        else:
            created = result.created_user_ids
            self.stdout.write(f"Applied. {len(created)} new account{'s' if len(created) != 1 else ''}" + (
                f" {'were' if len(created) != 1 else 'was'} emailed a link to set a password."
                if settings.STAFF_LOCAL_PASSWORDS else ": they sign in with the identity provider."))
