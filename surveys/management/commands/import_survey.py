"""Load a survey: manage.py import_survey FILE [--dry-run] [--publish] (our JSON document or an XLSForm .xlsx)."""
from django.core.management.base import BaseCommand, CommandError

from surveys.documents import DocumentError
from surveys.services import survey_import


class Command(BaseCommand):
    help = ("Load a survey from our JSON document (.json) or an XLSForm workbook (.xlsx: sheets survey, choices, "
            "settings). A file with any problem writes nothing: every problem is printed (by sheet, row and column "
            "for a workbook) and the exit status is 1. A workbook makes a draft unless --publish.")

    def add_arguments(self, parser):
        parser.add_argument("file", help="the survey, .json or .xlsx")
        parser.add_argument("--dry-run", action="store_true", help="check it; write nothing")
        parser.add_argument("--publish", action="store_true",
                            help="open it to respondents (every text must be in every language)")

    def handle(self, *, file, dry_run, publish, **options):
        try:
            with open(file, "rb") as source:
                result = survey_import(source=source, filename=file, publish=publish, dry_run=dry_run)
        except FileNotFoundError as error:
            raise CommandError(f"No file {file}.") from error
        except DocumentError as error:
            for problem in error.problems:
                self.stderr.write(f"  {problem}")
            count = len(error.problems)
            raise CommandError(f"{file}: {count} problem{'s' if count > 1 else ''}; nothing was written.") from error
        if dry_run:
            questions = sum(len(q["rows"]) or 1 for page in result["pages"] for q in page["questions"])
            self.stdout.write(f"{file}: '{result['slug']}', {len(result['pages'])} pages, {questions} questions, "
                              f"languages {', '.join(result['languages'])}. Dry run: nothing was written.")
            return
        self.stdout.write(f"{file}: created '{result.slug}' ({result.get_status_display().lower()}), "
                          f"{result.pages.count()} pages, languages {', '.join(result.languages)}.")
